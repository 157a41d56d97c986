"""The layer contract in pyproject.toml ([tool.grove.layers]) holds: no import goes up a tier, no import cycle
between packages (within a tier the graph gives the direction) nor between modules, and the "never" rules.

Read from the source (ast), so a lazy import inside a function counts as much as one at the top of a module.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"


def layers() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["grove"]["layers"]


def layer_ranks() -> dict[str, int]:
    """Each package's tier, 0 at the top."""
    return {pkg: rank for rank, tier in enumerate(layers()["tiers"]) for pkg in tier["packages"]}


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


def package_imports() -> Iterator[tuple[Path, int, str, str]]:
    """(file, line, importing package, imported package) for every import between two top packages."""
    for path in source_files():
        own = top_package(module_name(path))
        for line, target in grove_imports(path):
            other = top_package(target)
            if other not in (own, "grove") and own != "grove":
                yield path, line, own, other


def test_no_import_goes_up_a_tier() -> None:
    ranks = layer_ranks()
    wrong = [
        f"{path.relative_to(ROOT)}:{line} ({own}) imports {other}"
        for path, line, own, other in package_imports()
        if ranks.get(other, -1) < ranks.get(own, -1)
    ]
    assert not wrong, "imports going up a tier of pyproject.toml's [tool.grove.layers]:\n" + "\n".join(wrong)


def test_no_package_import_cycles() -> None:
    """Within a tier packages may import each other, but only one way round."""
    graph: dict[str, set[str]] = {}
    for _, _, own, other in package_imports():
        graph.setdefault(own, set()).add(other)
    cycles = find_cycles(graph)
    assert not cycles, "import cycles between packages:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_every_tier_says_why_and_names_a_package_once() -> None:
    tiers = layers()["tiers"]
    assert all(t.get("name") and t.get("why") and t.get("packages") for t in tiers)
    named = [p for t in tiers for p in t["packages"]]
    assert len(named) == len(set(named)), (
        f"packages in two tiers: {sorted({p for p in named if named.count(p) > 1})}"
    )


def _names(value: str | list[str]) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def _within(module: str, prefixes: Iterable[str]) -> bool:
    """`module` (grove. left out) is one of `prefixes` or inside one; "*" is every module."""
    return any(p == "*" or module == p or module.startswith(p + ".") for p in prefixes)


def broken_rules(imports: Iterable[tuple[str, str]], rules: list[dict[str, Any]]) -> list[str]:
    """`importer imports target (rule's why)` for each import a "never" rule forbids. A rule: `from` and `to`
    (module prefixes without `grove.`, or "*"), optional `except` (importers allowed anyway) and `why`. An import
    inside the importer's own top package is never a breach."""
    out = []
    for importer, target in imports:
        if top_package(f"grove.{importer}") == top_package(f"grove.{target}"):
            continue
        for rule in rules:
            if (
                _within(importer, _names(rule["from"]))
                and not _within(importer, _names(rule.get("except", [])))
                and _within(target, _names(rule["to"]))
            ):
                out.append(f"{importer} imports {target} ({rule.get('why', 'never')})")
    return out


def all_imports() -> Iterator[tuple[str, str]]:
    for path in source_files():
        importer = module_name(path).removeprefix("grove.")
        for _, target in grove_imports(path):
            yield importer, target.removeprefix("grove.")


def test_never_rules_hold() -> None:
    broken = broken_rules(all_imports(), layers()["never"])
    assert not broken, "imports a 'never' rule in pyproject.toml forbids:\n" + "\n".join(sorted(set(broken)))


def test_never_rules_name_real_modules() -> None:
    """A rule naming a module that does not exist (a typo, a rename) would hold for ever and guard nothing."""
    modules = {module_name(p).removeprefix("grove.") for p in source_files()}
    dead = [
        name
        for rule in layers()["never"]
        for name in _names(rule["from"]) + _names(rule["to"]) + _names(rule.get("except", []))
        if name != "*" and not _within(name, modules) and not any(m.startswith(name + ".") for m in modules)
    ]
    assert not dead, f"'never' rules name modules that do not exist: {dead}"
    assert all(rule.get("why") for rule in layers()["never"]), "every 'never' rule says why"


def test_a_never_rule_catches_a_breach() -> None:
    rules = [{"from": "*", "to": "cli", "except": ["__main__"], "why": "top"}, {"from": "sandbox", "to": "*"}]
    imports = [
        ("__main__", "cli.main"),
        ("tools.files", "cli.output"),
        ("sandbox.runner", "config"),
        ("sandbox.runner", "sandbox.types"),
        ("cli.run", "cli.output"),
        ("tools.files", "client"),
    ]
    assert broken_rules(imports, rules) == [
        "tools.files imports cli.output (top)",
        "sandbox.runner imports config (never)",
    ]


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
