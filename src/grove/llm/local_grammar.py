"""Tool calling for the small local model: a compact tool list for the prompt, a GBNF grammar that makes every
reply either plain text or one well-formed `<tool_call>{...}</tool_call>`, and the parser for that markup.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from grove.llm.types import ToolCall, ToolSchema

OPEN = "<tool_call>"
CLOSE = "</tool_call>"
_DESCRIPTION_CHARS = 120
_TEXT_RULE = "[^< \\t\\r\\n] .*"  # anything that does not start like a call (or with blank space)
TEXT_GRAMMAR = f"root ::= {_TEXT_RULE}\n"
# The wrapper is written by the grammar, byte for byte, so a call rendered back into history from its parsed
# parts is the same text the model produced (and the KV cache keeps matching on the next turn).
_CALL_HEAD = '{{"name": "{name}", "arguments": '


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    parameters: dict[str, Any]


def tool_specs(tools: list[ToolSchema]) -> list[ToolSpec]:
    specs = []
    for tool in tools:
        fn = tool.get("function", tool)
        params = fn.get("parameters") or {"type": "object", "properties": {}}
        specs.append(ToolSpec(name=fn["name"], description=fn.get("description") or "", parameters=params))
    return specs


def render_call(name: str, arguments: str) -> str:
    """The exact markup the grammar makes the model write for a call (used to put calls back into history)."""
    return OPEN + _CALL_HEAD.format(name=name) + arguments + "}" + CLOSE


def _first_line(text: str) -> str:
    line = text.strip().split("\n", 1)[0].strip()
    return line if len(line) <= _DESCRIPTION_CHARS else line[: _DESCRIPTION_CHARS - 3].rstrip() + "..."


def _signature(spec: ToolSpec) -> str:
    props = spec.parameters.get("properties") or {}
    required = set(spec.parameters.get("required") or [])
    return ", ".join(name if name in required else f"{name}?" for name in props)


def _example_value(schema: dict[str, Any]) -> Any:
    kind = schema.get("type")
    if schema.get("enum"):
        return schema["enum"][0]
    if kind in ("integer", "number"):
        return 1
    if kind == "boolean":
        return True
    if kind == "array":
        return []
    if kind == "object":
        return {}
    return "..."


def _example(spec: ToolSpec) -> str:
    props = spec.parameters.get("properties") or {}
    required = [k for k in spec.parameters.get("required") or [] if k in props]
    args = {k: _example_value(props[k]) for k in required}
    return render_call(spec.name, json.dumps(args, ensure_ascii=False))


def describe_tools(specs: list[ToolSpec]) -> str:
    """A few lines for the system prompt: names, argument names (? = optional), one-line descriptions."""
    lines = ["# Tools", "You can call one of these tools:"]
    lines += [f"- {s.name}({_signature(s)}): {_first_line(s.description)}" for s in specs]
    lines += [
        "To call a tool, reply with only the call, for example:",
        _example(specs[0]),
        "Otherwise, answer in plain text.",
    ]
    return "\n".join(lines)


def _literal(text: str) -> str:
    return json.dumps(text)  # a JSON string literal is also a valid GBNF literal for these characters


def build_grammar(specs: list[ToolSpec], allow_text: bool = True, typed_args: bool = True) -> str:
    """GBNF: `root ::= text | <tool_call>call</tool_call>`, with each tool's arguments shaped by its schema.

    Text may not start with `<` or whitespace, so the first character commits the model to one branch (which
    is also what lets the caller stream text without ever streaming call markup). Without `allow_text`, the
    reply must be a call (tool_choice "required" or a tool name). Without `typed_args`, arguments are any
    JSON object (the fallback when a schema converts to a grammar llama.cpp rejects).
    """
    from llama_cpp.llama_grammar import SchemaConverter

    converter = SchemaConverter(prop_order={}, allow_fetch=False, dotall=False, raw_pattern=False)
    alternatives = []
    for i, spec in enumerate(specs):
        args_rule = (
            _arguments_rule(converter, spec, i) if typed_args else converter.visit({"type": "object"}, "args")
        )
        head = _literal(_CALL_HEAD.format(name=spec.name))
        alternatives.append(f'{head} {args_rule} "}}"')
    rules = [
        f"root ::= {'text | ' if allow_text else ''}{_literal(OPEN)} call {_literal(CLOSE)}",
        f"text ::= {_TEXT_RULE}",
        "call ::= " + " | ".join(alternatives),
        converter.format_grammar(),
    ]
    return "\n".join(rules) + "\n"


def _arguments_rule(converter: Any, spec: ToolSpec, index: int) -> str:
    # Rule names must not clash with root/text/call or between tools; the index keeps them unique.
    name = f"tool{index}-args"
    try:
        schema = converter.resolve_refs(json.loads(json.dumps(spec.parameters)), f"tool{index}")
        return converter.visit(schema, name)
    except (AssertionError, KeyError, ValueError, TypeError, RecursionError):
        # A schema feature the converter does not know: any JSON object still parses, the registry validates.
        return converter.visit({"type": "object"}, name)


_CALL_RE = re.compile(
    r'^\s*<tool_call>\s*\{\s*"name"\s*:\s*"(?P<name>[^"]+)"\s*,\s*"arguments"\s*:\s*(?P<args>.*)\}\s*</tool_call>\s*$',
    re.DOTALL,
)


def parse_call(text: str, call_id: str = "call_0") -> ToolCall | None:
    """The call in a reply, or None if the reply is not (or not a complete) tool call."""
    m = _CALL_RE.match(text)
    if not m:
        return None
    args = m.group("args").strip()
    try:
        if not isinstance(json.loads(args), dict):
            return None
    except json.JSONDecodeError:
        return None
    return ToolCall(id=call_id, name=m.group("name"), arguments=args)
