"""Importing a real community collection: how many skills, how fast, and why the rest were not imported.

Point it at a checkout (e.g. AgentWorkers/skills, a ClawHub archive of 18,000+ SKILL.md from 7,000 authors,
written out from its git mirror under /work/.mirror). It imports into a throwaway GROVE_HOME twice: cold (every
distinct file scanned), then again into an empty library with the same state.db (scan verdicts cached by content
hash; a changed grove.security invalidates them). Reports per verdict, wall and CPU seconds (with the scan
workers), and the acceptance ratio: imported / uniquely named skills that load leniently.
Run: python benchmarks/skills_import_real.py CHECKOUT [--max-depth N] [--max-skills N] [--on-conflict skip|rename]
(gabrielmoreira/agent-skills-mirror keeps skills 13 folders down: --max-depth 14.)
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path

from grove.skills.importer import ImportLimits, import_with_summary
from grove.store.db import Database


def cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", type=Path)
    parser.add_argument("--max-skills", type=int, default=None)
    parser.add_argument("--max-depth", type=int, default=ImportLimits().max_depth)
    parser.add_argument("--on-conflict", default="skip", choices=("skip", "rename"))
    parser.add_argument("--report", type=Path, default=None, help="write the cold run's verdicts here (JSON)")
    args = parser.parse_args()
    figures: dict[str, object] = {}
    with tempfile.TemporaryDirectory(prefix="grove-import-real-") as tmp:
        home = Path(tmp)
        db = Database(home / "state.db")
        for run in ("cold", "warm"):
            shutil.rmtree(home / "skills", ignore_errors=True)
            t, c = time.perf_counter(), cpu()
            outcomes, summary = import_with_summary(
                args.checkout,
                home / "skills",
                db,
                on_conflict=args.on_conflict,  # type: ignore[arg-type]
                limits=ImportLimits(max_depth=args.max_depth, max_skills=args.max_skills),
            )
            wall, spent = time.perf_counter() - t, cpu() - c
            print(f"{run}: {summary.line()}; {wall:.1f} s wall, {spent:.1f} s CPU; scan {summary.scan}")
            figures[f"{run}_s"] = round(wall, 1)
            figures[f"{run}_cpu_s"] = round(spent, 1)
            figures[f"{run}_scan_cached"] = summary.scan.get("cached", 0)
            if run == "cold":
                if args.report:
                    args.report.write_text(json.dumps([o.as_dict() for o in outcomes], ensure_ascii=False))
                considered = [o for o in outcomes if o.status not in ("over-limit", "hidden")]
                loadable = {o.original_name or o.name for o in considered if o.status != "invalid"}
                imported = sum(o.status == "imported" for o in outcomes)
                figures.update(summary.counts)
                figures["found"] = summary.found
                figures["unique_loadable"] = len(loadable)
                figures["imported_share"] = round(imported / max(len(loadable), 1), 3)
                for status in ("invalid", "refused", "quarantined", "duplicate"):
                    why = Counter(o.reason.split(": ")[0][:80] for o in outcomes if o.status == status)
                    print(f"  {status}: " + "; ".join(f"{n} x {r}" for r, n in why.most_common(3)))
                print(
                    f"  imported {imported} of {len(loadable)} uniquely named, leniently loadable skills "
                    f"({imported / max(len(loadable), 1):.1%}); every other SKILL.md has a verdict and a reason"
                )
        db.close()
    print(" ".join(f"{k}={v}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
