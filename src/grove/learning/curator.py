"""Loop 4, the curator: keeps the library small and sharp. Marks unused skills stale, archives long-unused ones,
proposes a patch for skills that keep failing (their grades), finds overlapping skills and (with a model) merges
them into an umbrella skill that keeps every command, code line and rule. Never deletes; has a dry run.

Only agent-created skills in $GROVE_HOME/skills are touched; pinned skills and the user's own never are.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grove.config.learning import LearningConfig, learning_config
from grove.learning.runs import finish_run, runs, start_run
from grove.llm.types import Model
from grove.skills.skill import Skill
from grove.skills.stale import read_stale, write_stale
from grove.store.db import Database

if TYPE_CHECKING:
    from grove.learning.skill_probes import ProbeRunner

DAY = 86_400.0


@dataclass
class CuratorAction:
    kind: str  # stale | fresh | archive | weak | overlap | consolidate | skipped
    skills: list[str]
    detail: str
    applied: bool = False


@dataclass
class CuratorReport:
    dry_run: bool
    checked: int = 0
    actions: list[CuratorAction] = field(default_factory=list)
    error: str | None = None

    def render(self) -> str:
        head = f"curator: {self.checked} agent-created skill(s) checked" + (
            " (dry run: nothing changed)" if self.dry_run else ""
        )
        lines = [head]
        for a in self.actions:
            mark = "done" if a.applied else ("would" if self.dry_run and a.kind in CHANGES else "note")
            lines.append(f"  [{mark}] {a.kind} {', '.join(a.skills)}: {a.detail}")
        if not self.actions:
            lines.append("  nothing to do")
        if self.error:
            lines.append(f"  error: {self.error}")
        return "\n".join(lines)


def eligible(skill: Skill) -> bool:
    return skill.source == "home" and skill.created_by == "agent" and not skill.pinned


CHANGES = {"stale", "fresh", "archive", "consolidate"}  # the rest are notes and proposals, never applied


def last_activity(skill: Skill, usage: Any) -> float:
    """The skill's freshness clock: its creation, last use by a working session, restore or edit by hand (never a
    reviewer's or the curator's own reads and patches); the file's mtime when nothing is recorded."""
    times = []
    if usage is not None:
        times = [usage.fresh_at, usage.created_at, usage.last_used_at]
    known = [t for t in times if t]
    return max(known) if known else skill.skill_md.stat().st_mtime


def last_user_activity(db: Database, exclude: str | None = None) -> float | None:
    """The last time a working session changed; `exclude`: the session that is just opening (chat asks whether
    grove was idle *before* it)."""
    with db.lock:
        row = db.conn.execute(
            "SELECT max(updated_at) FROM sessions WHERE source != 'review' AND id != ?", (exclude or "",)
        ).fetchone()
    return row[0] if row and row[0] else None


def curator_due(
    settings: Any,
    db: Database,
    now: float | None = None,
    *,
    require_idle: bool = True,
    opening: str | None = None,
) -> tuple[bool, str]:
    """(due?, why): idle for `curator_idle_hours` (unless `require_idle` is False: a detached run after a one-shot
    `grove run` does not compete with the user) and the last real run older than `curator_interval_days`."""
    config = learning_config(settings)
    now = time.time() if now is None else now
    if not config.curator:
        return False, "the curator is turned off (learning.curator: false)"
    active = last_user_activity(db, opening) if require_idle else None
    if active is not None and now - active < config.curator_idle_hours * 3600:
        return (
            False,
            f"grove was used {(now - active) / 3600:.1f} h ago (waits for {config.curator_idle_hours} h idle)",
        )
    # a failed run counts too: an unattended schedule runs at most once per interval, never in a retry loop
    done = [r for r in runs(db, kind="curator", limit=20) if not r.dry_run and r.status in ("done", "failed")]
    if done and now - done[0].started_at < config.curator_interval_days * DAY:
        days = (now - done[0].started_at) / DAY
        return False, f"last run {days:.1f} days ago (runs every {config.curator_interval_days} days)"
    return True, "idle and due"


