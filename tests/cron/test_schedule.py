"""Schedules: intervals, ISO one-shots and cron expressions parse; anything else says which forms work."""

from __future__ import annotations

import pytest

from grove.store.cron_schedule import ScheduleError, parse_schedule

NOW = 1_800_000_000.0


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("30m", 1800),
        ("every 2h", 7200),
        ("every 3 days", 259200),
        ("1 week", 604800),
        ("EVERY 15 MINUTES", 900),
    ],
)
def test_intervals(text: str, seconds: int) -> None:
    s = parse_schedule(text)
    assert s.kind == "interval" and s.seconds == seconds and s.next_after(NOW) == NOW + seconds


def test_iso_one_shot() -> None:
    s = parse_schedule("2027-01-15T09:00:00+01:00")
    assert s.kind == "once" and s.at == NOW  # 08:00 UTC
    assert s.next_after(NOW - 1) == NOW and s.next_after(NOW) is None
    assert s.first_run(NOW + 99) == NOW  # a past one-shot runs at once


@pytest.mark.parametrize("text", ["", "soon", "30s", "every 0m", "tomorrow 9am", "* * *"])
def test_bad_schedules_say_what_works(text: str) -> None:
    with pytest.raises(ScheduleError, match=r"interval|minute"):
        parse_schedule(text)
