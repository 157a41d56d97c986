"""Compression in a live session on the script model: threshold, every phase, tool pairs, updates, failures,
overflow retry, resume, search."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from grove.agent.loop import Agent
from grove.config import Settings
from grove.context.compressor import Compressor
from grove.context.prune import PLACEHOLDER_PREFIX
from grove.context.settings import CompressionSettings
from grove.context.summary import SUMMARY_MARKER
from grove.llm.errors import ErrorKind, ModelError
from grove.llm.script import ScriptModel
from grove.llm.types import Message, ToolSchema
from grove.runtime.assemble import open_agent
from grove.runtime.profile import Profile
from grove.store.sessions import SessionStore
from grove.tools.builtin import builtin_registry
from grove.tools.context import ToolContext

WINDOW = 6_000


class Session:
    """A script model that plays both the agent (read the file the user names, then answer) and the summariser."""

    def __init__(self, summary_error: ModelError | None = None) -> None:
        self.summary_error = summary_error
        self.summary_requests: list[list[Message]] = []
        self.agent_overflows = 0  # raise context_overflow on this many upcoming agent calls
        self.model = ScriptModel(self.reply)
        self.model.context_window = WINDOW

    def reply(self, messages: list[Message], tools: list[ToolSchema]) -> object:
        if str(messages[0]["content"]).startswith("You compress part"):
            self.summary_requests.append([dict(m) for m in messages])
            if self.summary_error is not None:
                return self.summary_error
            n = len(self.summary_requests)
            return f"## Goal\nread every module (summary v{n})\n## Progress\nDone: modules so far\n## Next steps\nmore"
        if self.agent_overflows:
            self.agent_overflows -= 1
            return ModelError(ErrorKind.CONTEXT_OVERFLOW, "prompt is too long")
        last = messages[-1]
        if last["role"] == "user":
            path = re.search(r"module_\d+\.py", str(last["content"]))
            if path:
                return {"tool_calls": [{"name": "read_file", "arguments": {"path": path.group(0)}}]}
            return "ok"
        return f"read it: fact {len(messages)}"

    @property
    def agent_calls(self) -> int:
        return self.model.calls - len(self.summary_requests)


def make_agent(
    store: SessionStore, workspace: Path, session: Session, compression: CompressionSettings | None = None
) -> Agent:
    for i in range(40):
        (workspace / f"module_{i}.py").write_text(
            f"# module {i}\nSECRET_{i} = {i * 7}\n" + "pass  # filler\n" * 60
        )
    tools = builtin_registry().select(["files", "todo"])
    sid = store.create_session(session.model.name, system_prompt="SYS")
    ctx = ToolContext(workspace=workspace, store=store, session_id=sid, settings=Settings())
    compressor = Compressor(session.model, store, sid, compression)  # type: ignore[arg-type]
    return Agent(
        session.model, tools, ctx, store, sid, [{"role": "system", "content": "SYS"}], compressor=compressor
    )  # type: ignore[arg-type]


def assert_tool_pairs_intact(messages: list[Message]) -> None:
    open_calls: set[str] = set()
    for m in messages:
        if m["role"] == "tool":
            assert m["tool_call_id"] in open_calls, f"tool result without its call: {m['tool_call_id']}"
            open_calls.discard(m["tool_call_id"])
        else:
            assert not open_calls, f"calls without results: {open_calls}"
            open_calls = {c["id"] for c in m.get("tool_calls") or []}
    assert not open_calls


def summaries(messages: list[Message]) -> list[Message]:
    return [m for m in messages if str(m.get("content") or "").startswith(SUMMARY_MARKER)]


def run_until_compressed(agent: Agent, start: int, times: int = 1) -> int:
    turn = start
    while len([r for r in agent.compressor.reports if r.status != "skipped"]) < times:
        agent.run_turn(f"turn {turn}: please read module_{turn}.py")
        turn += 1
        assert turn < start + 40, "never compressed"
    return turn


def test_long_session_crosses_threshold_and_every_phase_shows(store: SessionStore, workspace: Path) -> None:
    s = Session()
    agent = make_agent(store, workspace, s)
    run_until_compressed(agent, 0)
    report = agent.compressor.reports[-1]
    assert report.reason == "threshold" and report.status == "summary"
    assert report.tokens_after < report.tokens_before
    live = agent.messages
    assert live[0] == {"role": "system", "content": "SYS"}  # byte-identical system prompt
    # phase 1: the head's old tool result is a placeholder naming the tool and its argument
    assert live[1]["content"] == "turn 0: please read module_0.py"
    assert live[3]["role"] == "tool" and live[3]["content"].startswith(PLACEHOLDER_PREFIX)
    assert "read_file(" in live[3]["content"] and "module_0.py" in live[3]["content"]
    # phase 3 + 4: one summary right after the head, sectioned by the model, with the skeleton's exact facts
    assert summaries(live) == [live[4]]
    summary = live[4]["content"]
    assert "reference material" in summary and "summary v1" in summary
    assert "Files read:" in summary and "module_1.py" in summary
    assert "turn 1: please read module_1.py" in summary
    assert len(s.summary_requests) == 1 and "## Goal" in s.summary_requests[0][0]["content"]
    # phase 2: the tail is verbatim and tool pairs are intact
    assert_tool_pairs_intact(live[1:])
    # the next agent request is the compressed context, and the store agrees with the live list
    agent.run_turn("turn 99: please read module_39.py")
    sent, _ = s.model.requests[-1]
    assert summaries(sent) and sent[0]["content"] == "SYS"
    assert store.messages(agent.session_id) == agent.messages[1:]
    # nothing is lost: every message ever committed is still in state.db
    everything = store.messages(agent.session_id, active_only=False)
    assert len(everything) > len(agent.messages)
    assert any(m["content"] == "turn 2: please read module_2.py" for m in everything)
    assert store.search("SECRET_1")  # the raw tool output of a compressed-away turn stays searchable
    row = store.compressions(agent.session_id)[-1]
    assert row["status"] == "summary" and row["messages_compressed"] > 0 and row["tool_results_pruned"] > 0
    assert store.get_session(agent.session_id).model_calls == s.model.calls  # the summary call is accounted


def test_second_compression_updates_the_first_summary(store: SessionStore, workspace: Path) -> None:
    s = Session()
    agent = make_agent(store, workspace, s)
    turn = run_until_compressed(agent, 0)
    first = summaries(agent.messages)[0]["content"]
    run_until_compressed(agent, turn, times=2)
    assert len(s.summary_requests) == 2
    update_request = s.summary_requests[1][1]["content"]
    assert "<previous-summary>" in update_request and "summary v1" in update_request
    assert (
        SUMMARY_MARKER not in update_request
    )  # the old summary comes as the previous summary, not as a turn
    live = summaries(agent.messages)
    assert len(live) == 1 and "summary v2" in live[0]["content"] and live[0]["content"] != first
    # the skeleton accumulates: files from before the first compression are still named
    assert "module_1.py" in live[0]["content"]
    assert_tool_pairs_intact(agent.messages[1:])


def test_failing_summary_call_loses_nothing_and_does_not_retry_in_a_loop(
    store: SessionStore, workspace: Path
) -> None:
    s = Session(summary_error=ModelError(ErrorKind.SERVER_ERROR, "summariser down"))
    agent = make_agent(store, workspace, s, compression=CompressionSettings(cooldown_calls=1000))
    turn = run_until_compressed(agent, 0)
    report = agent.compressor.reports[-1]
    assert report.status == "skeleton" and "summariser down" in (report.error or "")
    summary = summaries(agent.messages)[0]["content"]
    assert "No model summary: the summary call failed" in summary
    assert "module_1.py" in summary and "turn 1: please read module_1.py" in summary  # the skeleton holds
    assert store.compressions(agent.session_id)[-1]["error"]
    # the turn that triggered it finished, and every raw message is still stored
    result = agent.run_turn(f"turn {turn}: please read module_{turn}.py")
    assert result.answer.startswith("read it")
    stored = [m["content"] for m in store.messages(agent.session_id, active_only=False)]
    for t in range(turn):
        assert f"turn {t}: please read module_{t}.py" in stored
    # more compressions while cooling down: the summariser is not asked again
    run_until_compressed(agent, turn + 1, times=3)
    assert len(s.summary_requests) == 1
    assert [r.status for r in agent.compressor.reports if r.status != "skipped"][-1] == "skeleton"
    assert_tool_pairs_intact(agent.messages[1:])


def test_context_overflow_compresses_and_retries_once(store: SessionStore, workspace: Path) -> None:
    s = Session()
    agent = make_agent(store, workspace, s, compression=CompressionSettings(enabled=False))
    for t in range(8):
        agent.run_turn(f"turn {t}: please read module_{t}.py")
    assert not agent.compressor.reports
    s.agent_overflows = 1
    before = s.agent_calls
    result = agent.run_turn("turn 8: please read module_8.py")
    assert result.answer.startswith("read it")
    assert [r.reason for r in agent.compressor.reports] == ["context_overflow"]
    assert s.agent_calls - before == 3  # overflowed call, its retry, then the answer
    assert summaries(agent.messages)


def test_a_second_overflow_goes_to_the_caller_after_one_retry(store: SessionStore, workspace: Path) -> None:
    s = Session()
    agent = make_agent(store, workspace, s, compression=CompressionSettings(enabled=False))
    for t in range(8):
        agent.run_turn(f"turn {t}: please read module_{t}.py")
    s.agent_overflows = 5
    before = s.agent_calls
    with pytest.raises(ModelError) as info:
        agent.run_turn("turn 8: please read module_8.py")
    assert info.value.kind is ErrorKind.CONTEXT_OVERFLOW
    assert s.agent_calls - before == 2
    assert (
        store.messages(agent.session_id, active_only=False)[-1]["content"]
        == "turn 8: please read module_8.py"
    )


def test_manual_compress_and_resume_loads_the_compressed_context(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    s = Session()
    agent = make_agent(store, workspace, s)
    for t in range(5):
        agent.run_turn(f"turn {t}: please read module_{t}.py")
    seen: list[list[Message]] = []
    agent.compressor.before_compress = seen.append
    agent.compress()
    assert agent.compressor.reports[-1].reason == "manual" and summaries(agent.messages)
    assert seen and seen[0][0]["content"] == "turn 0: please read module_0.py"  # the memory hook saw it all
    resumed = open_agent(
        settings,
        Profile(resume=agent.session_id, workspace=workspace, model=ScriptModel(["hi"])),
        store=store,
    )
    assert (
        resumed.messages == agent.messages
    )  # summary in place, in conversation order, raw history not loaded
    assert resumed.messages[0]["content"] == "SYS"


def test_small_session_is_not_made_bigger(store: SessionStore, workspace: Path) -> None:
    s = Session()
    agent = make_agent(store, workspace, s)
    agent.run_turn("hello")
    agent.compress()
    assert agent.compressor.reports[-1].status == "skipped"
    assert not s.summary_requests and not store.compressions(agent.session_id)


def test_a_context_that_cannot_shrink_does_not_loop(store: SessionStore, workspace: Path) -> None:
    s = Session()
    agent = make_agent(store, workspace, s)
    agent.run_turn("remember this: " + "lorem ipsum " * 1_500)  # over the threshold on its own, in the head
    for t in range(5):
        assert agent.run_turn(f"and {t}?").answer == "ok"
    assert not s.summary_requests
    assert {r.status for r in agent.compressor.reports} <= {"skipped", "pruned"}
    assert s.agent_calls == 6  # one call a turn: no compression retries
