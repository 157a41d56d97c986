"""Building an agent for a profile: store, safety policy, tools, system prompt, model chain, compressor, context.
Every agent grove runs (a user's session, a goal, a plan, a reviewer) is built here, so they all get the same."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from grove.agent.events import AgentEvents
from grove.agent.loop import NO_RESULT, Agent
from grove.agent.prompt import build_system_prompt
from grove.config import Settings
from grove.context.compressor import Compressor
from grove.context.settings import CompressionSettings
from grove.llm.profiles import ModelNeeds, needs_for
from grove.llm.router import RetryPolicy, Router, RouterEvent
from grove.llm.spec import build_model
from grove.llm.types import Message, Model, ModelSettings
from grove.runtime.profile import Profile
from grove.security.approval.policy import SafetyPolicy
from grove.security.secrets.redact import redact
from grove.store.sessions import SessionStore
from grove.tools.builtin import builtin_registry
from grove.tools.context import ToolContext
from grove.tools.registry import ToolRegistry
from grove.tools.schema_cache import prime_schemas

if TYPE_CHECKING:
    from grove.security.approval.flow import ApprovalRequest, Approver


def unanswered_tool_results(history: list[Message], own: set[str]) -> list[Message]:
    """Results for calls of the session's own tools (`own`) that a killed process never answered, so the
    conversation is valid again. Calls of a client's tools wait for the client's results (Agent.run_turn)."""
    answered = {m.get("tool_call_id") for m in history if m["role"] == "tool"}
    missing: list[Message] = []
    for m in history:
        for call in m.get("tool_calls") or []:
            if call["id"] not in answered and call["function"]["name"] in own:
                name = call["function"]["name"]
                missing.append(
                    {"role": "tool", "tool_call_id": call["id"], "name": name, "content": NO_RESULT}
                )
    return missing


def build_policy(
    settings: Settings,
    store: SessionStore,
    *,
    allow_terminal: bool = False,
    yolo: bool = False,
    approver: Approver | None = None,
    judge_model: Model | None = None,
    allow_unisolated: bool = False,
) -> SafetyPolicy:
    """The session's safety policy from settings and the entrance's flags; with no approver nothing is asked.
    Smart mode gets a judge: `security.approval_model`, else `judge_model` (the session's own model)."""
    from grove.security.approval.decisions import DecisionStore

    sec = settings.security
    judge = None
    if sec.approval_mode == "smart" and not yolo:
        spec = sec.approval_model
        model = build_model(spec, settings) if spec else judge_model
        judge = model_judge(model) if model is not None else None
    return SafetyPolicy(
        allow_terminal=allow_terminal or sec.allow_terminal,
        unattended=approver is None,
        approval_mode="off" if yolo else sec.approval_mode,
        sandbox=sec.sandbox,
        network=sec.network,
        allow_unisolated=allow_unisolated or sec.allow_unisolated,
        approver=approver,
        judge=judge,
        decisions=DecisionStore(store.db),
        approval_timeout=sec.approval_timeout,
    )


def model_judge(model: Model) -> Callable[[ApprovalRequest], str]:
    """Smart approval's judge: one short text-only call; anything but a clear approve/deny escalates."""
    from grove.security.approval.flow import judge_prompt, parse_judge_reply

    def judge(request: ApprovalRequest) -> str:
        messages: list[Message] = [{"role": "user", "content": judge_prompt(request)}]
        reply = model.complete(messages, [], ModelSettings(max_tokens=16, temperature=0.0))
        return parse_judge_reply(reply.text)

    return judge


def open_store(settings: Settings) -> SessionStore:
    return SessionStore.open(settings.db_path)


def build_router(
    settings: Settings,
    spec: str,
    events: AgentEvents,
    long_lived: bool = False,
) -> Router:
    models = [build_model(spec, settings, long_lived=long_lived)]
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


def compression_settings(settings: Settings) -> CompressionSettings:
    c = settings.compression
    return CompressionSettings(
        threshold=c.threshold, safety=c.safety, tool_result_chars=c.tool_result_chars, enabled=c.enabled
    )


def session_tools(
    settings: Settings, profile: Profile, store: SessionStore, events: AgentEvents, needs: ModelNeeds
) -> ToolRegistry:
    """The session's tools: those of its toolsets (profile.toolsets, else settings.toolsets; configured MCP servers
    join the default toolsets or an explicit "mcp"; the learned tools join "skills"), minus those the model is not
    offered (its needs: named ones, or every mutating one), plus the profile's own `tools` (kept whole: the
    reviewer's, a kanban worker's)."""
    wanted = profile.toolsets if profile.toolsets is not None else settings.toolsets
    own = [t for t in wanted if t != "mcp"]
    tools = builtin_registry(own).select(own)  # only these toolsets' modules are loaded
    if needs.skip_tools:  # a small model confuses rarely-needed tools with the everyday ones
        tools = tools.without(needs.skip_tools)
    for tool in profile.tools or ():
        tools.add(tool)  # a name the toolsets hold too is an error that names it
    prime_schemas(tools, settings.home / "cache" / "tool-schemas.json")
    if profile.toolsets is None or "mcp" in wanted:  # MCP servers' schemas are not primed
        from grove.mcp_client.session_tools import add_mcp_tools

        add_mcp_tools(tools, settings, events.on_notice)
    if "skills" in wanted:  # the code skills grove wrote and tested for itself are tools of their own
        from grove.tools.learned import with_learned

        with_learned(tools, settings, store.db)
    if needs.read_only:  # after MCP's and the learned tools, which may change things too
        own = {t.name for t in profile.tools or ()}
        tools = tools.without(t.name for t in tools if t.mutating and t.name not in own)
    return tools


def open_agent(
    settings: Settings,
    profile: Profile,
    events: AgentEvents | None = None,
    store: SessionStore | None = None,
) -> Agent:
    """A new session, or the resumed one with its stored system prompt and active messages."""
    events = events or AgentEvents()
    store = store or open_store(settings)
    workspace = (profile.workspace or Path.cwd()).resolve()
    ready = None if profile.model is None or isinstance(profile.model, str) else profile.model
    asked = profile.model if isinstance(profile.model, str) else (ready.name if ready is not None else None)
    history: list[Message] = []
    if profile.resume:
        session_id = store.resolve_id(profile.resume)
        spec = asked or store.get_session(session_id).model
        system = store.system_prompt(session_id) or ""
        history = store.messages(session_id)
    else:
        spec = asked or settings.resolved_model()
        system = ""
    needs = needs_for(spec)  # what this model needs of the agent: decided once, here, from its profile
    tools = session_tools(settings, profile, store, events, needs)
    for message in unanswered_tool_results(history, set(tools.names())):
        store.add_message(session_id, message)
        history.append(message)
    # the project's AGENTS.md or memory may hold a secret: the prompt is stored and sent redacted
    system = redact(
        system or profile.system_prompt or build_system_prompt(settings, workspace, tools, needs.lean)
    )
    router: Model = ready if ready is not None else build_router(settings, spec, events, profile.long_lived)
    from grove.spend.guard import guard

    router = guard(router, settings, profile.source, profile.spend_scopes)  # every request under the caps
    if not profile.resume:
        session_id = store.create_session(
            router.name,
            title=profile.title,
            parent_id=profile.parent_id,
            source=profile.source,
            system_prompt=system,
        )
    policy = build_policy(
        settings,
        store,
        allow_terminal=profile.allow_terminal,
        yolo=profile.yolo,
        approver=profile.approver,
        judge_model=router,
        allow_unisolated=profile.allow_unisolated,
    )
    ctx = ToolContext(
        workspace=workspace,
        policy=policy,
        settings=settings,
        store=store,
        session_id=session_id,
        notify=events.on_notice,
        needs=needs,
    )
    from grove.runtime.session_backend import attach

    # the profile's backend, else backends.use; recorded with the session
    backend = attach(ctx, profile.backend)
    if settings.checkpoints.enabled:
        from grove.checkpoints.store import CheckpointStore
        from grove.checkpoints.turn import TurnCheckpoints

        store_of_workspace = CheckpointStore(settings.home, backend.tree(), settings.checkpoints)
        ctx.checkpoints = TurnCheckpoints(store_of_workspace, session_id, events.on_notice)
        policy.checkpoint_ready = ctx.checkpoints.ready  # an unknown command unattended needs a way back
    summarizer = settings.compression.summary_model
    compressor = Compressor(
        router,
        store,
        session_id,
        compression_settings(settings),
        summarizer=build_model(summarizer, settings, long_lived=profile.long_lived) if summarizer else None,
        on_notice=events.on_notice,
    )
    return Agent(
        router,
        tools,
        ctx,
        store,
        session_id,
        [{"role": "system", "content": system}, *history],
        settings=ModelSettings(
            max_tokens=settings.max_tokens, temperature=settings.temperature, timeout=settings.timeout
        ),
        max_iterations=profile.max_iterations or settings.max_iterations,
        events=events,
        compressor=compressor,
    )
