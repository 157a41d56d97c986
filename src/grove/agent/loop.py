"""The turn loop (loop 1): user text -> model -> tools -> ... -> answer, every step committed to the store.

Read top to bottom: everything else (model routing, tools, storage) is called from here, nothing is hidden here.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from grove.agent.events import AgentEvents
from grove.context.compressor import Compressor
from grove.llm.errors import ErrorKind, ModelError
from grove.llm.types import Completion, Message, Model, ModelSettings, ToolCall, ToolSchema, Usage
from grove.security.secrets.boundary import redact_message
from grove.security.secrets.redact import redact
from grove.store.sessions import SessionStore
from grove.tools.context import ToolContext
from grove.tools.registry import ToolRegistry, ToolResult

GRACE_PROMPT = (
    "[grove] The tool-call budget for this turn is used up. Do not call tools. Answer now with what you have: "
    "what is done, what is not, and what the user could do next."
)
INTERRUPTED = "[interrupted by the user before this tool finished]"


@dataclass
class ToolCallRecord:
    name: str
    arguments: Any
    ok: bool
    content: str = field(default="", repr=False)  # the result as the model saw it: evidence for grove.claims

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": self.arguments, "ok": self.ok}


@dataclass
class TurnResult:
    answer: str
    model_calls: int = 0
    usage: Usage = field(default_factory=Usage)
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    interrupted: bool = False
    budget_exhausted: bool = False
    claims: list[Any] = field(default_factory=list)  # grove.claims verdicts on the answer, set by the session
    # calls of the client's own tools (an API client declared them): the turn ends there, the client runs them
    client_calls: list[ToolCall] = field(default_factory=list)


class Agent:
    """One session's agent. `messages` is the live conversation, system prompt first.

    Its public surface is what every loop drives it with: `run_turn` (loop 1), and `call_model` + `append` for
    loops that shape their own requests (plan-then-act), so those get compression, overflow handling, cost
    accounting and redaction too. Everything that enters the conversation passes `append`, the one place where
    secrets are redacted before they are stored or sent.
    """

    def __init__(
        self,
        model: Model,
        tools: ToolRegistry,
        ctx: ToolContext,
        store: SessionStore,
        session_id: str,
        messages: list[Message],
        *,
        settings: ModelSettings | None = None,
        max_iterations: int = 50,
        events: AgentEvents | None = None,
        compressor: Compressor | None = None,
    ) -> None:
        self.model = model
        self.tools = tools
        self.ctx = ctx
        self.store = store
        self.session_id = session_id
        self.messages = messages
        self.settings = settings or ModelSettings()
        self.max_iterations = max_iterations
        self.events = events or AgentEvents()
        self.compressor = compressor or Compressor(model, store, session_id, on_notice=self.events.on_notice)
        self._pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="grove-tool")
        # tools an API client declared for this turn: offered to the model, run by the client, never by grove
        self.client_tools: list[ToolSchema] = []
        # what a tool script (tools/tool_script.py) may call: this agent's tools, through their own gates
        ctx.registry = tools
        # whom an MCP server's sampling request asks (grove.mcp_client.sampling): this model, under its spend caps
        ctx.model = model

    def run_turn(
        self,
        text: str,
        images: list[dict[str, Any]] | None = None,
        *,
        tool_results: dict[str, str] | None = None,
    ) -> TurnResult:
        """One user turn; `images` are OpenAI-format image parts (grove.llm.images) sent after the text.
        `tool_results` (call id -> output) answer the client-tool calls the previous turn ended on; the turn then
        goes on from them, with `text` as a new user message only when it is not empty."""
        from grove.llm.images import user_content

        result = TurnResult(answer="")
        self._answer_pending(tool_results or {})  # a new message instead of results: the client ran none
        if text or tool_results is None:
            if not any(m["role"] == "user" for m in self.messages):
                self.store.set_title(self.session_id, redact(" ".join(text.split()))[:80])
            self.append({"role": "user", "content": user_content(text, images)})
        if self.ctx.checkpoints is not None:
            self.ctx.checkpoints.start_turn(text)
        try:
            for _ in range(self.max_iterations):
                if self.events.stop_requested():
                    raise StopRequested
                completion = self.call_model(result)
                if not completion.tool_calls:
                    result.answer = completion.text
                    return result
                theirs = {t["function"]["name"] for t in self.client_tools}
                own = [c for c in completion.tool_calls if c.name not in theirs]
                if own:
                    self._run_tools(own, result)
                if len(own) < len(completion.tool_calls):  # the client runs the rest and sends their results
                    result.client_calls = [c for c in completion.tool_calls if c.name in theirs]
                    result.answer = completion.text
                    return result
            result.budget_exhausted = True
            self.events.on_notice(
                f"iteration budget ({self.max_iterations}) used up; asking for a final answer"
            )
            self.append({"role": "user", "content": GRACE_PROMPT})
            result.answer = self.call_model(result, schemas=[]).text
            return result
        except (KeyboardInterrupt, StopRequested):
            result.interrupted = True
            return result
        finally:
            if self.ctx.checkpoints is not None:
                self.ctx.checkpoints.end_turn()  # what the turn left: `grove undo` compares against it

    def call_model(
        self,
        result: TurnResult | None = None,
        *,
        schemas: list[ToolSchema] | None = None,
        settings: ModelSettings | None = None,
    ) -> Completion:
        """One model call on the live conversation: compressed first when due, compressed and retried once on a
        context overflow, its usage and cost counted, its reply appended. `schemas` None = the session's tools;
        [] = a text-only call (any tool calls the model tries are dropped)."""
        schemas = [*self.tools.schemas(), *self.client_tools] if schemas is None else schemas
        settings = settings or self.settings
        streamed = self.events.on_text if self.events.streaming else None
        self.messages = self.compressor.before_call(self.messages, schemas)
        try:
            completion = self.model.complete(self.messages, schemas, settings, streamed)
        except ModelError as e:
            if e.kind is not ErrorKind.CONTEXT_OVERFLOW:
                raise
            self.compress("context_overflow")  # then one retry; a second overflow goes to the caller
            completion = self.model.complete(self.messages, schemas, settings, streamed)
        self.compressor.observe(completion.usage)
        if not schemas:
            completion.tool_calls = []  # a text-only answer must be text, whatever the model tried
        if result is not None:
            result.model_calls += 1
            result.usage = result.usage + completion.usage
        self.store.add_usage(self.session_id, completion.usage, _cost(completion))
        self.append(completion.to_message(), completion.usage)
        completion.text = str(self.messages[-1].get("content") or "")  # the answer as redacted for the record
        self.events.on_model_done(bool(completion.tool_calls))
        return completion

    def _run_tools(self, calls: list[ToolCall], result: TurnResult) -> None:
        """Run read-only calls concurrently and mutating ones alone, in order; commit each result as it lands.

        On Ctrl-C, every call still unanswered gets an 'interrupted' result so the conversation stays valid.
        """
        for call in calls:
            self.events.on_tool_start(call)
        done = 0
        try:
            for batch in self._batches(calls):
                if done and self.events.stop_requested():
                    raise StopRequested
                if self.ctx.checkpoints is not None and any(self._changes_workspace(c) for c in batch):
                    self.ctx.checkpoints.before_change()  # once per turn: its changes can be undone
                futures = [self._pool.submit(self.tools.call, self.ctx, c.name, c.arguments) for c in batch]
                for call, future in zip(batch, futures, strict=True):
                    self._record_tool(call, future.result(), result)
                    done += 1
        finally:
            for call in calls[done:]:
                self._record_tool(call, ToolResult(INTERRUPTED, ok=False), result)
            self._append_viewed_images()

    def _append_viewed_images(self) -> None:
        """Images a tool opened (view_image) go to the model as a user message after the results: tool
        messages carry only text in the chat-completions format."""
        from grove.tools.vision import NOTE, take_pending

        images = take_pending(self.ctx)
        if images:
            self.append({"role": "user", "content": [{"type": "text", "text": NOTE}, *images]})

    def _changes_workspace(self, call: ToolCall) -> bool:
        tool = self.tools.get(call.name)
        return tool is not None and tool.may_change_workspace

    def _batches(self, calls: list[ToolCall]) -> list[list[ToolCall]]:
        """Consecutive read-only calls share a batch; a mutating call (write, shell) runs alone, in call order."""
        batches: list[list[ToolCall]] = []
        open_batch = False  # whether the last batch may take more read-only calls
        for call in calls:
            tool = self.tools.get(call.name)
            read_only = tool is not None and not tool.mutating
            if read_only and open_batch:
                batches[-1].append(call)
            else:
                batches.append([call])
            open_batch = read_only
        return batches

    def _record_tool(self, call: ToolCall, outcome: ToolResult, result: TurnResult) -> None:
        tool = self.tools.get(call.name)
        if tool is not None:  # the one place tool output enters the conversation: mark what is untrusted
            from grove.security.approval.taint import result_source

            args = _parse_args(call.arguments)
            source = result_source(call.name, tool.toolset, tool.untrusted_output, args, self.ctx.workspace)
            if source is not None:
                self.ctx.policy.taint.mark(source)
        self.append({"role": "tool", "tool_call_id": call.id, "name": call.name, "content": outcome.content})
        content = self.messages[-1]["content"]
        result.tool_calls.append(ToolCallRecord(call.name, _parse_args(call.arguments), outcome.ok, content))
        self.events.on_tool_end(call, ToolResult(content, outcome.ok))

    def pending_calls(self) -> list[str]:
        """Ids of the tool calls of the last assistant message that have no result yet (client tools)."""
        for i in range(len(self.messages) - 1, -1, -1):
            m = self.messages[i]
            if m["role"] == "assistant":
                answered = {x.get("tool_call_id") for x in self.messages[i + 1 :] if x["role"] == "tool"}
                return [c["id"] for c in m.get("tool_calls") or [] if c["id"] not in answered]
        return []

    def _answer_pending(self, results: dict[str, str]) -> None:
        """Every pending call gets its result (or a note that the client sent none), so the conversation stays
        one any provider accepts; results for calls that are not pending are an error (ValueError)."""
        pending = self.pending_calls()
        stray = sorted(set(results) - set(pending))
        if stray:
            raise ValueError(
                f"tool results for calls this conversation is not waiting on: {', '.join(stray)}"
            )
        names = {
            c["id"]: c["function"]["name"]
            for m in self.messages
            if m["role"] == "assistant"
            for c in m.get("tool_calls") or []
        }
        for call_id in pending:
            name = names.get(call_id, "")
            if call_id not in results:
                self.append({"role": "tool", "tool_call_id": call_id, "name": name, "content": NO_RESULT})
                continue
            self.append({"role": "tool", "tool_call_id": call_id, "name": name, "content": results[call_id]})
            self.ctx.policy.taint.mark(f"output of the client's {name or 'tool'}")  # outside content

    def append(self, message: Message, usage: Usage | None = None) -> None:
        """Redact, commit, then keep: what is in memory is always also in state.db, and neither holds a secret
        that a tool read (a .env, a log), the user pasted or the model repeated."""
        message = redact_message(message)
        self.store.add_message(self.session_id, message, usage)
        self.messages.append(message)

    def compress(self, reason: str = "manual") -> None:
        """Shrink the live context now (also `/compress`); every message stays in state.db."""
        self.messages = self.compressor.compress(self.messages, reason)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        if self.ctx.checkpoints is not None:
            self.ctx.checkpoints.end_turn()  # a loop that drove tools without run_turn leaves it open
        # what tools opened for this session (a browser) ends with it
        for value in list(self.ctx.state.values()):
            closer = getattr(value, "close_with_session", None)
            if callable(closer):
                closer()


NO_RESULT = (
    "[grove] No result came back for this call (the process stopped before it finished, or the client that was to "
    "run it sent none); its effect is unknown. Check the current state before repeating it."
)


class StopRequested(Exception):
    """The watcher asked the turn to end (AgentEvents.stop_requested): handled like Ctrl-C."""


def _parse_args(raw: str) -> Any:
    try:
        return json.loads(raw)
    except (json.JSONDecodeError, TypeError):
        return raw


def _cost(completion: Completion) -> float:
    try:
        from grove.llm.pricing import cost_usd
    except ImportError:  # pricing table not available: cost unknown, not fatal
        return 0.0
    return cost_usd(completion.model, completion.usage)
