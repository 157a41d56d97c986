"""Cost of one sandboxed run per backend: `python3 -c 'print(1)'` and `/bin/true`, against no sandbox at all
(cases interleaved, one run of each in turn).

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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    info = detect_backend()
    print(f"active backend: {info.name} ({info.reason})")
    parent = Path(tempfile.mkdtemp(prefix="grove-bench-"))
    ws = make_scratch(parent)
    cases = {"python": [PY, "-c", "print(1)"], "true": ["/bin/true"]}
    backends = list(dict.fromkeys([info.name, *(["landlock"] if landlock_info() else []), "rlimit"]))
    calls: dict[str, object] = {}
    for label, argv in cases.items():
        calls[f"none_{label}"] = lambda a=argv: subprocess.run(a, capture_output=True, check=True)
        for backend in backends:
            check = run(argv, ws, backend=backend)
            assert check.exit_code == 0, check.output
            calls[f"{backend}_{label}"] = lambda a=argv, b=backend: run(a, ws, backend=b)
    # round-robin, so that a change in the machine's load hits every case alike (it is shared and noisy)
    times: dict[str, list[float]] = {key: [] for key in calls}
    for _ in range(args.runs):
        for key, fn in calls.items():
            t = time.perf_counter()
            fn()  # type: ignore[operator]
            times[key].append((time.perf_counter() - t) * 1000)
    figures: dict[str, float] = {}
    for key, values in times.items():
        values.sort()
        med, p95 = statistics.median(values), values[int(len(values) * 0.95) - 1]
        backend, label = key.split("_")
        print(f"  {backend:<8} {label:<7} median {med:6.1f} ms   p95 {p95:6.1f} ms")
        figures[f"{key}_ms"] = med
    shutil.rmtree(parent, ignore_errors=True)
    print(f"runs={args.runs} backend={info.name} " + " ".join(f"{k}={v:.1f}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
