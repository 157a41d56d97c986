"""A server's `elicitation/create`: asked of the user when the calling session is attended on a terminal (the
one front end that takes typed answers), declined unattended or elsewhere. Form mode asks each field of the
server's schema (Enter keeps its default, so an accepted form carries every default: SEP-1034); URL mode shows the
address and asks whether the user finished there; nothing is opened for the user."""

from __future__ import annotations

import asyncio
import select
import threading
import unicodedata
from collections.abc import Callable
from typing import Any, TextIO

from grove.config.mcp import McpServerConfig
from grove.mcp_client.caller import Caller

_TERMINAL = threading.Lock()  # one question on the terminal at a time
Read = Callable[[str], "str | None"]


class _Stop(Exception):
    def __init__(self, action: str) -> None:
        self.action = action


def shown(text: str) -> str:
    """Server text as it may reach the terminal: no control or format characters (escape sequences)."""
    return "".join(c for c in text if c in "\n\t" or unicodedata.category(c) not in ("Cc", "Cf"))


def _options(prop: dict[str, Any]) -> list[tuple[str, str]] | None:
    """(value, label) pairs of a single-select property, or of a multi-select's items; None if free."""
    items = prop.get("items") if prop.get("type") == "array" else prop
    if not isinstance(items, dict):
        return None
    if isinstance(items.get("enum"), list):
        names = prop.get("enumNames") or items.get("enumNames") or []
        return [(str(v), str(names[i]) if i < len(names) else str(v)) for i, v in enumerate(items["enum"])]
    for key in ("oneOf", "anyOf"):
        if isinstance(items.get(key), list):
            return [
                (str(o.get("const")), str(o.get("title") or o.get("const")))
                for o in items[key]
                if "const" in o
            ]
    return None


def parse_value(prop: dict[str, Any], text: str) -> Any:
    """The typed value of one answer; ValueError says what was expected."""
    kind = prop.get("type", "string")
    options = _options(prop)
    if kind == "array":
        picked = [p.strip() for p in text.split(",") if p.strip()]
        return [_pick(options, p) if options else p for p in picked]
    if options:
        return _pick(options, text)
    if kind == "boolean":
        low = text.lower()
        if low in ("y", "yes", "true", "1"):
            return True
        if low in ("n", "no", "false", "0"):
            return False
        raise ValueError("answer yes or no")
    if kind in ("integer", "number"):
        try:
            value: float = int(text) if kind == "integer" else float(text)
        except ValueError:
            raise ValueError(f"a {'whole ' if kind == 'integer' else ''}number, please") from None
        if ("minimum" in prop and value < prop["minimum"]) or ("maximum" in prop and value > prop["maximum"]):
            raise ValueError(f"between {prop.get('minimum', '…')} and {prop.get('maximum', '…')}")
        return value
    if len(text) < prop.get("minLength", 0) or len(text) > prop.get("maxLength", len(text)):
        raise ValueError(f"{prop.get('minLength', 0)} to {prop.get('maxLength', '…')} characters")
    return text


def _pick(options: list[tuple[str, str]], text: str) -> str:
    for i, (value, label) in enumerate(options, 1):
        if text in (value, label, str(i)):
            return value
    raise ValueError("one of: " + ", ".join(f"{i} {label}" for i, (_v, label) in enumerate(options, 1)))


def ask_form(
    read: Read, say: Callable[[str], None], server: str, message: str, schema: dict[str, Any]
) -> Any:
    """(action, content) from the user's answers to a form, through `read(prompt) -> line | None (no answer)`."""
    props: dict[str, Any] = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    say(
        f"\nthe MCP server '{server}' asks you:\n    {shown(message)}\n"
        "(Enter keeps the [default]; '-' declines to answer, '!' cancels; what you type goes to that server)\n"
    )
    content: dict[str, Any] = {}
    try:
        for name, prop in props.items():
            content.update(
                _ask_field(read, say, name, prop if isinstance(prop, dict) else {}, name in required)
            )
    except _Stop as stop:
        return stop.action, None
    return "accept", content


def _ask_field(
    read: Read, say: Callable[[str], None], name: str, prop: dict[str, Any], required: bool
) -> Any:
    options = _options(prop)
    hint = prop.get("description") or prop.get("title") or ""
    choices = f" {'; '.join(f'{i} {label}' for i, (_v, label) in enumerate(options, 1))}" if options else ""
    default = prop.get("default")
    shown_default = f" [{','.join(map(str, default)) if isinstance(default, list) else default}]"
    prompt = (
        f"  {shown(name)}{' (' + shown(str(hint)) + ')' if hint else ''}{shown(choices)}"
        f"{shown_default if default is not None else ''}{' *' if required else ''}: "
    )
    for _ in range(3):
        line = read(prompt)
        if line is None:
            raise _Stop("cancel")
        text = line.strip()
        if text in ("-", "!"):
            raise _Stop("decline" if text == "-" else "cancel")
        if not text:
            if default is not None:
                return {name: default}
            if not required:
                return {}
            say("    an answer is needed ('-' declines)\n")
            continue
        try:
            return {name: parse_value(prop, text)}
        except ValueError as e:
            say(f"    {e}\n")
    raise _Stop("cancel")


def terminal_reader(fin: TextIO, fout: TextIO, timeout: float) -> tuple[Read, Callable[[str], None]]:
    def say(text: str) -> None:
        fout.write(text)
        fout.flush()

    def read(prompt: str) -> str | None:
        say(prompt)
        ready, _, _ = select.select([fin], [], [], timeout)
        if not ready:
            say("\n(no answer: cancelled)\n")
            return None
        line = fin.readline()
        return line if line else None

    return read, say


def _ask_on_terminal(terminal: tuple[TextIO, TextIO], timeout: float, server: str, params: Any) -> Any:
    read, say = terminal_reader(*terminal, timeout)
    with _TERMINAL:
        if getattr(params, "mode", "form") == "url":
            say(
                f"\nthe MCP server '{server}' asks you to open, in your browser:\n    {shown(params.url)}\n"
                f"    ({shown(params.message)})\n"
            )
            answer = read("done there? [y]es / [n]o: ")
            return ("accept" if (answer or "").strip().lower() in ("y", "yes") else "decline"), None
        return ask_form(read, say, server, params.message, params.requested_schema)


async def answer_elicitation(server: McpServerConfig, caller: Caller | None, params: Any) -> Any:
    """The SDK's elicitation callback body: the user's `ElicitResult`, declined when nobody can answer."""
    from mcp import types

    policy = caller.ctx.policy if caller is not None else None
    terminal = getattr(policy.approver, "terminal", None) if policy is not None else None
    if caller is None or policy is None or policy.unattended or policy.approver is None or terminal is None:
        if caller is not None:
            why = (
                "the session is unattended"
                if policy is None or policy.unattended or policy.approver is None
                else "this front end takes no typed answers"
            )
            caller.ctx.notify(f"the MCP server '{server.name}' asked you a question; declined: {why}")
        return types.ElicitResult(action="decline")
    action, content = await asyncio.to_thread(
        _ask_on_terminal, terminal, policy.approval_timeout, server.name, params
    )
    return types.ElicitResult(action=action, content=content if action == "accept" else None)
