"""A one-shot `grove run` that writes no skill never imports the skill scanner (~50 ms of start-up).

Runs the CLI in a fresh interpreter on a scripted model and reads `sys.modules` at the end of the run.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"

# The scanner's modules by name, wherever the security package puts them (flat or in sub-packages).
SCANNER = re.compile(r"(^|\.)(skill_\w+|injection\w*|signal_gate|token_floods|skill_scan)(\.|$)")

_PROBE = """
import json, runpy, sys
sys.argv = ["grove", "run", "-m", "script:" + sys.argv[1], "hi"]
try:
    runpy.run_module("grove", run_name="__main__")
except SystemExit as exit:
    if exit.code not in (None, 0):
        raise
import grove
print(json.dumps({"file": grove.__file__, "modules": sorted(m for m in sys.modules if m.startswith("grove."))}))
"""


def _loaded_after_run(tmp_path: Path) -> tuple[str, list[str]]:
    script = tmp_path / "reply.yaml"
    script.write_text("- text: Hello there.\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GROVE_") and not k.endswith("_API_KEY")}
    env |= {"GROVE_HOME": str(tmp_path / "home"), "PYTHONPATH": str(SRC), "HOME": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, str(script)], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert lines[0] == "Hello there.", out.stdout
    probe = json.loads(lines[-1])
    return probe["file"], probe["modules"]


def test_one_shot_run_does_not_import_the_skill_scanner(tmp_path: Path) -> None:
    grove_file, modules = _loaded_after_run(tmp_path)
    assert grove_file.startswith(str(SRC)), f"probe imported grove from {grove_file}, not {SRC}"
    assert "grove.cli" in modules or any(m.startswith("grove.cli.") for m in modules)  # the CLI really ran
    scanner = [m for m in modules if m.startswith("grove.security") and SCANNER.search(m)]
    assert not scanner, f"a one-shot run imported the skill scanner: {scanner}; import it where it is used"
