"""Write an evolved skill back through the SkillManager (the old version stays in history) and record it in the
run's manifest; `grove skills rollback NAME` undoes it. A run started from a folder writes that folder back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from grove.evolve.rundir import read_json, write_json
from grove.skills.manage import SkillManager


class WriteBackError(Exception):
    """The run cannot be applied; the message says why."""


def apply_run(run_dir: Path, skills_root: Path, force: bool = False) -> dict[str, Any]:
    run_dir = Path(run_dir)
    report = read_json(run_dir / "report.json")
    manifest = read_json(run_dir / "manifest.json")
    name = report["skill"]
    if report["chosen"] == 0:
        raise WriteBackError("the run chose the original: nothing to write back")
    if not report["promote"] and not force:
        why = report.get("test", {}).get("paired", {}).get("why_not") or "the 95% interval is not above zero"
        raise WriteBackError(f"the test-set gain does not count ({why}); --force to apply anyway")
    folder = Path(manifest.get("skill_path") or Path(skills_root) / name)
    if not (folder / "SKILL.md").is_file():
        raise WriteBackError(f"the evolved skill is gone: {folder / 'SKILL.md'} does not exist")
    # the skill's own root (its parent folder), so history and rollback sit next to it, wherever it lives
    manager = SkillManager(folder.parent, actor="evolve")
    name = folder.name
    current = (folder / "SKILL.md").read_bytes()
    if current != (run_dir / "original.md").read_bytes():
        raise WriteBackError(
            f"skill '{name}' changed since the run started; re-run evolution on the current version"
        )
    new_text = (run_dir / "chosen.md").read_text(encoding="utf-8")
    result = manager.edit(name, new_text, reason=f"grove evolve run {run_dir.name}")
    manifest["applied"] = {
        "skill": name,
        "path": str(folder),
        "candidate": report["chosen"],
        "message": result.message,
    }
    write_json(run_dir / "manifest.json", manifest)
    return manifest["applied"]
