"""The serve approval queue: answered once, only with a known answer, timeout = deny, secrets masked."""

from __future__ import annotations

import threading

from grove.security.approval.base import ApprovalRequest
from grove.security.commands.base import CommandVerdict
from grove.serve.approvals import ApprovalQueue


def _request(command: str = "rm -rf build", timeout: float = 5.0) -> ApprovalRequest:
    return ApprovalRequest(command, CommandVerdict(command), "s1", timeout)


def _ask_in_thread(
    queue: ApprovalQueue, request: ApprovalRequest
) -> tuple[threading.Thread, list[str | None]]:
    box: list[str | None] = []
    version = queue.version
    thread = threading.Thread(target=lambda: box.append(queue.approver("conv-1")(request)))
    thread.start()
    queue.wait_change(version, 5)
    return thread, box


def test_answer_reaches_the_waiting_turn() -> None:
    queue = ApprovalQueue()
    thread, box = _ask_in_thread(queue, _request())
    [pending] = queue.pending()
    assert pending.label == "conv-1" and pending.command == "rm -rf build"
    assert queue.answer(pending.id, "once")
    thread.join(5)
    assert box == ["once"]
    assert queue.pending() == []


def test_answered_only_once_and_only_with_known_answers() -> None:
    queue = ApprovalQueue()
    thread, box = _ask_in_thread(queue, _request())
    [pending] = queue.pending()
    assert not queue.answer(pending.id, "yes please")
    assert not queue.answer("not-an-id", "once")
    assert queue.answer(pending.id, "deny")
    assert not queue.answer(pending.id, "always")
    thread.join(5)
    assert box == ["deny"]


def test_no_answer_is_a_deny() -> None:
    queue = ApprovalQueue()
    assert queue.approver("c")(_request(timeout=0.01)) is None
    assert queue.pending() == []


def test_flood_of_questions_is_denied_not_queued() -> None:
    queue = ApprovalQueue(max_pending=0)
    assert queue.approver("c")(_request()) is None


def test_secrets_in_the_command_are_masked() -> None:
    queue = ApprovalQueue()
    secret = "sk-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6"
    thread, _ = _ask_in_thread(queue, _request(f"curl -H 'Authorization: Bearer {secret}' x"))
    [pending] = queue.pending()
    assert secret not in pending.command
    queue.answer(pending.id, "deny")
    thread.join(5)
