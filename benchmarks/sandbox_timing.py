"""Cost of one sandboxed run per backend: `python3 -c 'print(1)'` and `/bin/true`, against no sandbox at all.

Usage: python benchmarks/sandbox_timing.py [--runs 50]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from grove.sandbox import detect_backend, make_scratch, run
from grove.sandbox.backend import landlock_info

PY = "/usr/bin/python3"


def timed(fn: object, runs: int) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95) - 1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    info = detect_backend()
    print(f"active backend: {info.name} ({info.reason})")
    parent = Path(tempfile.mkdtemp(prefix="grove-bench-"))
    ws = make_scratch(parent)
    figures: dict[str, float] = {}
    cases = {"python": [PY, "-c", "print(1)"], "true": ["/bin/true"]}
    for label, argv in cases.items():
        med, p95 = timed(lambda a=argv: subprocess.run(a, capture_output=True, check=True), args.runs)
        print(f"  {'none':<8} {label:<7} median {med:6.1f} ms   p95 {p95:6.1f} ms")
        figures[f"none_{label}_ms"] = med
    backends = list(dict.fromkeys([info.name, *(["landlock"] if landlock_info() else []), "rlimit"]))
    for backend in backends:
        for label, argv in cases.items():
            check = run(argv, ws, backend=backend)
            assert check.exit_code == 0, check.output
            med, p95 = timed(lambda a=argv, b=backend: run(a, ws, backend=b), args.runs)
            print(f"  {backend:<8} {label:<7} median {med:6.1f} ms   p95 {p95:6.1f} ms")
            figures[f"{backend}_{label}_ms"] = med
    shutil.rmtree(parent, ignore_errors=True)
    print(f"runs={args.runs} backend={info.name} " + " ".join(f"{k}={v:.1f}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
