"""Settings sections are plain dataclasses: pydantic checks raw input against their annotated constraints (imported
only then), and data checked before (the settings cache) is rebuilt without it: defining ~25 pydantic models at
every start cost more than the whole settings load does now."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

T = TypeVar("T", bound="DataclassInstance")
# pydantic's config for every section: an unknown key is an error, since a typo must not be silently ignored.
STRICT_KEYS = {"extra": "forbid"}


class InvalidData(ValueError):
    """Input that does not fit; `problems` lists each as `dotted.path: what is wrong`."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def validate_as(cls: type[T], data: Any) -> T:
    """`data` checked and converted ("3" -> 3, {"retry": {...}} -> RetryConfig) into `cls`, or InvalidData."""
    # Field is named in the sections' string annotations; pydantic resolves them in this frame's namespace too.
    from pydantic import Field, TypeAdapter, ValidationError  # noqa: F401

    try:
        return TypeAdapter(cls).validate_python(data)
    except ValidationError as e:
        raise InvalidData([_problem(cls, err) for err in e.errors()]) from e


def _problem(cls: type[Any], err: Any) -> str:
    """One error as `dotted.path: what is wrong`; an unknown key gets the nearest known one at its place."""
    loc = [str(part) for part in err["loc"]]
    where = ".".join(loc) or "settings"
    if err["type"] not in ("unexpected_keyword_argument", "extra_forbidden") or not loc:
        return f"{where}: {err['msg']}"
    import difflib

    known = known_keys(cls, loc[:-1])
    close = difflib.get_close_matches(loc[-1], known, n=1, cutoff=0.6)
    hint = f"; did you mean '{'.'.join([*loc[:-1], close[0]])}'?" if close else ""
    return f"{where}: no such setting{hint}"


def known_keys(cls: type[Any], path: list[str]) -> list[str]:
    """The field names of the section at `path` under dataclass `cls` (a mapping's key is any name), or []."""
    import typing

    node: Any = cls
    steps = list(path)
    while True:
        origin = typing.get_origin(node)
        if origin is typing.Union or str(origin) == "<class 'types.UnionType'>":
            node = next((a for a in typing.get_args(node) if a is not type(None)), None)
            continue
        if origin is dict:
            if not steps:
                return []
            steps.pop(0)  # a mapping's key (providers.<name>): any name
            node = typing.get_args(node)[1]
            continue
        if not (isinstance(node, type) and dataclasses.is_dataclass(node)):
            return []
        if not steps:
            return [f.name for f in dataclasses.fields(node)]
        try:
            from pydantic import Field  # the sections' constraints name it (see validate_as)

            hints = typing.get_type_hints(node, localns={"Field": Field})
        except Exception:  # an annotation that cannot be resolved here: no suggestion, the error stands
            return []
        node = hints.get(steps.pop(0))
        if node is None:
            return []


def section(settings: Any, name: str, cls: type[T]) -> T:
    """`settings.<name>` as a `cls`: the section itself, a mapping checked into one, or the defaults when the
    settings object (a test double, an older Settings) has no such section."""
    value = getattr(settings, name, None)
    if isinstance(value, cls):
        return value
    if isinstance(value, dict):
        return validate_as(cls, value)
    return cls()


def from_dict(cls: type[T], data: dict[str, Any]) -> T:
    """Rebuild a dataclass from data that was validated before (its JSON form): nested sections are recognised
    by their default factory, mappings of sections by `metadata={"values": Section}`, other types by
    `metadata={"type": T}` (e.g. Path)."""
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            continue
        value = data[f.name]
        factory = f.default_factory
        if isinstance(factory, type) and dataclasses.is_dataclass(factory) and isinstance(value, dict):
            value = from_dict(factory, value)
        elif "values" in f.metadata and isinstance(value, dict):
            value = {k: from_dict(f.metadata["values"], v) for k, v in value.items()}
        elif "type" in f.metadata and value is not None:
            value = f.metadata["type"](value)
        kwargs[f.name] = value
    return cls(**kwargs)


def to_jsonable(obj: Any) -> Any:
    """A dataclass tree as JSON-ready data (Paths as strings)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        return {k: to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [to_jsonable(v) for v in obj]
    if obj is None or isinstance(obj, str | int | float | bool):
        return obj
    return str(obj)
