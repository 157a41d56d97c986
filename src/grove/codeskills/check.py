"""Checking a call against a code skill's contract before anything runs: the types of `solve`'s signature, its
required arguments and no unknown ones, validated strictly (pydantic) so `"5"` is not an int and `true` is not 1."""

from __future__ import annotations

import functools
import json
from typing import Any, NotRequired, Required, Union

from pydantic import ConfigDict, TypeAdapter, ValidationError
from typing_extensions import TypedDict

from grove.codeskills.contract import Contract

_SCALARS: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "null": type(None),
}


class ArgumentsError(ValueError):
    """The arguments do not fit the contract; the message says which, how, and what the signature is."""


def schema_type(schema: dict[str, Any]) -> Any:
    """The Python type for one of the contract's JSON schemas (the subset `contract.annotation_schema` writes)."""
    if "anyOf" in schema:
        return Union[tuple(schema_type(s) for s in schema["anyOf"])]  # noqa: UP007 (built at run time)
    kind = schema.get("type")
    if kind in _SCALARS:
        return _SCALARS[kind]
    if kind == "array":
        return list[schema_type(schema.get("items") or {})]
    if kind == "object":
        return dict[str, schema_type(schema.get("additionalProperties") or {})]
    return Any


@functools.lru_cache(maxsize=64)
def _adapter(args_schema: str) -> TypeAdapter[Any]:
    """The validator of one arguments schema (as JSON text, so it can be a cache key)."""
    schema = json.loads(args_schema)
    props: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))
    fields = {
        name: (Required if name in required else NotRequired)[schema_type(schema)]
        for name, schema in props.items()
    }
    # A TypedDict made at run time from the contract's schema, which no static type can describe; pydantic reads
    # its config off the class.
    shape = TypedDict("solve_args", fields, total=False)  # pyright: ignore[reportGeneralTypeIssues, reportArgumentType]
    shape.__pydantic_config__ = ConfigDict(strict=True, extra="forbid")  # pyright: ignore[reportAttributeAccessIssue]
    return TypeAdapter(shape)


def check_args(contract: Contract, args: Any) -> None:
    """Raise ArgumentsError unless `args` is an object that `solve`'s signature accepts, with the declared types."""
    if not isinstance(args, dict):
        raise ArgumentsError(
            f"args must be a JSON object of solve's arguments, got {type(args).__name__}; "
            f"the contract is {contract.signature}"
        )
    try:
        _adapter(json.dumps(contract.args, sort_keys=True)).validate_python(args)
    except ValidationError as e:
        problems = [_problem(er) for er in e.errors()]
        raise ArgumentsError(
            f"the arguments do not match the contract {contract.signature}: "
            + "; ".join(problems)
            + ". Nothing ran; call again with arguments of these types."
        ) from None


def _problem(error: Any) -> str:
    where = ".".join(str(p) for p in error.get("loc", ())) or "arguments"
    if error.get("type") == "missing":
        return f"{where}: missing (required)"
    if error.get("type") == "extra_forbidden":
        return f"{where}: not an argument of solve"
    shown = json.dumps(error.get("input"), default=str)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return f"{where}: {error.get('msg', 'invalid').lower()}, got {shown}"
