"""The contract of a code skill: `solve`'s signature read from its source, as text and as JSON schemas."""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from typing import Any

from grove.skills.code_meta import ENTRY

_SCALARS = {"str": "string", "int": "integer", "float": "number", "bool": "boolean", "None": "null"}
_CONTAINERS = {"list": "array", "List": "array", "tuple": "array", "dict": "object", "Dict": "object"}


class ContractError(ValueError):
    """The code has no usable entry function; the message says what to write instead."""


@dataclass
class Contract:
    signature: str  # e.g. "solve(path: str, column: str) -> list[float]"
    args: dict[str, Any]  # JSON schema of the arguments object
    result: dict[str, Any] = field(default_factory=dict)  # JSON schema of the result
    summary: str = ""  # the first line of solve's docstring

    def to_json(self) -> str:
        return json.dumps({"args": self.args, "result": self.result}, sort_keys=True, separators=(",", ":"))


def annotation_schema(node: ast.expr | None) -> dict[str, Any]:
    """A JSON schema for a type annotation; unknown or missing annotations give {} (anything)."""
    if node is None:
        return {}
    if isinstance(node, ast.Constant) and isinstance(node.value, str):  # a string annotation
        try:
            return annotation_schema(ast.parse(node.value, mode="eval").body)
        except SyntaxError:
            return {}
    if isinstance(node, ast.Constant) and node.value is None:
        return {"type": "null"}
    if isinstance(node, ast.Name):
        if node.id in _SCALARS:
            return {"type": _SCALARS[node.id]}
        if node.id in _CONTAINERS:
            return {"type": _CONTAINERS[node.id]}
        return {}
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):  # X | Y
        parts = [annotation_schema(node.left), annotation_schema(node.right)]
        return {"anyOf": parts} if all(parts) else {}
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        outer = _CONTAINERS.get(node.value.id)
        inner = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if outer == "array":
            return {"type": "array", "items": annotation_schema(inner[0])} if inner else {"type": "array"}
        if outer == "object":
            value = annotation_schema(inner[1]) if len(inner) == 2 else {}
            return {"type": "object", "additionalProperties": value} if value else {"type": "object"}
    return {}


def read_contract(code: str) -> Contract:
    """The contract of `code`'s top-level `solve`; raises ContractError when there is none or it cannot parse."""
    try:
        tree = ast.parse(code)
    except SyntaxError as e:
        raise ContractError(f"scripts/skill.py does not parse: line {e.lineno}: {e.msg}") from e
    fn = next(
        (n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == ENTRY),
        None,
    )
    if fn is None:
        raise ContractError(
            f"the code must define a top-level function `{ENTRY}(...)`, the skill's entry point"
        )
    if fn.args.vararg or fn.args.kwarg or fn.args.posonlyargs:
        raise ContractError(f"`{ENTRY}` takes named arguments only (no *args, **kwargs or positional-only)")
    params = [*fn.args.args, *fn.args.kwonlyargs]
    defaults = [None] * (len(fn.args.args) - len(fn.args.defaults)) + list(fn.args.defaults)
    defaults += list(fn.args.kw_defaults)
    props: dict[str, Any] = {}
    required: list[str] = []
    shown: list[str] = []
    for param, default in zip(params, defaults, strict=True):
        props[param.arg] = annotation_schema(param.annotation)
        text = param.arg + (f": {ast.unparse(param.annotation)}" if param.annotation else "")
        if default is None:
            required.append(param.arg)
        else:
            text += f" = {ast.unparse(default)}"
        shown.append(text)
    returns = f" -> {ast.unparse(fn.returns)}" if fn.returns else ""
    doc = ast.get_docstring(fn) or ""
    args_schema: dict[str, Any] = {"type": "object", "properties": props, "required": required}
    return Contract(
        signature=f"{ENTRY}({', '.join(shown)}){returns}",
        args=args_schema,
        result=annotation_schema(fn.returns),
        summary=doc.strip().split("\n", 1)[0],
    )
