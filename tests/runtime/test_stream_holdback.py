"""Streamed text goes out as it is produced (issue 33: an 8-word answer came in one chunk), yet a secret split
over deltas, or named before it arrives, never goes out."""

from __future__ import annotations

from grove.runtime.holdback import Holdback
from grove.runtime.stream import redact  # the redaction the stream uses, wherever it lives

TOKEN = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"


def _feed(deltas: list[str]) -> list[str]:
    out: list[str] = []
    held = Holdback(out.append, redact)
    for delta in deltas:
        held.feed(delta)
    held.flush()
    return out


def test_plain_words_go_out_before_the_line_ends() -> None:
    out: list[str] = []
    held = Holdback(out.append, redact)
    words = ["the", "quick", "brown", "fox", "jumps", "over", "the", "dog"]
    for word in words[:-1]:
        held.feed(word + " ")
    assert "".join(out) == " ".join(words[:-1]) + " "  # all but the last word, before the answer is done
    held.feed(words[-1])
    held.flush()
    assert "".join(out) == " ".join(words)


def test_a_token_split_over_deltas_never_goes_out() -> None:
    deltas = ["here it is ", TOKEN[:10], TOKEN[10:25], TOKEN[25:], " done"]
    assert TOKEN[:10] not in "".join(_feed(deltas))
    assert "here it is" in "".join(_feed(deltas))


def test_a_secret_named_before_it_arrives_never_goes_out() -> None:
    sent = "".join(_feed(["the database ", "password: ", "Hunter2!x9", "Zq\nnext line"]))
    assert "Hunter2" not in sent and "next line" in sent
