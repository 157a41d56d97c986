"""Opening a session: settings + store + model chain + tools + system prompt -> a ready Agent (new or resumed)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from grove.agent.events import AgentEvents
from grove.agent.loop import Agent
from grove.agent.prompt import build_system_prompt
from grove.config import Settings
from grove.context.settings import CompressionSettings
from grove.llm.router import RetryPolicy, Router, RouterEvent
from grove.llm.spec import build_model
from grove.llm.types import Message, Model, ModelSettings
from grove.security.policy import SafetyPolicy
from grove.store.sessions import SessionStore
from grove.tools.builtin import builtin_registry
from grove.tools.context import ToolContext
from grove.tools.schema_cache import prime_schemas


@dataclass
class SessionOptions:
    model: str | None = None  # spec; None = settings
    toolsets: list[str] | None = None  # None = settings.toolsets
    resume: str | None = None  # session id (or prefix, or "last")
    max_iterations: int | None = None
    workspace: Path | None = None
    policy: SafetyPolicy | None = None  # None = from settings and the three flags below
    allow_terminal: bool = False
    yolo: bool = False  # approvals off (the hard blocklist still holds)
    # a user at a terminal can be asked; otherwise whatever needs approval is denied at once
    interactive: bool = False
    source: str = "cli"
    long_lived: bool = False  # many calls ahead (chat): see grove.llm.spec.build_model


LOST_RESULT = (
    "[grove] The process stopped before this tool call finished; its effect is unknown. "
    "Check the current state before repeating it."
)


def unanswered_tool_results(history: list[Message]) -> list[Message]:
    """Results for tool calls a killed process never answered, so the conversation is valid again."""
    answered = {m.get("tool_call_id") for m in history if m["role"] == "tool"}
    missing: list[Message] = []
    for m in history:
        for call in m.get("tool_calls") or []:
            if call["id"] not in answered:
                name = call["function"]["name"]
                missing.append(
                    {"role": "tool", "tool_call_id": call["id"], "name": name, "content": LOST_RESULT}
                )
    return missing


def build_policy(
    settings: Settings,
    store: SessionStore,
    *,
    allow_terminal: bool = False,
    yolo: bool = False,
    interactive: bool = False,
) -> SafetyPolicy:
    """The session's safety policy from settings and flags; with no terminal to ask on, nothing is asked."""
    from grove.security.decisions import DecisionStore

    approver = None
    if interactive:
        from grove.security.prompt import tty_approver

        approver = tty_approver()
    sec = settings.security
    return SafetyPolicy(
        allow_terminal=allow_terminal or sec.allow_terminal,
        unattended=not interactive,
        approval_mode="off" if yolo else sec.approval_mode,
        sandbox=sec.sandbox,
        network=sec.network,
        approver=approver,
        decisions=DecisionStore(store.db),
        approval_timeout=sec.approval_timeout,
    )


def open_store(settings: Settings) -> SessionStore:
    return SessionStore.open(settings.db_path)


def build_router(
    settings: Settings,
    spec: str,
    events: AgentEvents,
    model: Model | None = None,
    long_lived: bool = False,
) -> Router:
    models = [model or build_model(spec, settings, long_lived=long_lived)]
    models += [build_model(s, settings, long_lived=long_lived) for s in settings.fallback_models if s != spec]

    def notice(e: RouterEvent) -> None:
        if e.action == "retry":
            events.on_notice(f"{e.error.kind.value} from {e.model}; retrying in {e.delay:.1f}s")
        elif e.action == "fallback":
            events.on_notice(f"{e.model} failed ({e.error.kind.value}); falling back to the next model")

    return Router(
        models,
        RetryPolicy(settings.retry.attempts, settings.retry.base_delay, settings.retry.max_delay),
        on_event=notice,
    )


def open_agent(
    settings: Settings,
    options: SessionOptions,
    events: AgentEvents | None = None,
    store: SessionStore | None = None,
    model: Model | None = None,
) -> Agent:
    """A new session, or the resumed one with its stored system prompt and active messages."""
    events = events or AgentEvents()
    store = store or open_store(settings)
    workspace = (options.workspace or Path.cwd()).resolve()
    policy = options.policy or build_policy(
        settings,
        store,
        allow_terminal=options.allow_terminal,
        yolo=options.yolo,
        interactive=options.interactive,
    )
    tools = builtin_registry().select(options.toolsets if options.toolsets is not None else settings.toolsets)
    prime_schemas(tools, settings.home / "cache" / "tool-schemas.json")
    if options.resume:
        session_id = store.resolve_id(options.resume)
        info = store.get_session(session_id)
        spec = options.model or info.model
        system = store.system_prompt(session_id) or build_system_prompt(settings, workspace, tools)
        history = store.messages(session_id)
        for message in unanswered_tool_results(history):
            store.add_message(session_id, message)
            history.append(message)
    else:
        spec = options.model or settings.resolved_model()
        system = build_system_prompt(settings, workspace, tools)
        history = []
    router = build_router(settings, spec, events, model, options.long_lived)
    if not options.resume:
        session_id = store.create_session(router.name, source=options.source, system_prompt=system)
    ctx = ToolContext(
        workspace=workspace, policy=policy, settings=settings, store=store, session_id=session_id
    )
    agent = Agent(
        router,
        tools,
        ctx,
        store,
        session_id,
        [{"role": "system", "content": system}, *history],
        settings=ModelSettings(
            max_tokens=settings.max_tokens, temperature=settings.temperature, timeout=settings.timeout
        ),
        max_iterations=options.max_iterations or settings.max_iterations,
        events=events,
        compression=compression_settings(settings),
    )
    if settings.compression.summary_model:
        agent.compressor.summarizer = build_model(
            settings.compression.summary_model, settings, long_lived=options.long_lived
        )
    return agent


def compression_settings(settings: Settings) -> CompressionSettings:
    c = settings.compression
    return CompressionSettings(
        threshold=c.threshold, safety=c.safety, tool_result_chars=c.tool_result_chars, enabled=c.enabled
    )
