"""`grove skills import` output: a progress bar for large imports, one line per skill (or the report for many),
and a summary that counts every SKILL.md found."""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from grove.skills.importer import Conflict

SHOW_EACH = 200  # above this many SKILL.md, the ones not imported are listed in the report file
BAR_FROM = 50


def _bar(enabled: bool | None, stream: Any) -> Any:
    if enabled is False or (enabled is None and not stream.isatty()):
        return None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("{task.description:<9}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(file=stream),
        transient=True,
    )


def run_import(
    settings: Any,
    path: Path,
    skills_root: Path,
    db: Any,
    on_conflict: Conflict,
    allow_flagged: bool,
    report: Path | None,
    limits: tuple[int | None, ...],
    progress: bool | None,
) -> int:
    from grove.skills.import_report import write_report
    from grove.skills.importer import import_with_summary

    bar = _bar(progress, sys.stderr)
    tasks: dict[str, Any] = {}

    def tell(stage: str, done: int, total: int) -> None:
        if bar is None or (total < BAR_FROM and progress is None):
            return
        if stage not in tasks:
            tasks[stage] = bar.add_task(stage, total=total)
        bar.update(tasks[stage], completed=done, total=total)

    try:
        if bar is not None:
            bar.start()
        outcomes, summary = import_with_summary(
            path,
            skills_root,
            db,
            allow_flagged=allow_flagged,
            on_conflict=on_conflict,
            limits=_limits(settings, limits),
            progress=tell,
        )
    except FileNotFoundError as e:
        print(f"grove: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("grove: import interrupted; the skills imported so far are complete and kept", file=sys.stderr)
        return 130
    finally:
        if bar is not None:
            bar.stop()
    if report is None and len(outcomes) > SHOW_EACH:
        report = Path(settings.home) / "imports" / time.strftime("import-%Y%m%d-%H%M%S.json", time.gmtime())
    if len(outcomes) <= SHOW_EACH:
        for o in outcomes:
            detail = f": {o.reason}" if o.reason else ""
            print(f"{o.status:<9} {o.name}{detail}")
            for w in o.warnings:
                print(f"          warning: {w}")
            if o.fix:
                print(f"          way forward: {o.fix}")
    else:
        _digest(outcomes)
    if report is not None:
        report.parent.mkdir(parents=True, exist_ok=True)
        write_report(report, outcomes, summary)
    print(summary.line())
    if report is not None:
        print(f"every verdict, with its reason and a way forward: {report}")
    if summary.counts.get("quarantined"):
        print("quarantined skills were flagged as caution: read the reasons; --allow-flagged imports them")
    return 0 if summary.counts.get("imported") else 1


def _limits(settings: Any, given: tuple[int | None, ...]) -> Any:
    """The import's limits: each option given, else its setting (skills.<name>), else the built-in default."""
    from dataclasses import fields

    from grove.skills.importer import ImportLimits

    values: dict[str, Any] = {}
    for f, value in zip(fields(ImportLimits), given, strict=False):
        setting = getattr(getattr(settings, "skills", None), f.name, None)
        values[f.name] = value if value is not None else setting if setting is not None else f.default
    return ImportLimits(**values)


def _digest(outcomes: list[Any]) -> None:
    """For a large import: the most common reasons per verdict, instead of thousands of lines."""
    by_status: dict[str, Counter[str]] = {}
    for o in outcomes:
        if o.status == "imported":
            continue
        reason = o.reason.split(": ", 1)[0] if o.status in ("refused", "quarantined") else o.reason
        reason = reason if len(reason) < 90 else reason[:87] + "..."
        key = reason.split(" (", 1)[0] if o.status in ("duplicate", "over-limit") else reason
        by_status.setdefault(o.status, Counter())[key] += 1
    for status, reasons in by_status.items():
        print(f"{status} ({sum(reasons.values())}):")
        for why, n in reasons.most_common(5):
            print(f"  {n:6d}  {why}")
