"""The settings reference (docs/SETTINGS.md), generated from the config dataclasses: every key, its type, default,
limits and description. `python -m grove.config.reference [PATH]` writes it; `--check` exits 1 when PATH differs.
"""

from __future__ import annotations

import dataclasses
import sys
import types
import typing
from pathlib import Path
from typing import Any

from grove.config import ENV_NESTING, ENV_PREFIX, Settings

DEFAULT_PATH = Path("docs/SETTINGS.md")
# pydantic's Field metadata that limit a value, and how the reference writes each
LIMITS = (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<"))
HEADER = """# Settings reference

Generated from the config dataclasses in `src/grove/config/` by `python -m grove.config.reference`; do not edit
by hand (a test fails when this file and the code differ). Settings live in `$GROVE_HOME/config.yaml` (default
`~/.grove`); `grove config set KEY VALUE` changes one (checked), `grove config show` prints them. Each key can
also come from the environment: `{prefix}` + the key in capitals, `{nest}` between sections
(`{prefix}RETRY{nest}ATTEMPTS=2`), or JSON for a whole section (`{prefix}RETRY='{{"attempts": 2}}'`).
Precedence: command-line flags, then `{prefix}*` variables, then config.yaml. API keys are never settings: they
come from the environment only.

`<name>` in a key stands for a name you choose (a provider, a platform, a server, a key).
"""


def _hints(cls: type) -> dict[str, Any]:
    """The fields' annotations resolved; `Field` is named in them but imported by the sections only for typing."""
    from pydantic import Field

    module = sys.modules[cls.__module__]
    return typing.get_type_hints(cls, {**vars(module), "Field": Field}, include_extras=True)


def _split(annotation: Any) -> tuple[Any, Any]:
    """(the bare type, pydantic's FieldInfo or None) of an `Annotated[T, Field(...)]` or a bare T."""
    if typing.get_origin(annotation) is typing.Annotated:
        base, *extras = typing.get_args(annotation)
        info = next((e for e in extras if hasattr(e, "description")), None)
        return base, info
    return annotation, None


def type_text(tp: Any) -> str:
    """A type as a reader writes it in YAML terms: `int`, `str | None`, `"a" | "b"`, `list[str]`."""
    origin = typing.get_origin(tp)
    if tp is type(None):
        return "none"
    if origin is typing.Literal:
        return " | ".join(f'"{a}"' for a in typing.get_args(tp))
    if origin in (typing.Union, types.UnionType):
        return " | ".join(type_text(a) for a in typing.get_args(tp))
    if origin is tuple:  # tuple[str, ...] is written as a YAML list
        return f"list[{type_text(typing.get_args(tp)[0])}]"
    if origin in (list, dict):
        return f"{origin.__name__}[{', '.join(type_text(a) for a in typing.get_args(tp))}]"
    if tp is Any:
        return "any"
    return getattr(tp, "__name__", str(tp))


def _limits(info: Any) -> str:
    found = []
    for item in getattr(info, "metadata", None) or ():
        for name, sign in LIMITS:
            value = getattr(item, name, None)
            if value is not None:
                found.append(f"{sign} {value}")
    return ", ".join(found)


def _default(f: dataclasses.Field[Any]) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return dataclasses.MISSING


def _value_text(value: Any) -> str:
    if value is dataclasses.MISSING:
        return "required"
    if value is None:
        return "empty"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"' if value else '""'
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return (
            "{}" if not value else "{" + ", ".join(f"{k}: {_value_text(v)}" for k, v in value.items()) + "}"
        )
    return repr(value)


def _doc(cls: type) -> str:
    """The section's own docstring, else its module's first paragraph when the module is about it; dataclasses
    without one get a generated signature as __doc__, which is no description."""
    doc = cls.__doc__ or ""
    if doc and not doc.startswith(f"{cls.__name__}("):
        return " ".join(doc.split())
    module = sys.modules[cls.__module__]
    if module.__name__ != "grove.config" and module.__doc__:
        return " ".join(module.__doc__.strip().split("\n\n")[0].split())
    return ""


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


@dataclasses.dataclass
class Section:
    key: str  # dotted, with <name> for a mapping of sections ("" = top level)
    cls: type
    rows: list[tuple[str, str, str, str]] = dataclasses.field(default_factory=list)


def sections(cls: type = Settings, key: str = "") -> list[Section]:
    """The section `cls` at `key` and, after it, every section under it, in field order."""
    here = Section(key, cls)
    below: list[Section] = []
    hints = _hints(cls)
    for f in dataclasses.fields(cls):
        if key == "" and f.name == "home":
            continue  # GROVE_HOME, not a setting (it says where config.yaml is)
        base, info = _split(hints[f.name])
        full = f"{key}.{f.name}" if key else f.name
        values = f.metadata.get("values")
        if values is not None:  # a mapping of sections: providers.<name>.*
            below += sections(values, f"{full}.<name>")
            continue
        if dataclasses.is_dataclass(base) and isinstance(base, type):
            below += sections(base, full)
            continue
        what = " ".join((getattr(info, "description", None) or "").split())
        here.rows.append((full, type_text(base), _value_text(_default(f)), _join(what, _limits(info))))
    return ([here] if here.rows else []) + below


def _join(what: str, limits: str) -> str:
    return f"{what} ({limits})" if what and limits else what or (f"({limits})" if limits else "")


def render() -> str:
    out = [HEADER.format(prefix=ENV_PREFIX, nest=ENV_NESTING)]
    for s in sections():
        out.append(f"## `{s.key}`" if s.key else "## Top level")
        out.append("")
        doc = _doc(s.cls) if s.key else ""
        if doc:
            out += [doc, ""]
        out.append("| key | type | default | what |")
        out.append("|---|---|---|---|")
        for name, tp, default, what in s.rows:
            out.append(f"| `{name}` | {_cell(tp)} | `{_cell(default)}` | {_cell(what)} |")
        out.append("")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    import argparse

    from grove.atomic_files import atomic_write_text

    parser = argparse.ArgumentParser(prog="python -m grove.config.reference", description=__doc__)
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_PATH, help="default: docs/SETTINGS.md")
    parser.add_argument("--check", action="store_true", help="exit 1 if PATH is not what would be written")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        same = args.path.is_file() and args.path.read_text(encoding="utf-8") == text
        if not same:
            print(f"grove: {args.path} is out of date; run python -m grove.config.reference", file=sys.stderr)
        return 0 if same else 1
    if not args.path.parent.is_dir():
        print(f"grove: no folder {args.path.parent}; run this from the repository's root", file=sys.stderr)
        return 2
    atomic_write_text(args.path, text)
    print(f"wrote {args.path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