def _age_actions(
    skills: list[Skill], usage: dict[str, Any], config: LearningConfig, stale: dict[str, float], now: float
) -> tuple[list[CuratorAction], list[str]]:
    actions: list[CuratorAction] = []
    to_archive: list[str] = []
    for s in skills:
        idle_days = (now - last_activity(s, usage.get(s.name))) / DAY
        if idle_days >= config.archive_days:
            to_archive.append(s.name)
            actions.append(CuratorAction("archive", [s.name], f"unused for {idle_days:.0f} days"))
        elif idle_days >= config.stale_days and s.name not in stale:
            stale[s.name] = now
            actions.append(
                CuratorAction("stale", [s.name], f"unused for {idle_days:.0f} days; hidden from the index")
            )
        elif idle_days < config.stale_days and s.name in stale:
            del stale[s.name]
            actions.append(CuratorAction("fresh", [s.name], "used again; back in the index"))
    return actions, to_archive


def _grade_actions(skills: list[Skill], usage: dict[str, Any], config: LearningConfig) -> list[CuratorAction]:
    """Skills whose graded uses mostly fail: proposed for a patch (or archiving), never changed here."""
    out = []
    for s in skills:
        st = usage.get(s.name)
        if st is None or st.graded < config.grade_min_uses or st.success_rate >= config.weak_success_rate:
            continue
        out.append(
            CuratorAction(
                "weak",
                [s.name],
                f"succeeded in {st.succeeded} of {st.graded} graded uses ({st.success_rate:.0%}); "
                "proposed: patch it from the failing sessions, or archive it if nobody needs it",
            )
        )
    return out


def weak_skills(settings: Any, db: Database) -> list[CuratorAction]:
    """The curator's `weak` proposals as they stand now (for `grove curator status`)."""
    from grove.skills import usage as usage_mod
    from grove.skills.discover import discover

    skills = [s for s in discover(settings, None).sorted() if eligible(s)]
    return _grade_actions(skills, usage_mod.stats(db), learning_config(settings))


def run_curator(
    settings: Any,
    *,
    dry_run: bool = False,
    model: Model | None = None,
    db: Database | None = None,
    now: float | None = None,
    probes: Callable[[Model], ProbeRunner] | None = None,
) -> CuratorReport:
    """One pass over the library. Every change is kept in the skill history or the archive, and listed. With
    `probes` (learning.skill_probes), a merge is replayed on the members' probes first and kept only if they pass."""
    from grove.learning.consolidate import propose
    from grove.learning.merge_check import check_merge
    from grove.learning.overlap import clusters, overlapping_pairs
    from grove.skills import usage as usage_mod
    from grove.skills.discover import discover, home_skills_dir
    from grove.skills.manage import SkillError, SkillManager, _with_created_by

    config = learning_config(settings)
    now = time.time() if now is None else now
    own_db = db is None
    db = db or Database(settings.db_path)
    run_id = start_run(db, "curator", dry_run=dry_run)
    report = CuratorReport(dry_run)
    try:
        library = discover(settings, None)
        skills = [s for s in library.sorted() if eligible(s)]
        report.checked = len(skills)
        stale = read_stale(settings.home)
        usage = usage_mod.stats(db)
        ages, to_archive = _age_actions(skills, usage, config, stale, now)
        report.actions += ages
        report.actions += _grade_actions([s for s in skills if s.name not in to_archive], usage, config)
        mgr = SkillManager(home_skills_dir(settings.home), db, actor="curator")
        if not dry_run:
            for name in to_archive:
                mgr.archive(name, "curator: unused for a long time")
                stale.pop(name, None)
            for a in ages:
                a.applied = True
        live = [s for s in skills if s.name not in to_archive]
        for group in clusters(overlapping_pairs(live, config.overlap_threshold)):
            members = [s for s in live if s.name in group]
            if model is None:
                report.actions.append(
                    CuratorAction(
                        "overlap", group, "overlapping; run with a model to merge them into one skill"
                    )
                )
                continue
            try:
                proposal = propose(model, members)
            except Exception as e:  # a bad proposal or a failed call skips this group, not the whole run
                report.actions.append(CuratorAction("skipped", group, f"no usable merge proposal: {e}"))
                continue
            if not proposal.merge:
                report.actions.append(CuratorAction("overlap", group, f"kept apart: {proposal.why}"))
                continue
            check = check_merge(
                [s.skill_md.read_text(encoding="utf-8") for s in members], proposal.content, proposal.dropped
            )
            if not check.ok:
                report.actions.append(
                    CuratorAction(
                        "skipped", group, f"merge into '{proposal.name}' refused: {check.describe()}"
                    )
                )
                continue
            held = _merge_probes(settings, proposal, members, probes, model, config.probe_replays)
            if held is not None and not held.keep:
                report.actions.append(
                    CuratorAction("skipped", group, f"merge into '{proposal.name}' refused: {held.text()}")
                )
                continue
            dropped = "".join(f"; dropped {e.kind} {e.text!r}: {why}" for e, why in check.excused)
            action = CuratorAction(
                "consolidate",
                group,
                f"into '{proposal.name}' ({proposal.why}); the others archived, restorable{dropped}",
            )
            report.actions.append(action)
            if dry_run:
                continue
            reason = f"curator: merges {', '.join(group)}"
            content = _with_created_by(proposal.content, "agent")  # the umbrella stays agent-made, curatable
            try:
                if proposal.name in group:
                    mgr.edit(proposal.name, content, reason)
                else:
                    SkillManager(mgr.root, db, actor="agent").create(proposal.name, content, reason)
                for name in group:
                    if name != proposal.name:
                        mgr.archive(name, f"curator: merged into {proposal.name}")
                        stale.pop(name, None)
                action.applied = True
                if held is not None:
                    _carry_probes(settings, proposal.name, group)
            except SkillError as e:
                action.kind, action.detail = "skipped", f"merge into '{proposal.name}' refused: {e}"
        if not dry_run:
            write_stale(settings.home, stale)
        status = "done"
    except Exception as e:  # the curator runs unattended: report, never crash the caller
        report.error, status = f"{type(e).__name__}: {e}", "failed"
    finish_run(db, run_id, status, [asdict(a) for a in report.actions], report.error)
    if own_db:
        db.close()
    return report


