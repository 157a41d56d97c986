"""Per-skill import limits are settings (skills.max_files, max_file_bytes, max_skill_bytes) and options; a skill
over one is reported as over a limit, naming the setting and the option, never dropped silently."""

from __future__ import annotations

import json
from pathlib import Path

from skillkit import write_skill

from clirun import grove
from grove.skills.importer import ImportLimits, import_with_summary


def _collection(root: Path) -> Path:
    small = write_skill(root, "small-one")
    (small / "scripts").mkdir()
    (small / "scripts" / "a.py").write_text("print('a')\n")
    big = write_skill(root, "many-files")
    (big / "references").mkdir()
    for i in range(5):
        (big / "references" / f"r{i}.md").write_text(f"Reference {i}.\n" + "x" * 3000)
    return root


def test_skill_bytes_limit_is_reported_with_its_setting(home: Path, tmp_path: Path) -> None:
    src = _collection(tmp_path / "src")
    outcomes, summary = import_with_summary(src, home / "skills", limits=ImportLimits(max_skill_bytes=10_000))
    status = {o.name: o for o in outcomes}
    over = status["many-files"]
    assert status["small-one"].status == "imported"
    assert over.status == "over-limit" and "skills.max_skill_bytes" in over.reason
    assert "--max-skill-bytes" in over.fix and "skills.max_skill_bytes" in over.fix
    assert summary.counts["over-limit"] == 1


def test_settings_set_the_limits_and_options_override_them(home: Path, tmp_path: Path, capsys) -> None:
    src = _collection(tmp_path / "src")
    (home / "config.yaml").write_text("skills:\n  max_files: 3\n")
    report = tmp_path / "r.json"
    code, out, _ = grove(capsys, "skills", "import", str(src), "--report", str(report))
    assert code == 0 and "1 imported" in out and "1 over-limit" in out
    [over] = [s for s in json.loads(report.read_text())["skills"] if s["status"] == "over-limit"]
    assert "6 files; at most 3" in over["reason"] and "skills.max_files" in over["reason"]
    code, out, _ = grove(capsys, "skills", "import", str(src), "--max-files", "10")
    assert code == 0 and "1 imported" in out and "over-limit" not in out  # small-one is now a duplicate


def test_a_bad_limit_setting_is_a_clear_error(home: Path, tmp_path: Path, capsys) -> None:
    src = _collection(tmp_path / "src")
    (home / "config.yaml").write_text("skills:\n  max_skill_bytes: 0\n")
    code, _, err = grove(capsys, "skills", "import", str(src))
    assert code != 0 and "max_skill_bytes" in err
