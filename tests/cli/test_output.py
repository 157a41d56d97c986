"""What a streamed answer looks like in the terminal (the runtime's stream into the terminal renderer): whole
lines, with secrets masked even when split."""

from __future__ import annotations

import pytest

from grove.cli.output import TerminalEvents
from grove.runtime.stream import EventStream

KEY = "sk-ant-api03-" + "Q" * 40


def test_a_key_split_over_deltas_never_reaches_the_screen(capsys: pytest.CaptureFixture[str]) -> None:
    events = EventStream(TerminalEvents(stream_text=True))
    for delta in [
        "Your key is ",
        KEY[:10],
        KEY[10:30],
        KEY[30:],
        "\nand the password: hun",
        "ter2xyz",
        " ok",
    ]:
        events.on_text(delta)
    shown_before_end = capsys.readouterr().out
    assert shown_before_end.startswith("Your key is sk-a") and shown_before_end.endswith("\n")
    assert KEY[10:] not in shown_before_end
    events.on_model_done(False)
    rest = capsys.readouterr().out
    assert "hunter2xyz" not in rest and rest.startswith("and the password: ") and rest.endswith(" ok\n")


def test_plain_text_comes_out_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    events = EventStream(TerminalEvents(stream_text=True))
    for delta in ["Paris is ", "the capital.\nIt is ", "in France."]:
        events.on_text(delta)
    events.on_model_done(False)
    assert capsys.readouterr().out == "Paris is the capital.\nIt is in France.\n"


def test_notices_and_tool_activity_are_redacted_on_their_way_out(capsys: pytest.CaptureFixture[str]) -> None:
    events = EventStream(TerminalEvents(stream_text=False))
    events.on_notice(f"retrying with {KEY}")
    err = capsys.readouterr().err
    assert "retrying with" in err and KEY[12:] not in err and events.notices == [events.notices[0]]
    assert KEY[12:] not in events.notices[0]
