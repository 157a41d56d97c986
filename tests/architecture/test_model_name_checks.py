"""What a model needs is decided in one place, grove.llm.profiles (its rules table and `needs_for`): no other
module of src/ branches on a model's name or provider.

Read from the source (ast). A check is a comparison (==, !=, in, not in) or a `startswith`/`endswith` of a string
against a value that names a model: a variable or attribute called like one (model, spec, provider, ...) or the
provider part cut from a spec (`x.partition(":")[0]`, `x.split(":")[0]`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "grove"
PROFILE_MODULE = SRC / "llm" / "profiles.py"
# A name that holds a model spec or a part of one (a backend's spec is `use`/`kind`, never named so).
MODEL_NAME = re.compile(r"(^|_)(model|models|model_name|spec|spec_text|provider|vendor)$")
# Known exceptions, each with why ("path:the line's text"); a new one needs a reason a reader accepts.
ALLOWED: dict[str, str] = {
    'src/grove/cli/doctor.py:if spec.provider == "local":': "doctor probes what each provider kind needs installed "
    "(a package, a script file, a server): a check of the machine, not of what a model needs",
    'src/grove/cli/doctor.py:if spec.provider == "script":': "as above",
    'src/grove/moving_in/sessions_import.py:if isinstance(msg.get("model"), str) and past.model == "unknown":': (
        "the placeholder an imported session has until a record names its model"
    ),
}


def _names_a_model(node: ast.AST) -> bool:
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Call):
        call = node.value  # spec.partition(":")[0] / spec.split(":")[0]: a provider cut from a spec
        return (
            isinstance(call.func, ast.Attribute)
            and call.func.attr in ("partition", "split")
            and any(isinstance(a, ast.Constant) and a.value == ":" for a in call.args)
        )
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("lower", "strip")
    ):
        return _names_a_model(node.func.value)
    if isinstance(node, ast.Name):
        return bool(MODEL_NAME.search(node.id))
    if isinstance(node, ast.Attribute):
        return bool(MODEL_NAME.search(node.attr)) or (node.attr == "name" and _names_a_model(node.value))
    return False


def _strings(node: ast.AST) -> bool:
    """A name or names: string constants with a letter or digit ("/" in a spec is parsing, not a check)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and any(c.isalnum() for c in node.value)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts) and all(_strings(e) for e in node.elts)
    return False


def model_name_checks(source: str) -> Iterator[int]:
    """Line numbers of checks on a model's name in `source`."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_strings(s) for s in sides) and any(_names_a_model(s) for s in sides):
                yield node.lineno
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("startswith", "endswith")
            and _names_a_model(node.func.value)
            and node.args
            and _strings(node.args[0])
        ):
            yield node.lineno


def test_no_model_name_checks_outside_the_profile_module() -> None:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if path == PROFILE_MODULE:
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        for line in model_name_checks(path.read_text(encoding="utf-8")):
            where = f"{path.relative_to(ROOT)}:{lines[line - 1].strip()}"
            if where not in ALLOWED:
                found.append(f"{path.relative_to(ROOT)}:{line}: {lines[line - 1].strip()}")
    assert not found, (
        "model-name checks outside grove/llm/profiles.py (put the decision in its rules or ModelNeeds and "
        "read it from there):\n" + "\n".join(found)
    )


def test_the_finder_sees_the_shapes_a_check_takes() -> None:
    checks = """
a = spec.partition(":")[0] == "local"
b = str(m.name).split(":")[0] == "local"
c = model.startswith("gpt-")
d = spec.provider == "local"
e = self.config.model.split(":")[0] == "local"
f = provider in ("local", "script")
g = model_name.lower().startswith("claude")
n = spec.startswith("script:")
"""
    fine = """
h = backend.kind == "local"
i = use != "local"
j = config.use != "local"
o = "/" not in provider
k = name.startswith("-")
l = needs_for(model.name).lean
m = model.name
"""
    assert list(model_name_checks(checks)) == [2, 3, 4, 5, 6, 7, 8, 9]
    assert list(model_name_checks(fine)) == []
