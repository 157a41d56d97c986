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


def _zone_or_skip(name: str) -> None:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo(name)
    except ZoneInfoNotFoundError:
        pytest.skip(f"no time zone data for {name} (pip install tzdata)")


def test_a_tz_prefix_reads_cron_fields_and_iso_times_in_that_zone() -> None:
    pytest.importorskip("croniter", reason="cron expressions need the cron extra")
    _zone_or_skip("Asia/Tokyo")
    _zone_or_skip("Europe/Paris")
    tokyo = parse_schedule("TZ=Asia/Tokyo 0 9 * * *")  # 09:00 in Tokyo is 00:00 UTC
    assert tokyo.kind == "cron" and tokyo.next_after(NOW) == NOW + 16 * 3600  # NOW is 08:00 UTC
    assert parse_schedule("CRON_TZ=UTC 0 9 * * *").next_after(NOW) == NOW + 3600
    paris = parse_schedule("TZ=Europe/Paris 2027-01-15T09:00")  # 09:00 in Paris (winter, +01:00)
    assert paris.kind == "once" and paris.at == NOW
    assert parse_schedule(paris.text).at == NOW  # the stored text reads back the same


@pytest.mark.parametrize(
    ("text", "message"),
    [("TZ=Mars/Olympus 0 9 * * *", "unknown time zone"), ("TZ=UTC every 2h", "drop the TZ= prefix")],
)
def test_bad_time_zones_say_what_to_do(text: str, message: str) -> None:
    with pytest.raises(ScheduleError, match=message):
        parse_schedule(text)
