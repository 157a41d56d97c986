"""Review triggers, computed from a stored session: thresholds, patterns, resets, and the memory cadence."""

from __future__ import annotations

from grove.agent.loop import ToolCallRecord, TurnResult
from grove.config.learning import LearningConfig
from grove.learning.triggers import decide
from grove.llm.types import Message

CONFIG = LearningConfig()


def msgs(*items: Message) -> list[tuple[int, Message]]:
    return list(enumerate(items, 1))


def assistant_call(call_id: str, name: str) -> Message:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}],
    }


def tool(call_id: str, name: str, content: str = "ok") -> Message:
    return {"role": "tool", "tool_call_id": call_id, "name": name, "content": content}


def turn(
    model_calls: int = 1, calls: list[tuple[str, bool]] | None = None, answer: str = "done"
) -> TurnResult:
    return TurnResult(
        answer=answer,
        model_calls=model_calls,
        tool_calls=[ToolCallRecord(n, {}, ok) for n, ok in (calls or [])],
    )


def test_a_short_plain_turn_triggers_nothing() -> None:
    history = msgs({"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"})
    d = decide(history, turn(), CONFIG)
    assert not d.skill_review and not d.memory_review and d.reasons == [] and d.up_to == 2


def test_many_tool_calls_and_recovery_trigger_a_skill_review() -> None:
    history = msgs({"role": "user", "content": "do it"}, {"role": "assistant", "content": "done"})
    d = decide(history, turn(6, [("read_file", True)] * 5), CONFIG)
    assert d.skill_review and d.reasons == ["the turn made 5 tool calls"]
    d = decide(history, turn(3, [("patch", False), ("read_file", True), ("patch", True)]), CONFIG)
    assert d.skill_review and d.reasons == ["the turn recovered from a failed tool call"]
    d = decide(history, turn(3, [("patch", True), ("patch", False)]), CONFIG)
    assert not d.skill_review  # an unresolved failure is not a pattern worth keeping


def test_model_calls_accumulate_across_turns_until_a_skill_write_resets_them() -> None:
    items: list[Message] = []
    for i in range(10):
        items += [{"role": "user", "content": f"q{i}"}, {"role": "assistant", "content": f"a{i}"}]
    d = decide(msgs(*items), turn(), CONFIG)
    assert d.skill_review and "10 model calls since the last skill write" in d.reasons[0]
    written = [*items, assistant_call("c1", "skill_manage"), tool("c1", "skill_manage", "created skill 'x'")]
    written.append({"role": "assistant", "content": "saved"})
    assert not decide(msgs(*written), turn(), CONFIG).skill_review
    failed = [*items, assistant_call("c1", "skill_manage"), tool("c1", "skill_manage", "Error: invalid name")]
    assert decide(msgs(*failed), turn(), CONFIG).skill_review  # a refused write resets nothing
    d = decide(msgs(*items), turn(), CONFIG, reviewed_skill_upto=18)
    assert not d.skill_review  # a review already covered most of it


def test_a_turn_that_wrote_a_skill_is_not_reviewed() -> None:
    history = msgs({"role": "user", "content": "x"}, {"role": "assistant", "content": "y"})
    calls = [("read_file", True)] * 5 + [("skill_manage", True)]
    assert not decide(history, turn(7, calls), CONFIG).skill_review


def test_a_user_correction_triggers_but_a_first_message_does_not() -> None:
    first = msgs({"role": "user", "content": "No idea where to start: set up the repo"})
    assert not decide([*first, (2, {"role": "assistant", "content": "ok"})], turn(), CONFIG).skill_review
    history = msgs(
        {"role": "user", "content": "rename the files"},
        {"role": "assistant", "content": "renamed them to .txt"},
        {"role": "user", "content": "No, that's wrong: use .md, not .txt"},
        {"role": "assistant", "content": "renamed to .md"},
    )
    d = decide(history, turn(), CONFIG)
    assert d.skill_review and d.reasons == ["the user corrected the agent"]


def test_memory_review_every_n_user_turns_reset_by_a_memory_write() -> None:
    items: list[Message] = []
    for i in range(10):
        items += [{"role": "user", "content": f"q{i}"}, {"role": "assistant", "content": f"a{i}"}]
    config = LearningConfig(review_model_calls=100)
    d = decide(msgs(*items), turn(), config)
    assert d.memory_review and not d.skill_review
    items[15:15] = [assistant_call("m", "memory"), tool("m", "memory", "USER.md: added an entry")]
    assert not decide(msgs(*items), turn(), config).memory_review


def test_an_interrupted_turn_is_not_reviewed() -> None:
    history = msgs({"role": "user", "content": "x"})
    t = turn(12, [("read_file", True)] * 6)
    t.interrupted = True
    d = decide(history, t, CONFIG)
    assert not d.skill_review and not d.memory_review
