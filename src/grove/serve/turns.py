"""One API request = one turn of a grove session: open (resuming the conversation's session, or a copy of it
cut at an older response, or a new one seeded with the client's history), run, close, in a worker thread. One
turn at a time per conversation; many conversations at once. Text deltas go to a callback."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grove.agent.events import AgentEvents

if TYPE_CHECKING:
    from grove.agent.loop import TurnResult
    from grove.llm.types import Message, Model
    from grove.serve.state import ServeState
    from grove.store.sessions import SessionStore


@dataclass
class TurnOptions:
    """How the server's sessions run: tools, workspace, who answers approvals, and a model for tests."""

    toolsets: list[str] | None = None  # None = settings.toolsets
    allow_terminal: bool = False
    workspace_root: Path | None = (
        None  # each key works in <root>/keys/<name>; None = $GROVE_HOME/workspaces/serve
    )
    ask_dashboard: bool = False  # approvals wait for the dashboard; off = nobody asked, denied at once
    model_override: Model | None = None  # a ready model object (tests, benchmarks) instead of the spec


@dataclass
class TurnRequest:
    """What a client asks of one turn."""

    text: str  # the user's message of this turn
    history: list[Message] = dataclasses.field(
        default_factory=list
    )  # seeds a new session; system stays system
    system: list[str] = dataclasses.field(default_factory=list)  # the client's system texts, added once
    max_tokens: int | None = None
    temperature: float | None = None
    seed: int | None = None
    upto: int | None = None  # continue the session as it was at this message id (an older response: a copy)
    client_tools: list[dict[str, Any]] = dataclasses.field(default_factory=list)  # the client's own tools
    tool_choice: str | None = None  # None/auto, "none", "required" or a tool's name
    tool_results: dict[str, str] | None = None  # outputs of the client-tool calls the last turn ended on
    images: list[dict[str, Any]] = dataclasses.field(
        default_factory=list
    )  # image parts of this turn's message


@dataclass
class TurnOutcome:
    result: TurnResult
    session_id: str
    model: str
    streamed: str = ""  # the text the client was sent as deltas (it holds this, not `result.answer`)
    last_message_id: int = 0


class ClientGone(KeyboardInterrupt):
    """Raised in the model's text callback once the turn should stop: a generation nobody will read ends now.
    A KeyboardInterrupt, so no provider's `except Exception` turns it into a model error (and a retry); the
    agent ends the turn as interrupted, its work kept."""


class DeltaSink(AgentEvents):
    """Passes streamed text on; a model call that ended in tool calls is followed by a blank line, so the text
    of the next call does not run into it."""

    def __init__(self, on_text: Callable[[str], None] | None, stop: threading.Event | None = None) -> None:
        self.forward = on_text
        self.streaming = on_text is not None
        self.sent = False
        self.text = ""
        self._since_break = False
        self.stop = stop or threading.Event()

    def stop_requested(self) -> bool:
        return self.stop.is_set()

    def on_text(self, delta: str) -> None:
        if (
            self.stop.is_set()
        ):  # the client hung up or the server stops: end the model call, not just the turn
            raise ClientGone
        if self.forward and delta:
            self.forward(delta)
            self.text += delta
            self.sent = True
            self._since_break = True

    def on_model_done(self, has_tool_calls: bool) -> None:
        if self.forward and has_tool_calls and self._since_break:
            self.forward("\n\n")
            self.text += "\n\n"
            self._since_break = False


