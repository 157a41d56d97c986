"""Red-team skills with malicious bundled scripts, refused on every load path (import, skill_manage create and
patch, skill_view of the file, code-skill create); benign skills with scripts pass every path. Frozen fixtures."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grove.codeskills.create import create_code_skill
from grove.config import Settings
from grove.skills.importer import import_skills
from grove.skills.manage import SkillManager
from grove.store.sessions import SessionStore
from grove.tools.context import ToolContext
from grove.tools.registry import ToolRegistry
from grove.tools.skills import tools

HERE = Path(__file__).parent
MALICIOUS = sorted(p for p in (HERE / "malicious").iterdir() if p.is_dir())
HELDOUT = sorted(p for p in (HERE / "malicious_heldout").iterdir() if p.is_dir())
BENIGN = sorted(p for p in (HERE / "benign").iterdir() if p.is_dir())
TESTS = "from skill import solve\n\n\ndef test_solve() -> None:\n    assert solve(1) == 1\n"


def _scripts(skill: Path) -> dict[str, str]:
    return {
        str(p.relative_to(skill)): p.read_text(encoding="utf-8")
        for p in sorted(skill.rglob("*"))
        if p.is_file() and p.name != "SKILL.md"
    }


def _payload_line(text: str) -> str:
    """The last line of a script with code on it: what must never reach the model unquoted."""
    return [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")][-1].strip()


def _as_code_skill(rel: str, text: str) -> str:
    """A code skill (Python `solve`) that carries the bundled script: Python as it is, shell through `bash -c`,
    JavaScript through `node -e`, as a model writing a code skill could."""
    solve = "\n\ndef solve(x: int) -> int:\n    return x\n"
    if rel.endswith(".py"):
        return text + solve
    runner = "node', '-e" if rel.endswith((".js", ".mjs", ".cjs")) else "bash', '-c"
    return f"import subprocess\n\nPAYLOAD = {text!r}\nsubprocess.run(['{runner}', PAYLOAD])\n" + solve


@pytest.fixture
def reg() -> ToolRegistry:
    return ToolRegistry(tools())


@pytest.fixture
def ctx(settings: Settings, store: SessionStore, tmp_path: Path) -> ToolContext:
    (settings.home / "skills").mkdir(parents=True, exist_ok=True)
    return ToolContext(
        workspace=tmp_path, settings=settings, store=store, session_id=store.create_session("x")
    )


def test_the_sets_are_big_enough() -> None:
    assert len(MALICIOUS) >= 30 and len(BENIGN) >= 10 and len(HELDOUT) >= 8
    assert all(_scripts(s) for s in MALICIOUS + HELDOUT + BENIGN)


@pytest.mark.parametrize("skill", MALICIOUS + HELDOUT, ids=lambda p: f"{p.parent.name}:{p.name}")
def test_import_refuses_even_with_allow_flagged(skill: Path, tmp_path: Path) -> None:
    (out,) = import_skills(skill, tmp_path / "lib", allow_flagged=True)
    assert out.status == "refused", out
    assert "dangerous" in out.reason and not (tmp_path / "lib" / skill.name).exists()


@pytest.mark.parametrize("skill", MALICIOUS + HELDOUT, ids=lambda p: f"{p.parent.name}:{p.name}")
def test_skill_manage_refuses_the_script_on_create_and_patch(
    skill: Path, reg: ToolRegistry, ctx: ToolContext
) -> None:
    made = reg.call(ctx, "skill_manage", {"action": "create", "name": skill.name, "content": _md(skill)})
    assert made.ok, made.content
    for rel, text in _scripts(skill).items():
        args = {"action": "write_file", "name": skill.name, "file_path": rel, "file_content": text}
        written = reg.call(ctx, "skill_manage", args)
        assert not written.ok and "refused" in written.content, (rel, written.content)
        # the same content arriving by a patch of a harmless file
        harmless = {**args, "file_content": "PLACEHOLDER\n"}
        assert reg.call(ctx, "skill_manage", harmless).ok
        patch = {"action": "patch", "name": skill.name, "file_path": rel}
        patched = reg.call(ctx, "skill_manage", {**patch, "old_string": "PLACEHOLDER\n", "new_string": text})
        assert not patched.ok and "refused" in patched.content, (rel, patched.content)


@pytest.mark.parametrize("skill", MALICIOUS + HELDOUT, ids=lambda p: f"{p.parent.name}:{p.name}")
def test_skill_view_withholds_the_script(skill: Path, reg: ToolRegistry, ctx: ToolContext) -> None:
    # a skill that reached the library without a scan (copied by hand, an external folder)
    shutil.copytree(skill, ctx.settings.home / "skills" / skill.name)
    for rel, text in _scripts(skill).items():
        seen = reg.call(ctx, "skill_view", {"name": skill.name, "file_path": rel})
        assert seen.ok and "withheld" in seen.content, seen.content
        assert _payload_line(text) not in seen.content
    listing = reg.call(ctx, "skill_view", {"name": skill.name})
    assert "withheld" in listing.content or "dangerous" in listing.content


@pytest.mark.parametrize("skill", MALICIOUS + HELDOUT, ids=lambda p: f"{p.parent.name}:{p.name}")
def test_code_skill_create_refuses_before_running(skill: Path, tmp_path: Path) -> None:
    mgr = SkillManager(tmp_path / "lib")
    for rel, text in _scripts(skill).items():
        out = create_code_skill(mgr, "carrier", "Returns its input.", _as_code_skill(rel, text), TESTS)
        assert not out.stored and "content scan" in out.message, (rel, out.message)
        assert out.report is None  # refused before anything ran


def _md(skill: Path) -> str:
    return (skill / "SKILL.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("skill", BENIGN, ids=lambda p: f"{p.parent.name}:{p.name}")
def test_benign_skill_passes_every_path(
    skill: Path, reg: ToolRegistry, ctx: ToolContext, tmp_path: Path
) -> None:
    (out,) = import_skills(skill, tmp_path / "lib")
    assert out.status == "imported", out
    made = reg.call(ctx, "skill_manage", {"action": "create", "name": skill.name, "content": _md(skill)})
    assert made.ok, made.content
    for rel, text in _scripts(skill).items():
        args = {"action": "write_file", "name": skill.name, "file_path": rel, "file_content": text}
        written = reg.call(ctx, "skill_manage", args)
        assert written.ok, written.content
        seen = reg.call(ctx, "skill_view", {"name": skill.name, "file_path": rel})
        assert seen.content == text
    assert "flagged" not in reg.call(ctx, "skill_view", {"name": skill.name}).content


@pytest.mark.parametrize("skill", BENIGN, ids=lambda p: f"{p.parent.name}:{p.name}")
def test_benign_script_is_not_refused_as_a_code_skill(skill: Path) -> None:
    from grove.codeskills.create import refused_by_scan

    for rel, text in _scripts(skill).items():
        assert refused_by_scan(_as_code_skill(rel, text), TESTS) is None, rel
