"""Running a code skill's tests, or its `solve`, in the sandbox: no network, time and memory limits, scratch only."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grove.codeskills import harness
from grove.codeskills.layout import CODE_FILE, TEST_FILE
from grove.sandbox import Limits, Result, make_scratch, run

PYTHON = "/usr/bin/python3"  # the system interpreter: the one the sandbox mounts
# max_processes stays at the sandbox's default: as root every run whose scratch dir belongs to the sandbox group
# shares one uid, and RLIMIT_NPROC counts all of its processes (a low cap fails bwrap's fork when runs overlap)
TEST_LIMITS = Limits(timeout=20.0, memory_mb=512, file_size_mb=16, output_bytes=200_000)
RUN_LIMITS = Limits(timeout=60.0, memory_mb=1024, file_size_mb=256, output_bytes=200_000)
TAIL = 2000


@dataclass
class TestReport:
    """What a test run said: passing and failing tests, or the problem that stopped it."""

    passed: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    idle: list[str] = field(default_factory=list)  # passed without ever calling solve
    problem: str | None = None  # timeout, crash, import error: no test verdict at all
    output: str = ""  # what the code printed (tail)

    @property
    def ok(self) -> bool:
        """Every test passed and at least one of them exercised `solve`."""
        return self.problem is None and not self.failed and len(self.passed) > len(self.idle)

    def explain(self) -> str:
        if self.problem:
            text = f"tests did not run to the end: {self.problem}"
        elif self.failed:
            text = (
                f"{len(self.failed)} of {len(self.failed) + len(self.passed)} test(s) failed:\n"
                + "\n".join(f"--- {name}\n{error}" for name, error in self.failed)
            )
        elif not self.passed:
            text = "no test ran: write test_* functions in the tests that call solve(...) and assert on the result"
        elif not self.ok:
            text = "no passing test calls solve; every skill needs at least one test of its own that calls solve(...)"
        else:
            text = f"{len(self.passed)} test(s) passed: {', '.join(self.passed)}"
        if self.output.strip() and not self.ok:
            text += f"\noutput:\n{self.output.strip()[-TAIL:]}"
        return text


def _report(result: Result) -> dict[str, Any] | None:
    for line in reversed(result.stdout.splitlines()):
        if line.startswith(harness.MARK):
            try:
                data = json.loads(line[len(harness.MARK) :])
            except json.JSONDecodeError:
                return None
            return data if isinstance(data, dict) else None
    return None


def _why_no_report(result: Result, limits: Limits) -> str:
    if result.timed_out:
        return f"killed after {limits.timeout:g}s (an endless loop, or far too slow)"
    if result.exit_code is not None and result.exit_code < 0:
        return f"killed by signal {-result.exit_code} (a resource limit: memory, file size, CPU time)"
    return f"the process exited with code {result.exit_code} before reporting (it may have called exit())"


def _install(scratch: Path, sub: str, code: str, tests: str | None) -> Path:
    """Write the harness and the skill's scripts under scratch/sub; returns that folder."""
    base = scratch / sub if sub else scratch
    (base / "scripts").mkdir(parents=True, exist_ok=True)
    (base / harness.FILE_NAME).write_text(harness.SOURCE, encoding="utf-8")
    (base / CODE_FILE).write_text(code, encoding="utf-8")
    if tests is not None:
        (base / TEST_FILE).write_text(tests, encoding="utf-8")
    return base


def run_tests(
    code: str,
    tests: str,
    limits: Limits = TEST_LIMITS,
    backend: str | None = None,
    *,
    unattended: bool = False,
    allow_unisolated: bool = False,
) -> TestReport:
    """Run `tests` against `code` in a fresh scratch dir (the only writable place), without network."""
    scratch = make_scratch(prefix="grove-codeskill-")
    try:
        _install(scratch, "", code, tests)
        argv = [PYTHON, "-I", "-B", harness.FILE_NAME, "test", "scripts"]
        result = run(argv, scratch, limits, network=False, backend=backend, unattended=unattended,
                     allow_unisolated=allow_unisolated)  # fmt: skip
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    out = result.stderr[-TAIL:]
    data = _report(result)
    if data is None:
        return TestReport(problem=_why_no_report(result, limits), output=out)
    if not data.get("ok"):
        return TestReport(problem=f"{data.get('stage')} failed:\n{data.get('error')}", output=out)
    report = TestReport(output=out)
    for t in data.get("tests", []):
        if t.get("ok"):
            report.passed.append(str(t["name"]))
            if not t.get("called"):
                report.idle.append(str(t["name"]))
        else:
            report.failed.append((str(t["name"]), str(t.get("error"))))
    return report


@dataclass
class CallOutcome:
    ok: bool
    result: Any = None
    error: str = ""
    output: str = ""  # what solve printed (tail)


def call_solve(
    code: str,
    args: dict[str, Any],
    scratch: Path,
    limits: Limits = RUN_LIMITS,
    backend: str | None = None,
    sub: str = ".grove-skill",
    *,
    unattended: bool = False,
    allow_unisolated: bool = False,
) -> CallOutcome:
    """Call `solve(**args)` with `scratch` as working dir (the only writable place); the skill sits in scratch/sub."""
    base = _install(scratch, sub, code, None)
    try:
        (base / "args.json").write_text(json.dumps(args), encoding="utf-8")
        argv = [
            PYTHON,
            "-I",
            "-B",
            f"{sub}/{harness.FILE_NAME}",
            "call",
            f"{sub}/scripts",
            f"{sub}/args.json",
        ]
        result = run(argv, scratch, limits, network=False, backend=backend, unattended=unattended,
                     allow_unisolated=allow_unisolated)  # fmt: skip
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return outcome_of(result, limits)


def outcome_of(result: Result, limits: Limits, merged: bool = False) -> CallOutcome:
    """What a `call` run of the harness reported; `merged`: the skill's prints share stdout with the report
    (a backend's command runner merges the two streams)."""
    printed = result.stdout if merged else result.stderr
    out = "".join(ln for ln in printed.splitlines(True) if not ln.startswith(harness.MARK))[-TAIL:]
    data = _report(result)
    if data is None:
        return CallOutcome(False, error=_why_no_report(result, limits), output=out)
    if not data.get("ok"):
        return CallOutcome(False, error=f"{data.get('stage')} failed:\n{data.get('error')}", output=out)
    return CallOutcome(True, result=data.get("result"), output=out)
