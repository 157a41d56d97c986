"""A GROVE_HOME with something on every dashboard page: sessions with usage, a skill with versions, memory
entries, kanban tasks and an evolution run."""

from __future__ import annotations

from pathlib import Path

from grove.config import Settings
from grove.evolve.rundir import runs_root, write_json
from grove.kanban.open import board_location, open_board
from grove.llm.types import Usage
from grove.memory.files import MemoryFiles
from grove.skills.manage import SkillManager
from grove.store.sessions import SessionStore

SKILL = """---
name: git-tidy
description: Tidy a feature branch before review (squash fixups, rebase on main).
---
# git-tidy

1. `git fetch origin`
2. `git rebase -i origin/main` and squash the fixup commits
3. run the tests
"""


def report() -> dict[str, object]:
    def cand(i: int, origin: str, acc: float, tokens: float, front: bool, at: int) -> dict[str, object]:
        return {
            "index": i,
            "origin": origin,
            "parents": [] if i == 0 else [0],
            "bytes": 400 + 30 * i,
            "val": {"accuracy": acc, "tokens": tokens, "robustness": 0.6 + 0.1 * i},
            "on_front": front,
            "gate": {"ok": True, "reasons": []},
            "dropped": None,
            "discovered_at": at,
        }

    return {
        "skill": "git-tidy",
        "candidates": [
            cand(0, "original", 0.55, 900, False, 0),
            cand(1, "reflective", 0.70, 820, True, 12),
            cand(2, "reflective", 0.80, 760, True, 30),
            cand(3, "crossover", 0.75, 700, True, 41),
        ],
        "chosen": 2,
        "test": {
            "before": {"accuracy": 0.5, "tokens": 910, "n": 20},
            "after": {"accuracy": 0.75, "tokens": 770, "n": 20},
            "paired": {"diff": 0.25, "ci_low": 0.05, "ci_high": 0.45, "mcnemar_p": 0.03},
        },
        "promote": True,
        "metric_calls": 60,
        "tokens_spent": 48200,
        "model_calls": 75,
    }


def seed(settings: Settings) -> dict[str, str]:
    store = SessionStore.open(settings.db_path)
    try:
        sid = store.create_session("script:echo", title="Tidy the release branch", source="cli")
        store.add_message(sid, {"role": "user", "content": "please tidy the release branch before review"})
        store.add_message(
            sid,
            {"role": "assistant", "content": "Squashed 3 fixup commits and rebased on main; tests pass."},
        )
        store.add_usage(sid, Usage(1200, 85), cost_usd=0.0042)
        other = store.create_session("script:echo", title="Weekly report", source="api")
        store.add_message(other, {"role": "user", "content": "summarise this week's merged pull requests"})
        store.add_message(other, {"role": "assistant", "content": "Seven PRs merged."})
        store.add_usage(other, Usage(800, 40), cost_usd=0.0021)
        manager = SkillManager(settings.home / "skills", store.db, actor="reviewer")
        manager.create("git-tidy", SKILL, reason="learned from a session")
        manager.patch(
            "git-tidy", "run the tests", "run the tests (`pytest -q`)", reason="say how to run them"
        )
        manager.patch(
            "git-tidy",
            "3. run the tests (`pytest -q`)",
            "3. run the tests (`pytest -q`)\n4. push with `git push --force-with-lease` (never plain --force)",
            reason="push safely",
        )
    finally:
        store.db.close()
    files = MemoryFiles(settings.home)
    files.path("memory").parent.mkdir(parents=True, exist_ok=True)
    files.path("memory").write_text(
        "The repo uses pytest.\n§\nReleases are tagged vX.Y.Z.\n", encoding="utf-8"
    )
    files.path("user").write_text("Prefers short answers.\n", encoding="utf-8")
    board = open_board(board_location(None, settings.home))
    board.add("Write the release notes", priority=2)
    board.add("Check the changelog links")
    close = getattr(board, "close", None)
    if close:
        close()
    run = runs_root(settings.home) / "git-tidy-20261130-101500"
    run.mkdir(parents=True)
    write_json(run / "report.json", report())
    return {"session": sid, "run": run.name}


def home_of(settings: Settings) -> Path:
    return settings.home
