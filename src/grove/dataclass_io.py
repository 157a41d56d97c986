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
        raise InvalidData(
            [f"{'.'.join(map(str, err['loc'])) or 'settings'}: {err['msg']}" for err in e.errors()]
        ) from e


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
