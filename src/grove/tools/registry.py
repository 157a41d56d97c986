"""Typed tools: JSON schema derived from a Python signature (pydantic), validated calls, errors the model can fix."""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, get_type_hints

from grove.errors import GroveError
from grove.llm.types import ToolSchema
from grove.tools.context import ToolContext

if TYPE_CHECKING:
    from pydantic import BaseModel


# A tool's approval check: (context, tool name, arguments) -> None when the call may run, else the refusal.
Approve = Callable[[ToolContext, str, dict[str, Any]], "str | None"]


class ToolError(Exception):
    """Raised by a tool handler: the message goes back to the model as an error result."""


@dataclass
class ToolResult:
    content: str
    ok: bool = True


def parse_arguments(raw_arguments: str | dict[str, Any]) -> dict[str, Any] | ToolResult:
    """A call's arguments as a dict, or the error result the model can fix (bad JSON, not an object)."""
    try:
        args = json.loads(raw_arguments or "{}") if isinstance(raw_arguments, str) else raw_arguments
    except json.JSONDecodeError as e:
        return ToolResult(
            f"Error: arguments are not valid JSON ({e.msg} at char {e.pos}); resend them", False
        )
    if not isinstance(args, dict):
        return ToolResult("Error: arguments must be a JSON object", False)
    bad = _lone_surrogate(args)
    if bad is not None:  # no file name, pattern or command can hold one, and the record cannot store it
        return ToolResult(
            f"Error: argument {bad!r} holds a lone UTF-16 surrogate (like \\udc80), which is not text; "
            "resend it as valid Unicode",
            False,
        )
    return args


def _lone_surrogate(value: Any, where: str = "arguments") -> str | None:
    """The name of the first argument whose text (keys and nested values included) is not valid Unicode."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return where
        return None
    if isinstance(value, dict):
        items = list(value.items())
        for k, v in items:
            found = _lone_surrogate(k, where) or _lone_surrogate(v, k if where == "arguments" else where)
            if found:
                return found
    elif isinstance(value, list):
        for v in value:
            found = _lone_surrogate(v, where)
            if found:
                return found
    return None


@dataclass(frozen=True)
class Param:
    """One argument of a tool, as its signature and docstring give it."""

    annotation: Any
    default: Any  # ... when required
    description: str | None


@dataclass
class Tool:
    name: str
    description: str
    handler: Callable[..., Any]
    params: dict[str, Param]
    toolset: str
    mutating: bool = False
    needs_approval: bool = False  # every call passes the session's policy first (see `approve`)
    subagent_ok: bool = True  # whether a child agent may be given this tool
    # the tool's own approval check (args -> None or the refusal); None = the generic one for the whole call
    approve: Approve | None = None
    untrusted_output: bool = (
        False  # what it returns comes from outside (a shell, a server): it taints the session
    )
    # whether a call may change the workspace: the turn's checkpoint is taken before the first such call
    # (None = as `mutating`: a tool that changes anything is assumed to be able to change files)
    changes_workspace: bool | None = None

    @property
    def may_change_workspace(self) -> bool:
        return self.mutating if self.changes_workspace is None else self.changes_workspace

    @cached_property
    def args_model(self) -> type[BaseModel]:
        """The pydantic model that validates a call, built on first use: a session builds only the models of the
        tools it enables, and a run that calls no tool builds none."""
        from pydantic import ConfigDict, Field, create_model

        fields: dict[str, Any] = {
            n: (p.annotation, Field(p.default, description=p.description)) for n, p in self.params.items()
        }
        return create_model(f"{self.handler.__name__}_args", __config__=ConfigDict(extra="forbid"), **fields)

    @cached_property
    def schema(self) -> ToolSchema:
        params = _compact(_inline_refs(self.args_model.model_json_schema()))
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": params},
        }

    def call(self, ctx: ToolContext, raw_arguments: str | dict[str, Any]) -> ToolResult:
        args = parse_arguments(raw_arguments)
        if isinstance(args, ToolResult):
            return args
        from pydantic import ValidationError

        try:
            parsed = self.args_model.model_validate(args)
        except ValidationError as e:
            problems = "; ".join(
                f"{'.'.join(map(str, er['loc'])) or 'arguments'}: {er['msg']}" for er in e.errors()
            )
            return ToolResult(f"Error: invalid arguments for {self.name}: {problems}", False)
        if self.needs_approval:
            from grove.tools.approval import approve_call

            refusal = (self.approve or approve_call)(ctx, self.name, args)
            if refusal:
                return ToolResult(f"Error: {refusal}", False)
        try:
            out = self.handler(ctx, **{k: getattr(parsed, k) for k in type(parsed).model_fields})
        except ToolError as e:
            return ToolResult(f"Error: {e}", False)
        except Exception as e:  # a tool bug must not kill the turn; the model sees it and can adapt
            return ToolResult(f"Error: {self.name} failed: {type(e).__name__}: {e}", False)
        if isinstance(out, ToolResult):
            return out
        return ToolResult(out if isinstance(out, str) else json.dumps(out, ensure_ascii=False, default=str))


def _inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """Replace `$ref`s to `$defs` by the definitions (tool arguments are never recursive): fewer tokens, and
    small models and grammar builders handle flat schemas better."""
    defs = schema.pop("$defs", {})

    def resolve(node: Any) -> Any:
        if isinstance(node, list):
            return [resolve(v) for v in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            merged = {**defs[ref.removeprefix("#/$defs/")], **{k: v for k, v in node.items() if k != "$ref"}}
            return resolve(merged)
        return {k: resolve(v) for k, v in node.items()}

    return resolve(schema)


def _compact(schema: Any) -> Any:
    """Every call ships the schemas, so drop what tells the model nothing: pydantic's titles, and the
    `anyOf [X, null]` + `default: null` wrapping of optional arguments (an absent argument says the same)."""
    if isinstance(schema, list):
        return [_compact(v) for v in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _compact(v) for k, v in schema.items() if k != "title" or not isinstance(v, str)}
    variants = out.get("anyOf")
    if out.get("default", 0) is None and isinstance(variants, list) and {"type": "null"} in variants:
        rest = [v for v in variants if v != {"type": "null"}]
        if len(rest) == 1:
            del out["anyOf"], out["default"]
            out = {**rest[0], **out}
    return out


_PARAM_DOC = re.compile(r"^\s*(\w+)(?:\s*\([^)]*\))?:\s*(.+)$")


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Google-style docstring: the summary before 'Args:', and one description per parameter."""
    summary, _, rest = inspect.cleandoc(doc).partition("Args:")
    params: dict[str, str] = {}
    for line in rest.splitlines():
        m = _PARAM_DOC.match(line)
        if m:
            params[m.group(1)] = m.group(2).strip()
    return " ".join(summary.split()), params


