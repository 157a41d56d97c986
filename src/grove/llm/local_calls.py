"""The shapes a local model writes a tool call in — tagged (`<tool_call>…</tool_call>`, spelled as the chat
template spells it), a bare call object, or a ```json fence — rendered byte for byte and parsed back."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass

from grove.llm.types import ToolCall

TAGGED, BARE, FENCED = "tagged", "bare", "fenced"
SHAPES = (TAGGED, BARE, FENCED)
FENCE_OPEN = "```json\n"
FENCE_CLOSE = "\n```"
# The call object's head is written by the grammar, byte for byte, so a call rendered back into history from its
# parsed parts is the very text the model produced (and the KV cache keeps matching on the next turn).
CALL_HEAD = '{{"name": "{name}", "arguments": '


@dataclass(frozen=True)
class CallFormat:
    """How the tagged shape is spelled: grove's compact default, or the chat template's own."""

    open: str = "<tool_call>"
    close: str = "</tool_call>"


def call_format(template: str) -> CallFormat:
    """The template's own tagged spelling when it renders tool calls (Qwen2.5: a newline inside each tag)."""
    if "<tool_call>\\n" in template or "<tool_call>\n" in template:
        return CallFormat("<tool_call>\n", "\n</tool_call>")
    return CallFormat()


@dataclass(frozen=True)
class ParsedCall:
    call: ToolCall
    shape: str


def render_call(name: str, arguments: str, shape: str = TAGGED, fmt: CallFormat = CallFormat()) -> str:
    """The exact text the grammar lets the model write for a call in `shape` (used to put calls back in history)."""
    body = CALL_HEAD.format(name=name) + arguments + "}"
    if shape == BARE:
        return body
    if shape == FENCED:
        return FENCE_OPEN + body + FENCE_CLOSE
    return fmt.open + body + fmt.close


_OBJECT_RE = re.compile(
    r'^\{\s*"name"\s*:\s*"(?P<name>[^"]+)"\s*,\s*"arguments"\s*:\s*(?P<args>.*)\}$', re.DOTALL
)
_TAGGED_RE = re.compile(r"^<tool_call>\s*(?P<body>.*?)\s*</tool_call>$", re.DOTALL)
_FENCED_RE = re.compile(r"^```(?:json)?[ \t]*\n?(?P<body>.*?)\s*```$", re.DOTALL)


def parse_shaped(text: str, call_id: str = "call_0") -> ParsedCall | None:
    """The call in a reply and the shape it came in, or None if the reply is not one complete call."""
    s = text.strip()
    if m := _TAGGED_RE.match(s):
        body, shape = m.group("body"), TAGGED
    elif m := _FENCED_RE.match(s):
        body, shape = m.group("body"), FENCED
    elif s.startswith("{"):
        body, shape = s, BARE
    else:
        return None
    m = _OBJECT_RE.match(body.strip())
    if not m:
        return None
    # Raw, whitespace and all: rendered back into history, it must be the very bytes the model wrote.
    args = m.group("args")
    try:
        if not isinstance(json.loads(args), dict):
            return None
    except json.JSONDecodeError:
        # The grammar (llama-cpp-python's JSON strings) lets a string hold a raw line break, as coder models write
        # code; forbidding it made Qwen drop the characters before it. Taken, and re-serialised for the tools
        # (history still shows the model's own bytes: the caller keeps the reply by these arguments).
        try:
            loose = json.loads(args, strict=False)
        except json.JSONDecodeError:
            return None
        if not isinstance(loose, dict):
            return None
        args = json.dumps(loose, ensure_ascii=False)
    return ParsedCall(ToolCall(id=call_id, name=m.group("name"), arguments=args), shape)


_EMBEDDED_RE = re.compile(r'\{\s*"name"\s*:')


def find_embedded(text: str, names: set[str], call_id: str = "call_0") -> ToolCall | None:
    """The first call of an offered tool written inside a prose reply ("To do that: ```json {...}```").

    Models also explain before they call; the grammar lets text say anything once it started as text, so such
    a call is taken from the text (its arguments re-serialised; the tool registry validates them).
    """
    decoder = json.JSONDecoder(strict=False)  # prose is unconstrained: a raw line break inside a string
    for m in _EMBEDDED_RE.finditer(text):
        try:
            obj, _ = decoder.raw_decode(text, m.start())
        except json.JSONDecodeError:
            continue
        args = obj.get("arguments") if isinstance(obj, dict) else None
        if obj.get("name") in names and isinstance(args, dict):
            return ToolCall(id=call_id, name=obj["name"], arguments=json.dumps(args, ensure_ascii=False))
    return None


def find_python_call(text: str, params: dict[str, list[str]], call_id: str = "call_0") -> ToolCall | None:
    """A reply that is only a Python-style call of an offered tool (`todo(["plan", "build"])`, maybe in
    backticks): coder models write calls as code. Positional arguments take the tool's parameters in order;
    every argument must be a literal. `params` maps each offered tool to its parameter names."""
    s = text.strip()
    if s.startswith("```"):
        s = s.split("\n", 1)[1] if "\n" in s else ""
        s = s.rsplit("```", 1)[0]
    s = s.strip().strip("`").strip().rstrip(";")
    try:
        node = ast.parse(s, mode="eval").body
    except (SyntaxError, ValueError):
        return None
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in params):
        return None
    names = params[node.func.id]
    if len(node.args) > len(names) or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    try:
        args = {names[i]: ast.literal_eval(a) for i, a in enumerate(node.args)}
        for kw in node.keywords:
            if kw.arg is None or kw.arg not in names or kw.arg in args:
                return None
            args[kw.arg] = ast.literal_eval(kw.value)
        arguments = json.dumps(args, ensure_ascii=False)
    except (ValueError, TypeError, SyntaxError, RecursionError):  # not a literal, or not JSON (a set, bytes)
        return None
    return ToolCall(id=call_id, name=node.func.id, arguments=arguments)


def parse_call(text: str, call_id: str = "call_0") -> ToolCall | None:
    parsed = parse_shaped(text, call_id)
    return parsed.call if parsed else None


def looks_like_call(text: str) -> bool:
    """Whether a reply starts like call markup (a call cut off by max_tokens is no answer to show)."""
    return text.lstrip()[:1] in ("<", "{", "`")