@contextlib.contextmanager
def curator_lock(settings: Any) -> Iterator[bool]:
    """Yields False when another process is curating right now (so two schedules never run at once)."""
    locks = Path(settings.home) / "skills" / ".locks"
    locks.mkdir(parents=True, exist_ok=True)
    fd = os.open(locks / "curator.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def curator_model_spec(settings: Any, session_model: str | None) -> str | None:
    """The curator's model: learning.curator_model, else review_model, else the session's. A scripted session
    model (a test double) is not a curator unless one of those names a model, as for the reviewer."""
    config = learning_config(settings)
    spec = config.curator_model or config.review_model
    if spec:
        return spec
    from grove.llm.profiles import needs_for

    return session_model if session_model and needs_for(session_model).own_reviewer else None


def has_curatable_skills(settings: Any) -> bool:
    """Cheap check before starting a process: any agent-made skill in $GROVE_HOME/skills at all?"""
    from grove.skills.discover import home_skills_dir

    root = home_skills_dir(settings.home)
    if not root.is_dir():
        return False
    for md in root.glob("*/SKILL.md"):
        with contextlib.suppress(OSError):
            if "created_by: agent" in md.read_text(encoding="utf-8", errors="replace")[:2000]:
                return True
    return False


def _merge_probes(
    settings: Any,
    proposal: Any,
    members: list[Any],
    probes: Callable[[Model], ProbeRunner] | None,
    model: Model,
    budget: int,
) -> Any:
    """The probes of the merged skills replayed on the umbrella; None when there is nothing to hold it to."""
    from grove.learning.skill_probes import judge, load_probes

    held = [p for m in members for p in load_probes(settings.home, m.name)]
    if probes is None or not held:
        return None
    before = next((m.skill_md.read_text(encoding="utf-8") for m in members if m.name == proposal.name), None)
    return judge(proposal.name, proposal.content, before, held, probes(model), budget)


def _carry_probes(settings: Any, name: str, group: list[str]) -> None:
    """The umbrella skill keeps the probes of every skill it merged."""
    from grove.learning.skill_probes import load_probes, save_probes

    merged = [p for member in group for p in load_probes(settings.home, member)]
    save_probes(settings.home, name, list({p.model_dump_json(): p for p in merged}.values()))


def run_curator_if_due(
    settings: Any,
    model_factory: Callable[[], Model] | None = None,
    *,
    require_idle: bool = True,
    opening: str | None = None,
    probes: Callable[[Model], ProbeRunner] | None = None,
) -> CuratorReport | None:
    """For front ends: run the curator when it is due and no other process is curating (call it in a
    background thread or a detached process); None when not due."""
    db = Database(settings.db_path)
    try:
        with curator_lock(settings) as mine:
            if not mine:
                return None
            due, _ = curator_due(settings, db, require_idle=require_idle, opening=opening)
            if not due:
                return None
            model = None
            if model_factory is not None:
                with contextlib.suppress(Exception):  # no curator model: age and grade only, as documented
                    model = model_factory()
            return run_curator(settings, model=model, db=db, probes=probes)
    finally:
        db.close()
