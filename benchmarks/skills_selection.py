"""Skill selection: does skills_search put the right skill first for realistic task descriptions?

Library: benchmarks/data/skills/library (60 skills in Hermes Agent's category layout, some with Claude Code's
or Hermes Agent's extra keys). Tasks: tasks.yaml (120, looked at while tuning the search) and tasks_heldout.yaml
(30, written afterwards and never tuned on). Also, through the path the skills_search tool takes (state.db
catalog, FTS5 candidates, BM25F), the same tasks with and without 5,000 unrelated skills added to the library
(generated: hobbies, cooking, sport, music... nothing a task asks for), to show that a large library does not
crowd out the right skill. Run: python benchmarks/skills_selection.py [-v] [--distractors N]
"""

from __future__ import annotations

import inspect
import random
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


HOBBIES = [
    "sourdough",
    "bread",
    "croissant",
    "risotto",
    "ramen",
    "curry",
    "sushi",
    "tapas",
    "paella",
    "dumpling",
    "kimchi",
    "pesto",
    "lasagne",
    "tiramisu",
    "macaron",
    "brioche",
    "chutney",
    "falafel",
    "gazpacho",
    "goulash",
    "ceviche",
    "bonsai",
    "orchid",
    "tomato",
    "rose",
    "tulip",
    "lavender",
    "compost",
    "hedge",
    "lawn",
    "beehive",
    "chicken",
    "aquarium",
    "terrarium",
    "knitting",
    "crochet",
    "quilting",
    "embroidery",
    "origami",
    "calligraphy",
    "pottery",
    "woodcarving",
    "watercolour",
    "sketching",
    "violin",
    "cello",
    "guitar",
    "ukulele",
    "drums",
    "choir",
    "opera",
    "jazz",
    "chess",
    "sudoku",
    "crossword",
    "bridge",
    "poker",
    "mahjong",
    "marathon",
    "triathlon",
    "cycling",
    "rowing",
    "climbing",
    "surfing",
    "skiing",
    "snowboard",
    "tennis",
    "golf",
    "badminton",
    "fencing",
    "archery",
    "yoga",
    "pilates",
    "birdwatching",
    "stargazing",
    "fishing",
    "camping",
    "kayaking",
    "sailing",
    "genealogy",
    "scrapbook",
    "candle",
    "soap",
    "perfume",
    "wine",
    "cheese",
    "coffee",
    "tea",
    "cocktail",
]
ACTIVITIES = [
    "recipe",
    "guide",
    "tips",
    "basics",
    "etiquette",
    "history",
    "plan",
    "checklist",
    "journal",
    "season",
    "beginner",
    "advanced",
    "glossary",
    "troubleshooting",
    "kit",
    "budget",
    "schedule",
    "gift",
    "club",
    "contest",
    "diary",
    "shopping",
    "storage",
    "cleaning",
    "repair",
    "playlist",
    "trivia",
    "quiz",
    "routine",
    "warmup",
    "technique",
    "drills",
]


def distractors(n: int) -> list[tuple[str, str]]:
    """n unrelated skills as (name, SKILL.md text): hobby x activity, each with a plain description and body."""
    rng = random.Random(5)
    combos = [(h, a) for h in HOBBIES for a in ACTIVITIES]
    rng.shuffle(combos)
    out = []
    for k in range(n):
        hobby, act = combos[k % len(combos)]
        name = f"{hobby}-{act}" + (f"-{k // len(combos) + 1}" if k >= len(combos) else "")
        desc = f"A friendly {act} for {hobby} enthusiasts. Use when someone asks about {hobby} {act}."
        body = f"# {hobby.title()} {act}\n\n## Steps\n1. Gather what {hobby} needs.\n2. Follow the {act}.\n"
        out.append((name, f"---\nname: {name}\ndescription: {desc}\n---\n{body}"))
    return out


def through_the_tool(tasks: list[dict[str, str]], extra: int) -> tuple[float, float, float]:
    """top-1, top-3 and ms/query of search_skills (the tool's path) on a home holding the library + `extra`."""
    import os
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory(prefix="grove-selection-") as tmp:
        home = Path(tmp)
        for folder, category in iter_skill_dirs(DATA / "library"):
            dest = home / "skills" / category / folder.name if category else home / "skills" / folder.name
            shutil.copytree(folder, dest)
        for name, text in distractors(extra):
            (home / "skills" / "hobbies" / name).mkdir(parents=True)
            (home / "skills" / "hobbies" / name / "SKILL.md").write_text(text, encoding="utf-8")
        old = os.environ.get("GROVE_HOME")
        os.environ["GROVE_HOME"] = str(home)
        try:
            from grove.config import load_settings
            from grove.skills.search import search_skills

            settings = load_settings()
            search_skills(settings, None, "warm up")
            top1 = top3 = 0
            start = time.perf_counter()
            for t in tasks:
                ranked = [h.name for h in search_skills(settings, None, t["task"], limit=3)]
                top1 += bool(ranked) and ranked[0] == t["skill"]
                top3 += t["skill"] in ranked
            ms = (time.perf_counter() - start) / len(tasks) * 1000
        finally:
            if old is None:
                os.environ.pop("GROVE_HOME", None)
            else:
                os.environ["GROVE_HOME"] = old
    return top1 / len(tasks), top3 / len(tasks), ms


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
    extra = int(sys.argv[sys.argv.index("--distractors") + 1]) if "--distractors" in sys.argv else 5000
    base = through_the_tool(all_tasks, 0)
    crowded = through_the_tool(all_tasks, extra)
    for label, (t1, t3, ms) in ((f"tool path, {len(skills)} skills", base), (f"+{extra} unrelated", crowded)):
        print(f"{label:28} top1={t1:.1%}  top3={t3:.1%}  {ms:.1f} ms/query")
    print(
        f"tool_top1={base[0]:.3f} tool_top3={base[1]:.3f} distractors={extra} "
        f"tool_top1_crowded={crowded[0]:.3f} tool_top3_crowded={crowded[1]:.3f} "
        f"skills={len(skills)} tasks={n_all} top1_all={top1_all:.3f} top1_tuned={results['tuned'][1]:.3f} "
        f"top1_heldout={results['heldout'][1]:.3f} top3_all="
        f"{sum(r[0] * r[2] for r in results.values()) / n_all:.3f} hint_recall={recall:.3f} "
        f"false_hints={false_hints}/{len(CHITCHAT)}"
    )


if __name__ == "__main__":
    main()
