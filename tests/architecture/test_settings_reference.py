"""docs/SETTINGS.md is what `python -m grove.config.reference` writes from the config dataclasses (CI checks it).

After adding or changing a setting, regenerate it: `python -m grove.config.reference` from the repository's root.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

from grove.config import Settings
from grove.config.reference import render, sections

ROOT = Path(__file__).resolve().parents[2]
SETTINGS_MD = ROOT / "docs" / "SETTINGS.md"


def test_the_checked_in_reference_is_what_the_code_generates() -> None:
    assert SETTINGS_MD.read_text(encoding="utf-8") == render(), (
        "docs/SETTINGS.md is out of date: run `python -m grove.config.reference` from the repository's root"
    )


def test_every_setting_has_a_row() -> None:
    """Each leaf field of Settings, sections and mappings of sections included, is one row of the reference."""
    keys = {row[0] for s in sections() for row in s.rows}
    assert "retry.attempts" in keys and "security.approval_mode" in keys
    assert "providers.<name>.key_env" in keys and "mcp.servers.<name>.trust" in keys
    assert "home" not in keys  # GROVE_HOME says where the settings are; it is not one
    top = {f.name for f in dataclasses.fields(Settings)} - {"home"}
    assert top <= {k.split(".")[0] for k in keys}


def test_the_check_fails_on_a_stale_file(tmp_path: Path) -> None:
    stale = tmp_path / "SETTINGS.md"
    stale.write_text(render().replace("retry.attempts", "retry.tries"), encoding="utf-8")
    run = [sys.executable, "-m", "grove.config.reference", "--check", str(stale)]
    out = subprocess.run(run, capture_output=True, text=True, timeout=60)
    assert out.returncode == 1 and "out of date" in out.stderr
    fresh = tmp_path / "fresh.md"
    assert subprocess.run([*run[:3], str(fresh)], capture_output=True, timeout=60).returncode == 0
    assert fresh.read_text(encoding="utf-8") == render()
