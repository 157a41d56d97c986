"""Cron schedules: an interval (`30m`, `every 2h`), a 5-field cron expression (`0 9 * * 1-5`, needs the `cron`
extra: croniter) or an ISO time (`2026-12-01T09:00`, one shot). Times are epoch seconds; cron expressions and ISO
times without an offset are read in the machine's local time zone, or in the zone a `TZ=Europe/Paris ` prefix names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from grove.errors import GroveError

_UNITS = {"m": 60, "h": 3600, "d": 86400, "w": 604800}  # by the unit's first letter
_ZONE = re.compile(r"(?:CRON_)?TZ=(\S+)\s+(.*)", re.IGNORECASE)
_INTERVAL = re.compile(r"(?:every\s+)?(\d+)\s*(m|mins?|minutes?|h|hours?|d|days?|w|weeks?)", re.IGNORECASE)
HELP = (
    "use an interval ('30m', 'every 2h', '1d'), a 5-field cron expression ('0 9 * * 1-5') "
    "or an ISO time for one run ('2026-12-01T09:00'); a 'TZ=Europe/Paris ' prefix sets the time zone"
)


class ScheduleError(GroveError):
    """A schedule grove cannot read; the message says which forms it accepts."""


@dataclass(frozen=True)
class Schedule:
    text: str
    kind: Literal["interval", "cron", "once"]
    seconds: int = 0  # interval
    at: float = 0.0  # once
    zone: tzinfo | None = None  # cron: the zone its fields are read in; None = the machine's

    def next_after(self, now: float) -> float | None:
        """The first run time strictly after `now`; None when a one-shot is past (nothing more to run)."""
        if self.kind == "interval":
            return now + self.seconds
        if self.kind == "once":
            return self.at if self.at > now else None
        from croniter import croniter

        start = (
            datetime.fromtimestamp(now, self.zone) if self.zone else datetime.fromtimestamp(now).astimezone()
        )
        return float(croniter(_ZONE.sub(r"\2", self.text), start).get_next(float))

    def first_run(self, now: float) -> float | None:
        """When a new job first runs: an interval after now, the next cron slot, or the one-shot's time (a past
        one-shot runs at once)."""
        return self.at if self.kind == "once" else self.next_after(now)


def parse_schedule(text: str) -> Schedule:
    """A Schedule, or ScheduleError saying what was wrong and which forms work."""
    text = " ".join(str(text).split())
    if not text:
        raise ScheduleError(f"empty schedule; {HELP}")
    zone: tzinfo | None = None
    if m := _ZONE.fullmatch(text):
        try:
            zone = ZoneInfo(m.group(1))
        except (ZoneInfoNotFoundError, ValueError):
            raise ScheduleError(
                f"unknown time zone '{m.group(1)}'; use an IANA name such as Europe/Paris or UTC"
            ) from None
    body = m.group(2) if m else text
    m = _INTERVAL.fullmatch(body)
    if m:
        if zone is not None:
            raise ScheduleError(
                f"schedule '{text}': an interval runs the same in every zone; drop the TZ= prefix"
            )
        seconds = int(m.group(1)) * _UNITS[m.group(2)[0].lower()]
        if seconds < 60:
            raise ScheduleError(f"schedule '{text}' is shorter than a minute; the shortest interval is 1m")
        return Schedule(text, "interval", seconds=seconds)
    if len(body.split()) == 5:
        try:
            from croniter import croniter
        except ImportError:
            raise ScheduleError(
                f"cron expression '{text}' needs the cron extra: pip install 'grove-agent[cron]' "
                "(or use an interval such as 'every 2h')"
            ) from None
        if not croniter.is_valid(body):
            raise ScheduleError(f"'{body}' is not a valid cron expression (minute hour day month weekday)")
        return Schedule(text, "cron", zone=zone)
    try:
        at = datetime.fromisoformat(body)
    except ValueError:
        raise ScheduleError(f"cannot read schedule '{text}'; {HELP}") from None
    if at.tzinfo is None:
        at = at.replace(tzinfo=zone) if zone else at.astimezone()  # else the machine's local time
    return Schedule(text, "once", at=at.timestamp())