def make_tool(
    fn: Callable[..., Any],
    *,
    toolset: str,
    name: str | None = None,
    mutating: bool = False,
    needs_approval: bool = False,
    subagent_ok: bool = True,
    approve: Approve | None = None,
    untrusted_output: bool = False,
    changes_workspace: bool | None = None,
) -> Tool:
    """Build a Tool from `fn(ctx, **typed_args) -> str`; the docstring gives the descriptions."""
    description, param_docs = _parse_docstring(fn.__doc__ or "")
    hints = get_type_hints(fn)
    params: dict[str, Param] = {}
    for i, (pname, param) in enumerate(inspect.signature(fn).parameters.items()):
        if i == 0:
            continue  # the ToolContext
        default = ... if param.default is inspect.Parameter.empty else param.default
        params[pname] = Param(hints.get(pname, Any), default, param_docs.get(pname))
    return Tool(
        name=name or fn.__name__,
        description=description,
        handler=fn,
        params=params,
        toolset=toolset,
        mutating=mutating,
        needs_approval=needs_approval,
        subagent_ok=subagent_ok,
        approve=approve,
        untrusted_output=untrusted_output,
        changes_workspace=changes_workspace,
    )


class ToolRegistry:
    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for t in tools:
            self.add(t)

    def add(self, tool: Tool) -> None:
        if tool.name in self._tools:
            raise ValueError(f"tool '{tool.name}' is registered twice")
        self._tools[tool.name] = tool

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    @property
    def toolsets(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for t in self._tools.values():
            out.setdefault(t.toolset, []).append(t.name)
        return out

    def select(self, toolsets: Iterable[str]) -> ToolRegistry:
        """A registry holding only the named toolsets (unknown names are an error that lists the known ones)."""
        wanted = list(toolsets)
        known = self.toolsets
        unknown = [t for t in wanted if t not in known]
        if unknown:
            raise GroveError(f"unknown toolset(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        return ToolRegistry(t for t in self._tools.values() if t.toolset in wanted)

    def without(self, names: Iterable[str]) -> ToolRegistry:
        """A registry holding every tool but the named ones."""
        drop = set(names)
        return ToolRegistry(t for n, t in self._tools.items() if n not in drop)

    def for_subagent(self) -> ToolRegistry:
        """The tools a child agent may be given: those flagged `subagent_ok`."""
        return ToolRegistry(t for t in self._tools.values() if t.subagent_ok)

    def schemas(self) -> list[ToolSchema]:
        return [t.schema for t in self._tools.values()]

    def names(self) -> list[str]:
        return list(self._tools)

    def __len__(self) -> int:
        return len(self._tools)

    def call(self, ctx: ToolContext, name: str, raw_arguments: str | dict[str, Any]) -> ToolResult:
        tool = self._tools.get(name)
        if tool is None:
            known = ", ".join(self._tools) or "none"
            return ToolResult(f"Error: unknown tool '{name}'. Available tools: {known}", False)
        return tool.call(ctx, raw_arguments)
