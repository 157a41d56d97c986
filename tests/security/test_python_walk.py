"""The Python analyser's one-pass walk reads names and calls in the orders the two walks it replaced did: imports
and bindings breadth-first (ast.walk), calls depth-first (the recursive visit); deep trees still take the visit."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from grove.security.skill_scan import python_code as skill_python
from grove.security.skill_scan.python_code import _walk, python_hits

_SOURCES = sorted((Path(skill_python.__file__).parent).glob("*.py"))


class _Order(ast.NodeVisitor):
    def __init__(self) -> None:
        self.calls: list[ast.Call] = []

    def visit_Call(self, node: ast.Call) -> None:
        self.calls.append(node)
        self.generic_visit(node)


@pytest.mark.parametrize("path", _SOURCES, ids=lambda p: p.name)
def test_the_walk_keeps_both_orders(path: Path) -> None:
    tree = ast.parse(path.read_text())
    calls, names, _ = _walk(tree)
    order = _Order()
    order.visit(tree)
    assert calls == order.calls
    kinds = (ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign)
    assert names == [n for n in ast.walk(tree) if isinstance(n, kinds)]


def test_a_binding_at_module_level_wins_over_one_in_a_function_before_it() -> None:
    # Breadth-first, `cmd = 'ls'` is the first binding of cmd; depth-first it would be the one in f.
    assert python_hits("def f():\n    cmd = 'rm -rf ~'\ncmd = 'ls'\nimport os\nos.system(cmd)\n") == []


def test_a_nested_import_is_the_last_one_of_its_name() -> None:
    hits = python_hits(
        "def f():\n    from shutil import rmtree as run\nfrom os import system as run\nrun('rm -rf ~')\n"
    )
    assert [(h.line, h.excerpt) for h in hits] == [(4, "rm -rf rm -rf ~")]


def _nested(depth: int) -> str:
    return (
        "import os\nx = " + "[" * depth + "os.system('rm -rf ~')" + "]" * depth + "\nos.system('rm -rf /')\n"
    )


def test_a_deep_tree_gets_the_same_findings_through_the_recursive_visit() -> None:
    shallow = python_hits(_nested(10))
    assert [(h.line, h.excerpt) for h in shallow] == [(2, "rm -rf ~"), (3, "rm -rf /")]
    assert python_hits(_nested(skill_python._SHALLOW + 50)) == shallow


def test_a_tree_too_deep_to_visit_is_read_for_shell_strings() -> None:
    code = "import os\nx = " + " + ".join(["'a'"] * 800) + "\nos.system('rm -rf ~')\nos.removedirs('/')\n"
    ast.parse(code)  # it parses; its visit would need some 1,600 frames
    hits = python_hits(code)
    assert [(h.line, h.excerpt) for h in hits] == [(3, "rm -rf ~")]


def test_calls_are_reported_in_the_visits_order() -> None:
    # Depth-first: the call inside line 2's comes before line 3's (breadth-first would put it last).
    hits = python_hits("import os\nos.system(os.system('rm -rf /'), 'rm -rf ~')\nos.system('rm -rf ~/x')\n")
    assert [h.excerpt for h in hits] == ['"$X"', "rm -rf /", "rm -rf ~/x"]
