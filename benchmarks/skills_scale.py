"""Skills at 10,000: `grove skills list` time, skills_search latency, system-prompt index tokens, FTS upkeep.

Builds a throwaway GROVE_HOME holding the 60 hand-written skills of benchmarks/data/skills/library plus generated
ones ("<tool>-<task>[-<variant>]" in 20 categories, bodies with headings and steps) up to 10,000, then measures:
- `grove skills list` as a user runs it (a new process; first run builds the catalog, then warm), wall and CPU;
- skills_search (the tool's path: FTS5 candidates + BM25F) over 150 labelled task texts, p50/p95 in process;
- the system-prompt skills index at 1,000 and 10,000 skills in cl100k tokens, and whether two builds are equal;
- one SKILL.md edited: how long the next discover takes to re-parse it and update its FTS row.
Run: python benchmarks/skills_scale.py [--n 10000]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from skills_index import generated, real_skills  # benchmarks/skills_index.py, beside this script
from tokens import count_tokens

DATA = Path(__file__).parent / "data" / "skills"


def write_library(skills_dir: Path, n: int) -> None:
    real = real_skills()
    for s in real:
        shutil.copytree(s.path, skills_dir / s.name)
    for s in generated(n - len(real), {s.name for s in real}):
        d = skills_dir / s.name
        d.mkdir(parents=True)
        tool, task = s.name.split("-")[0], s.name.split("-")[1]
        body = (
            f"\n# {s.name}\n\n## When to use\n{s.description}\n\n## Steps\n1. Check the {tool} version.\n"
            f"2. Run the {task} procedure for {tool} and read its output.\n3. Verify, then record what changed.\n"
        )
        fm = {"name": s.name, "description": s.description, "metadata": {"grove.category": s.category}}
        (d / "SKILL.md").write_text(
            f"---\n{yaml.safe_dump(fm, sort_keys=False)}---\n{body}", encoding="utf-8"
        )


def timed_cli(env: dict[str, str], *args: str) -> tuple[float, float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    # This interpreter, not the `grove` on PATH: a version manager's shim there (pyenv's is a bash script) adds
    # ~0.1 s that an installed grove (a venv's or pipx's console script) never pays.
    command = [sys.executable, "-m", "grove", *args]
    out = subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10000)
    args = parser.parse_args()
    figures: dict[str, float | int] = {"skills": args.n}
    with tempfile.TemporaryDirectory(prefix="grove-skills-scale-") as tmp:
        home = Path(tmp) / "home"
        write_library(home / "skills", args.n)
        env = {**os.environ, "GROVE_HOME": str(home)}
        for label in ("cold", "warm", "warm2"):
            wall, cpu, out = timed_cli(env, "skills", "list")
            rows = out.count("\n") - 1
            print(f"grove skills list ({label}): {wall:.2f} s wall, {cpu:.2f} s CPU, {rows} skills listed")
            figures[f"list_{label}_s"] = round(wall, 2)
            figures[f"list_{label}_cpu_s"] = round(cpu, 2)
        os.environ["GROVE_HOME"] = str(home)
        from grove.config import load_settings
        from grove.skills.discover import discover
        from grove.skills.index import skills_index_text
        from grove.skills.search import search_skills

        settings = load_settings()
        tasks = [
            t["task"]
            for f in ("tasks.yaml", "tasks_heldout.yaml")
            for t in yaml.safe_load((DATA / f).read_text())
        ]
        search_skills(settings, None, "warm up")
        lat, cpu = [], []
        for q in tasks * 2:
            t, c = time.perf_counter(), time.process_time()
            search_skills(settings, None, q)
            lat.append((time.perf_counter() - t) * 1000)
            cpu.append((time.process_time() - c) * 1000)
        lat.sort()
        cpu.sort()
        p50, p95, cpu95 = (
            statistics.median(lat),
            lat[int(0.95 * (len(lat) - 1))],
            cpu[int(0.95 * (len(cpu) - 1))],
        )
        print(
            f"skills_search over {args.n} skills: p50 {p50:.1f} ms, p95 {p95:.1f} ms wall, p95 {cpu95:.1f} ms CPU "
            f"({len(lat)} queries; wall includes waiting for a busy machine)"
        )
        figures.update(
            search_p50_ms=round(p50, 1), search_p95_ms=round(p95, 1), search_p95_cpu_ms=round(cpu95, 1)
        )
        first = skills_index_text(settings, home)
        second = subprocess.run(
            [
                sys.executable,
                "-c",
                "from grove.config import load_settings; from grove.skills.index import "
                f"skills_index_text; print(skills_index_text(load_settings(), {str(home)!r}), end='')",
            ],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        figures[f"prompt_tokens_{args.n}"] = count_tokens(first)
        figures["byte_stable"] = int(first == second)
        print(
            f"system-prompt index at {args.n}: {count_tokens(first)} tokens; same bytes in a new process: {first == second}"
        )
        victim = sorted((home / "skills").iterdir())[len(tasks)]
        text = (victim / "SKILL.md").read_text()
        (victim / "SKILL.md").write_text(text.replace("## Steps", "## Steps\nzanzibarquux first.\n"))
        t = time.perf_counter()
        discover(settings, None)
        upkeep = (time.perf_counter() - t) * 1000
        found = search_skills(settings, None, "zanzibarquux")
        print(
            f"one SKILL.md edited: next discover {upkeep:.0f} ms; found by its new word: {[h.name for h in found]}"
        )
        figures["edit_sync_ms"] = round(upkeep)
        figures["fts_incremental_ok"] = int(bool(found) and found[0].name == victim.name)
        skills_dir = home / "skills"
        keep = sorted(p.name for p in skills_dir.iterdir())
        random.Random(1).shuffle(keep)
        for name in keep[1000:]:
            shutil.rmtree(skills_dir / name)
        small = skills_index_text(settings, home)
        figures["prompt_tokens_1000"] = count_tokens(small)
        print(f"system-prompt index at 1000: {count_tokens(small)} tokens")
    print(" ".join(f"{k}={v}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
