"""Several processes writing one skill at once: no torn or invalid file, no lost version."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

from skillkit import skill_text, write_skill

from grove.skills.frontmatter import strict_problems
from grove.skills.history import version_dir, versions
from grove.skills.manage import SkillManager

WRITERS = 4
EDITS = 6


def _content(writer: int, i: int) -> str:
    # long enough that a torn write would be visible as a truncated or mixed body
    return skill_text(
        "shared", f"Version {writer}-{i}.", body=f"writer {writer} edit {i}\n" + "x" * 8_000 + "\n"
    )


def _writer(root: str, writer: int, start: multiprocessing.synchronize.Event) -> None:  # type: ignore[name-defined]
    start.wait()
    mgr = SkillManager(Path(root), None, actor="agent", session_id=f"w{writer}")
    for i in range(EDITS):
        mgr.edit("shared", _content(writer, i), f"w{writer} edit {i}")


def test_concurrent_writers_lose_nothing(skills_root: Path) -> None:
    initial = skill_text("shared", "Version 0.")
    write_skill(skills_root, "shared", initial)
    ctx = multiprocessing.get_context("fork")
    start = ctx.Event()
    procs = [ctx.Process(target=_writer, args=(str(skills_root), w, start)) for w in range(WRITERS)]
    for p in procs:
        p.start()
    start.set()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    current = (skills_root / "shared" / "SKILL.md").read_text()
    assert strict_problems(current, "shared") == []
    found = versions(skills_root, "shared")
    assert [v.number for v in found] == list(range(1, WRITERS * EDITS + 1))  # one version per write, no gaps
    kept = [(version_dir(skills_root, "shared", v.number) / "SKILL.md").read_text() for v in found]
    for text in kept:
        assert strict_problems(text, "shared") == []
    written = {_content(w, i) for w in range(WRITERS) for i in range(EDITS)}
    assert {*kept, current} == {initial, *written}  # every state is either kept in history or current
    assert not list(skills_root.glob("shared/.*.tmp"))
