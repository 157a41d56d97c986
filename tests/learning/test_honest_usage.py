"""Usage that tells the truth: only a working session's view or run is a use and moves the curator's clock; the
reviewer's reads are kept as events of the reviewer, a restore resets the clock, and the history starts at the
creation. Each of these was wrong before (issue 15, "usage lies")."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from tests.clirun import grove

from grove.config import Settings
from grove.learning.curator import DAY, run_curator
from grove.skills.discover import discover, home_skills_dir
from grove.skills.manage import SkillManager
from grove.skills.usage import record, stats
from grove.store.sessions import SessionStore
from grove.tools.context import ToolContext
from grove.tools.registry import ToolRegistry
from grove.tools.skills import tools

SKILL = "---\nname: {name}\ndescription: Rotate the nginx logs on the web hosts.\n---\n# Steps\n1. Run logrotate.\n"


class Clock:
    """time.time() as the test sets it: months pass in a line, no sleeping."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.now = time.time()
        monkeypatch.setattr(time, "time", lambda: self.now)

    def days(self, n: float) -> float:
        self.now += n * DAY
        return self.now


def agent_skill(settings: Settings, store: SessionStore, name: str = "rotate-logs") -> SkillManager:
    mgr = SkillManager(home_skills_dir(settings.home), store.db, actor="agent")
    mgr.create(name, SKILL.format(name=name), "learned from a session")
    return mgr


def view_as(store: SessionStore, settings: Settings, tmp_path: Path, source: str, name: str) -> None:
    sid = store.create_session("script", source=source)
    ctx = ToolContext(workspace=tmp_path, settings=settings, store=store, session_id=sid)
    assert ToolRegistry(tools()).call(ctx, "skill_view", {"name": name}).ok


def test_the_reviewers_reads_are_not_uses_and_do_not_reset_the_clock(
    settings: Settings, store: SessionStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Clock(monkeypatch)
    agent_skill(settings, store)
    clock.days(40)
    view_as(store, settings, tmp_path, "review", "rotate-logs")  # the reviewer reads it 40 days on
    st = stats(store.db)["rotate-logs"]
    assert (st.views, st.uses) == (0, 0)
    report = run_curator(settings, db=store.db, now=clock.now)
    assert [(a.kind, a.skills) for a in report.actions] == [("stale", ["rotate-logs"])]
    from grove.skills.usage import events

    assert [(e["kind"], e["actor"]) for e in events(store.db, "rotate-logs")][-1] == ("view", "reviewer")


def test_a_working_sessions_view_is_a_use_and_keeps_the_skill_fresh(
    settings: Settings, store: SessionStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Clock(monkeypatch)
    agent_skill(settings, store)
    clock.days(40)
    view_as(store, settings, tmp_path, "chat", "rotate-logs")
    st = stats(store.db)["rotate-logs"]
    assert (st.views, st.uses) == (1, 1)
    assert run_curator(settings, db=store.db, now=clock.days(1)).actions == []


def test_a_code_skill_run_every_day_is_never_archived(
    settings: Settings, store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Clock(monkeypatch)
    agent_skill(settings, store, "csv-sum")
    sid = store.create_session("script", source="cli")
    for _ in range(100):  # skill_run records kind 'run' for the session that ran it
        clock.days(1)
        record(store.db, "csv-sum", "run", sid, '{"path": "a.csv"}')
    assert run_curator(settings, db=store.db, now=clock.days(1)).actions == []
    assert discover(settings).get("csv-sum") is not None
    st = stats(store.db)["csv-sum"]
    assert (st.runs, st.uses) == (100, 1)  # one session used it, a hundred times


def test_a_restore_resets_the_clock(
    settings: Settings, store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Clock(monkeypatch)
    mgr = agent_skill(settings, store)
    report = run_curator(settings, db=store.db, now=clock.days(100))
    assert [a.kind for a in report.actions] == ["archive"]
    SkillManager(mgr.root, store.db, actor="user").restore("rotate-logs")  # the user wants it back
    again = run_curator(settings, db=store.db, now=clock.days(1))
    assert again.actions == [] and discover(settings).get("rotate-logs") is not None


def test_the_curators_own_patch_does_not_reset_the_clock(
    settings: Settings, store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Clock(monkeypatch)
    agent_skill(settings, store)
    clock.days(40)
    SkillManager(home_skills_dir(settings.home), store.db, actor="curator").patch(
        "rotate-logs", "Run logrotate.", "Run logrotate -f.", reason="tidy"
    )
    assert [a.kind for a in run_curator(settings, db=store.db, now=clock.now).actions] == ["stale"]


def test_history_starts_with_the_creation(
    settings: Settings, store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    mgr = agent_skill(settings, store)
    mgr.patch("rotate-logs", "Run logrotate.", "Run logrotate -f.", reason="force it")
    code, out, _ = grove(capsys, "skills", "history", "rotate-logs")
    lines = out.strip().splitlines()
    assert code == 0 and len(lines) == 2
    assert lines[0].startswith("v0") and "create" in lines[0] and "learned from a session" in lines[0]
    assert lines[1].startswith("v1") and "patch" in lines[1] and "force it" in lines[1]


def test_events_recorded_in_one_batch_count_as_the_same_events_one_by_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from grove.skills.usage import events, record_many
    from grove.store.db import Database

    Clock(monkeypatch)
    one, batch = Database(tmp_path / "one.db"), Database(tmp_path / "batch.db")
    names = [("pdf", "import from /x/pdf"), ("docx", "import from /x/docx")]
    for name, detail in names:
        record(one, name, "create", detail=detail, actor="import")
    record_many(batch, names, "create", "import")
    for name, _ in names:
        assert events(one, name) == events(batch, name) != []
    assert stats(one) == stats(batch)
    assert {s.created_by for s in stats(batch).values()} == {"import"}