class TurnRunner:
    def __init__(self, state: ServeState, options: TurnOptions) -> None:
        from grove.runtime.assemble import open_store
        from grove.serve.conversations import Conversations

        self.state = state
        self.options = options
        self.store: SessionStore = open_store(state.settings)
        self.conversations = Conversations(self.store.db)
        self._locks: dict[tuple[str, str], tuple[asyncio.Lock, int]] = {}

    async def run(
        self,
        key_name: str,
        conversation: str,
        request: TurnRequest,
        model: str | None,
        on_text: Callable[[str], None] | None,
        stop: threading.Event | None = None,
    ) -> TurnOutcome:
        """Waits for the conversation's previous turn, then runs this one in a worker thread; setting `stop`
        (the client went away) ends the turn at its next step, keeping what it did."""
        ident = (key_name, conversation)
        lock, users = self._locks.get(ident, (asyncio.Lock(), 0))
        self._locks[ident] = (lock, users + 1)
        try:
            async with lock:
                return await asyncio.to_thread(
                    self._turn, key_name, conversation, request, model, on_text, stop
                )
        finally:
            lock, users = self._locks[ident]
            if users <= 1:
                del self._locks[ident]  # the table holds only conversations with a turn running or waiting
            else:
                self._locks[ident] = (lock, users - 1)

    def _turn(
        self,
        key_name: str,
        conversation: str,
        request: TurnRequest,
        model: str | None,
        on_text: Callable[[str], None] | None,
        stop: threading.Event | None = None,
    ) -> TurnOutcome:
        from grove.gateway.workspace import chat_folder
        from grove.runtime import Profile, Session

        sink = DeltaSink(on_text, stop)
        root = str(self.options.workspace_root) if self.options.workspace_root else None
        label = f"api {key_name}: {conversation}"
        profile = Profile(
            source="api",
            model=self.options.model_override or model,  # a ready model (tests, benchmarks), else the spec
            toolsets=self.options.toolsets,
            allow_terminal=self.options.allow_terminal,
            # one client cannot read another's files
            workspace=chat_folder(self.state.settings.home, root, "keys", key_name, entrance="serve"),
            approver=self.state.approvals.approver(label, key_name) if self.options.ask_dashboard else None,
            review="thread",
            title=f"api {key_name}: {conversation}"[:80],
            spend_scopes=(f"key:{key_name}",),  # the key's own caps (spend.keys) besides the api's and all's
        )
        previous = self.conversations.get(key_name, conversation)
        if previous and request.upto is not None and self._last_id(previous) > request.upto:
            previous = self._copy(previous, request.upto, label)  # later turns of that session stay out
        session, resumed = Session.open_or_resume(self.state.settings, profile, previous, sink, self.store)
        if not resumed:
            for message in request.history:
                session.agent.append(message)
        else:
            known = {str(m.get("content")) for m in session.agent.messages if m["role"] == "system"}
            for text in request.system:
                if text not in known:
                    session.agent.append({"role": "system", "content": text})
        asked = {k: getattr(request, k) for k in ("max_tokens", "temperature", "seed", "tool_choice")}
        session.agent.settings = dataclasses.replace(
            session.agent.settings, **{k: v for k, v in asked.items() if v is not None}
        )
        try:
            from grove.serve.client_tools import check_collisions

            check_collisions(request.client_tools, session.agent.tools.names())
            session.agent.client_tools = request.client_tools
            self.conversations.set(key_name, conversation, session.id)
            stray = sorted(set(request.tool_results or {}) - set(session.agent.pending_calls()))
            if stray:
                from grove.serve.errors import ApiError

                raise ApiError(
                    400,
                    f"tool results for calls this conversation is not waiting on: {', '.join(stray)} (send a "
                    "tool message for each tool call of grove's last answer, in the same conversation)",
                    "invalid_request_error",
                    "invalid_tool_results",
                    "messages",
                )
            result = session.run_turn(request.text, request.images or None, tool_results=request.tool_results)
            if on_text is not None and not sink.sent and result.answer:
                on_text(result.answer)  # a provider that does not stream: the whole answer at once
                sink.text = result.answer
            return TurnOutcome(
                result, session.id, session.agent.model.name, sink.text, self._last_id(session.id)
            )
        finally:
            session.close()

    def _last_id(self, session_id: str) -> int:
        with self.store.db.lock:
            row = self.store.db.conn.execute(
                "SELECT max(id) FROM messages WHERE session_id = ?", (session_id,)
            ).fetchone()
        return int(row[0] or 0)

    def _copy(self, session_id: str, upto: int, title: str) -> str:
        """A new session holding `session_id`'s messages up to `upto` (a client continuing an older response)."""
        info = self.store.get_session(session_id)
        copy = self.store.create_session(
            info.model,
            title=title[:80],
            parent_id=session_id,
            source="api",
            system_prompt=self.store.system_prompt(session_id),
        )
        for message_id, message in self.store.messages_with_ids(session_id):
            if message_id <= upto:
                self.store.add_message(copy, message)
        return copy

    def has_history(self, key_name: str, conversation: str) -> bool:
        return self.conversations.get(key_name, conversation) is not None
