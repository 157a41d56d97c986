"""The layer contract in pyproject.toml ([tool.grove.layers]) holds, and no module import cycle exists.

Read from the source (ast), so a lazy import inside a function counts as much as one at the top of a module.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"


def layer_ranks() -> dict[str, int]:
    order = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["grove"]["layers"]["order"]
    return {pkg.strip(): rank for rank, line in enumerate(order) for pkg in line.split("|")}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def grove_imports(path: Path) -> Iterator[tuple[int, str]]:
    """(line, imported grove module) for every import in the file, wherever it stands."""
    this = module_name(path)
    package = this if path.name == "__init__.py" else this.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "grove")
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against this package
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "grove":
                continue
            # `from grove.pkg import mod` is an import of the module grove.pkg.mod (as grimp counts it); a name
            # that is no module is an import of grove.pkg itself
            for alias in node.names:
                sub = SRC / Path(*f"{target}.{alias.name}".split("."))
                is_module = sub.with_suffix(".py").exists() or (sub / "__init__.py").exists()
                yield node.lineno, f"{target}.{alias.name}" if is_module else target


def top_package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "grove"


def source_files() -> list[Path]:
    return sorted((SRC / "grove").rglob("*.py"))


def test_every_package_has_a_layer() -> None:
    ranks = layer_ranks()
    missing = sorted({top_package(module_name(p)) for p in source_files()} - set(ranks) - {"grove"})
    assert not missing, f"add these packages to [tool.grove.layers] in pyproject.toml: {missing}"


def test_no_import_goes_up_or_sideways() -> None:
    ranks = layer_ranks()
    wrong: list[str] = []
    for path in source_files():
        own = top_package(module_name(path))
        for line, target in grove_imports(path):
            other = top_package(target)
            if other in (own, "grove") or own == "grove":
                continue
            if ranks.get(other, -1) <= ranks.get(own, -1):
                wrong.append(f"{path.relative_to(ROOT)}:{line} ({own}) imports {target} ({other})")
    assert not wrong, "imports against the layer order in pyproject.toml:\n" + "\n".join(wrong)


def test_no_module_import_cycles() -> None:
    graph: dict[str, set[str]] = {}
    modules = {module_name(p) for p in source_files()}
    for path in source_files():
        name = module_name(path)
        graph[name] = {t for _, t in grove_imports(path) if t in modules and t != name}
    cycles = find_cycles(graph)
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected component of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ],
)
def test_the_cycle_finder_finds_cycles(graph: dict[str, set[str]], expected: list[list[str]]) -> None:
    assert find_cycles(graph) == expected
