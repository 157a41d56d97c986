"""The structural red team per attack class and sandbox backend: attempts, escapes (failed tests), skips.

Runs tests/security/redteam/structural once with bubblewrap (when /usr/bin/bwrap exists) and once under
`.ci/without_bwrap` (Landlock); a class is a test file, its attempts the length of its ATTEMPTS list.
Usage: python benchmarks/security_structural.py [--only bwrap|landlock]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "tests" / "security" / "redteam" / "structural"
BWRAP = Path("/usr/bin/bwrap")

_COUNT = """
import importlib.util, json, sys
out = {}
for path in sys.argv[1:]:
    spec = importlib.util.spec_from_file_location("redteam_" + path.rsplit("/", 1)[-1][:-3], path)
    try:
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        out[path] = len(getattr(mod, "ATTEMPTS", []))
    except Exception as e:
        out[path] = -1
print(json.dumps(out))
"""


def attempts(files: list[Path]) -> dict[str, int]:
    """Each class's len(ATTEMPTS), read in a separate interpreter (-1: the file does not import)."""
    out = subprocess.run(
        [sys.executable, "-c", _COUNT, *map(str, files)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(FOLDER)])},
    )
    counts = json.loads(out.stdout.strip().splitlines()[-1]) if out.returncode == 0 else {}
    return {Path(p).stem: n for p, n in counts.items()}


def run(backend: str) -> dict[str, Counter[str]]:
    """Per class, how many tests passed, failed (escapes) and were skipped on this backend."""
    report = Path(tempfile.mkdtemp(prefix="grove-structural-")) / "junit.xml"
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        str(FOLDER),
        "-q",
        "-rA",
        "-p",
        "no:cacheprovider",
        f"--junitxml={report}",
    ]
    if backend == "landlock":
        cmd = ["bash", str(ROOT / ".ci" / "without_bwrap"), *cmd]
    subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if not report.exists():
        raise SystemExit(f"pytest wrote no report on {backend}: {' '.join(cmd)}")
    out: dict[str, Counter[str]] = {}
    for case in ET.parse(report).iter("testcase"):
        klass = case.get("classname", "").split(".")
        name = next((part for part in klass if part.startswith("test_")), klass[-1])
        tally = out.setdefault(name, Counter())
        if case.find("failure") is not None or case.find("error") is not None:
            tally["escapes"] += 1
        elif case.find("skipped") is not None:
            tally["skipped"] += 1
        else:
            tally["held"] += 1
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", choices=["bwrap", "landlock"])
    args = parser.parse_args()
    files = sorted(FOLDER.glob("test_*.py"))
    if not files:
        raise SystemExit(f"no red-team files in {FOLDER}")
    counts = attempts(files)
    backends = [b for b in ("bwrap", "landlock") if args.only in (None, b)]
    if "bwrap" in backends and not BWRAP.exists():
        print(f"bwrap: {BWRAP} is missing, skipped")
        backends.remove("bwrap")
    results = {b: run(b) for b in backends}
    print(f"{'class':<28} {'backend':<9} {'attempts':>8} {'tests':>6} {'escapes':>8} {'skipped':>8}")
    totals: Counter[str] = Counter()
    for f in files:
        for b in backends:
            t = results[b].get(f.stem, Counter())
            n = counts.get(f.stem, -1)
            tests = t["held"] + t["escapes"] + t["skipped"]
            shown = "?" if n < 0 else str(n)
            print(f"{f.stem:<28} {b:<9} {shown:>8} {tests:>6} {t['escapes']:>8} {t['skipped']:>8}")
            totals[f"{b}_escapes"] += t["escapes"]
            totals[f"{b}_tests"] += tests
            totals[f"{b}_skipped"] += t["skipped"]
    attempts_total = sum(n for n in counts.values() if n > 0)
    fields = [f"classes={len(files)}", f"attempts={attempts_total}"]
    fields += [f"{k}={v}" for k, v in sorted(totals.items())]
    print(" ".join(fields))


if __name__ == "__main__":
    main()
