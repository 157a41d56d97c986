"""A dataset author's grader code, run in the sandbox (no network, time and memory caps, a scratch dir only):
`grade(output, expected, files)` returns a score or (score, feedback); it never runs in grove's own process."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from grove.evolve.attempt import Attempt, Grade, Grader, as_attempt
from grove.sandbox import Limits, make_scratch, run

PYTHON = "/usr/bin/python3"  # the system interpreter: the one the sandbox mounts
MARK = "@@grove-grade@@"
LIMITS = Limits(timeout=20.0, memory_mb=512, file_size_mb=16, output_bytes=200_000)
MAX_FILE_BYTES = 200_000  # workspace files handed to the grader, each

DRIVER = f"""import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("grader", "grader.py")
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
data = json.load(open("input.json", encoding="utf-8"))
value = getattr(mod, sys.argv[1])(data["output"], data["expected"], data["files"])
score, feedback = (value[0], value[1]) if isinstance(value, (tuple, list)) else (value, "")
print({MARK!r} + json.dumps({{"score": float(score), "feedback": str(feedback)[:500]}}))
"""


def _files(workspace: Path | None) -> dict[str, str]:
    if workspace is None or not workspace.is_dir():
        return {}
    out: dict[str, str] = {}
    for path in sorted(workspace.rglob("*")):
        if path.is_file() and path.stat().st_size <= MAX_FILE_BYTES:
            out[str(path.relative_to(workspace))] = path.read_text(encoding="utf-8", errors="replace")
    return out


def _verdict(stdout: str) -> dict[str, Any] | None:
    for line in reversed(stdout.splitlines()):
        if line.startswith(MARK):
            try:
                data = json.loads(line[len(MARK) :])
            except json.JSONDecodeError:
                return None
            return data if isinstance(data, dict) else None
    return None


def sandboxed_grader(path: Path, function: str, *, allow_unisolated: bool = False) -> Grader:
    if not path.is_file():
        raise ValueError(
            f"grader code not found: {path} (code:<file.py>:<function>, relative to the dataset)"
        )
    if not function.isidentifier():
        raise ValueError(f"grader function {function!r} is not a Python name")
    source = path.read_text(encoding="utf-8")

    def grade(attempt: Any, expected: Any) -> Grade:
        a: Attempt = as_attempt(attempt)
        scratch = make_scratch(prefix="grove-grader-")
        try:
            (scratch / "grader.py").write_text(source, encoding="utf-8")
            (scratch / "driver.py").write_text(DRIVER, encoding="utf-8")
            payload = {"output": a.answer, "expected": expected, "files": _files(a.workspace)}
            (scratch / "input.json").write_text(json.dumps(payload, default=str), encoding="utf-8")
            result = run([PYTHON, "-I", "-B", "driver.py", function], scratch, LIMITS, network=False,
                         unattended=True, allow_unisolated=allow_unisolated)  # fmt: skip
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        if result.refused:
            raise ValueError(f"the sandboxed grader could not run: {result.stderr.strip()}")
        data = _verdict(result.stdout)
        if data is None:
            tail = (result.stderr or result.stdout).strip().splitlines()[-1:] or ["no output"]
            return Grade(0.0, f"grader {path.name} failed: {tail[0][:300]}")
        return Grade(min(1.0, max(0.0, float(data["score"]))), str(data.get("feedback", "")))

    return grade
