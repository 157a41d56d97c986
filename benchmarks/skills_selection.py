"""Skill selection: does skills_search put the right skill first for realistic task descriptions?

Library: benchmarks/data/skills/library (60 skills in Hermes Agent's category layout, some with Claude Code's
or Hermes Agent's extra keys). Tasks: tasks.yaml (120, looked at while tuning the search) and tasks_heldout.yaml
(30, written afterwards and never tuned on). Run: python benchmarks/skills_selection.py [-v]
"""

from __future__ import annotations

import inspect
import sys
import time
from pathlib import Path

import yaml

from grove.skills.discover import iter_skill_dirs
from grove.skills.search import SkillSearchIndex, relevant_skills
from grove.skills.skill import load_skill

DATA = Path(__file__).parent / "data" / "skills"
MIN_SCORE = inspect.signature(relevant_skills).parameters["min_score"].default


def load_library() -> list:
    return [load_skill(folder, "home", category) for folder, category in iter_skill_dirs(DATA / "library")]


def evaluate(
    index: SkillSearchIndex, tasks: list[dict[str, str]], verbose: bool
) -> tuple[float, float, float]:
    top1 = top3 = rr = 0.0
    for t in tasks:
        ranked = [h.name for h in index.search(t["task"], limit=10)]
        rank = ranked.index(t["skill"]) + 1 if t["skill"] in ranked else None
        top1 += rank == 1
        top3 += rank is not None and rank <= 3
        rr += 1 / rank if rank else 0
        if verbose and rank != 1:
            print(f"  miss: want {t['skill']}, got {ranked[:3]} for {t['task']!r}")
    n = len(tasks)
    return top1 / n, top3 / n, rr / n


CHITCHAT = [
    "hello",
    "who are you?",
    "thanks, that's all",
    "what's the capital of France",
    "tell me a joke about cats",
    "how are you today",
    "summarise what we did so far",
    "what time is it in Tokyo",
    "translate 'good morning' into Spanish",
    "can you explain recursion simply",
]


def hint_figures(index: SkillSearchIndex, tasks: list[dict[str, str]]) -> tuple[float, int]:
    """What relevant_skills() would attach to the user message: recall on tasks, false hints on small talk."""

    def hints(text: str) -> list[str]:
        return [h.name for h in index.search(text, 2) if h.score >= MIN_SCORE]

    recall = sum(t["skill"] in hints(t["task"]) for t in tasks) / len(tasks)
    return recall, sum(bool(hints(c)) for c in CHITCHAT)


def main() -> None:
    verbose = "-v" in sys.argv
    skills = load_library()
    index = SkillSearchIndex(skills)
    names = {s.name for s in skills}
    results = {}
    all_tasks: list[dict[str, str]] = []
    for label, file in (("tuned", "tasks.yaml"), ("heldout", "tasks_heldout.yaml")):
        tasks = yaml.safe_load((DATA / file).read_text(encoding="utf-8"))
        unknown = {t["skill"] for t in tasks} - names
        if unknown:
            raise SystemExit(f"{file} names skills not in the library: {sorted(unknown)}")
        all_tasks += tasks
        start = time.perf_counter()
        top1, top3, mrr = evaluate(index, tasks, verbose)
        per_query_ms = (time.perf_counter() - start) / len(tasks) * 1000
        results[label] = (len(tasks), top1, top3, mrr)
        print(
            f"{label:8} tasks={len(tasks):3}  top1={top1:.1%}  top3={top3:.1%}  mrr={mrr:.3f}  {per_query_ms:.2f} ms/query"
        )
    n_all = sum(r[0] for r in results.values())
    top1_all = sum(r[0] * r[1] for r in results.values()) / n_all
    print(f"library={len(skills)} skills; all tasks={n_all}  top1={top1_all:.1%}")
    recall, false_hints = hint_figures(index, all_tasks)
    print(
        f"relevance hint (k=2, score >= {MIN_SCORE}): right skill hinted for {recall:.1%} of tasks; "
        f"{false_hints}/{len(CHITCHAT)} small-talk messages got a hint"
    )
    print(
        f"skills={len(skills)} tasks={n_all} top1_all={top1_all:.3f} top1_tuned={results['tuned'][1]:.3f} "
        f"top1_heldout={results['heldout'][1]:.3f} top3_all="
        f"{sum(r[0] * r[2] for r in results.values()) / n_all:.3f} hint_recall={recall:.3f} "
        f"false_hints={false_hints}/{len(CHITCHAT)}"
    )


if __name__ == "__main__":
    main()
