"""The frozen file-tool red team (redteam/files_attempts.yaml): no escape from the workspace with nobody to ask or
with an approver who says deny; no setuid file, no write to grove's home, no config/state.db/environ read in any
mode, approvals off included. Held-out attempts run too (they were never tuned on)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "redteam"))

import files_harness as fh

from grove.config import Settings
from grove.security.approval.policy import SafetyPolicy
from grove.tools import files
from grove.tools.context import ToolContext
from grove.tools.registry import ToolError

ATTEMPTS = fh.load_attempts()
POSTBUILD = fh.load_attempts(fh.POSTBUILD)  # written after the defence, measured as they were
POLICIES = {
    "unattended": lambda: SafetyPolicy(unattended=True),
    "deny": lambda: SafetyPolicy(approver=lambda _r: "deny", approval_timeout=5),
    "approve": lambda: SafetyPolicy(approver=lambda _r: "once", approval_timeout=5),
    "off": lambda: SafetyPolicy(approval_mode="off"),
}


def call(arena: fh.Arena, mode: str, tool: str, args: dict[str, Any]) -> str:
    ctx = ToolContext(workspace=arena.ws, policy=POLICIES[mode](), settings=Settings(home=arena.home))
    try:
        return getattr(files, tool)(ctx, **args)
    except ToolError as e:
        return f"error: {e}"


def test_corpus_is_big_enough_and_has_a_held_out_part() -> None:
    assert len(ATTEMPTS) >= 60
    assert len({a.id for a in ATTEMPTS + POSTBUILD}) == len(ATTEMPTS + POSTBUILD)
    assert sum(a.heldout for a in ATTEMPTS) >= 10


@pytest.mark.parametrize("mode", fh.MODES)
@pytest.mark.parametrize("attempt", ATTEMPTS + POSTBUILD, ids=lambda a: a.id)
def test_attempt_is_held(
    attempt: fh.Attempt, mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if attempt.needs_root and os.geteuid() != 0:
        pytest.skip("making a device node needs root (CAP_MKNOD)")
    os.chmod(tmp_path, 0o755)
    monkeypatch.setenv("HOME", str(tmp_path / "arena" / "userhome"))
    monkeypatch.setenv(fh.ENV_VAR, fh.ENV_SECRET)
    out = fh.run_attempt(attempt, tmp_path / "arena", mode, call)
    assert out.escaped == [], out.result
    assert out.setuid == [] and out.home_writes == [] and out.hard_leaks == [], out.result
    assert out.special == [] and not out.hung and out.crashed == ""


def test_code_skill_outputs_are_confined_like_write_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, grove_home: Path
) -> None:
    """A code skill's new files are copied into the workspace the way write_file writes: never through a link
    out, never into an outside file's inode, never into grove's home, never setuid."""
    from grove.codeskills.invoke import _copy_out

    os.chmod(tmp_path, 0o2775 if os.geteuid() == 0 else 0o755)
    arena = fh.build_arena(tmp_path / "arena")
    monkeypatch.setenv("GROVE_HOME", str(arena.home))
    os.symlink(arena.outside, arena.ws / "out")
    os.link(arena.outside / "secret.txt", arena.ws / "hl.txt")
    scratch = tmp_path / "scratch"
    for rel, text in [
        ("out/new.txt", "PWNED"),
        ("hl.txt", "PWNED"),
        ("tool", "#!/bin/sh\nid\n"),
        ("ok.txt", "ok"),
    ]:
        (scratch / rel).parent.mkdir(parents=True, exist_ok=True)
        (scratch / rel).write_text(text)
    os.chmod(scratch / "tool", 0o4755)
    before = fh.snapshot([arena.outside, arena.home])
    written = _copy_out(scratch, arena.ws, {})
    assert fh.snapshot([arena.outside, arena.home]) == before
    assert sorted(written) == [
        "hl.txt",
        "ok.txt",
        "tool",
    ]  # hl.txt replaced as a new file, not written through
    assert not (arena.ws / "tool").stat().st_mode & 0o7000
    assert (arena.outside / "secret.txt").read_text() == "OUTSIDE_SECRET_1\n"
