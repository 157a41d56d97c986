"""What the goal judge gets to see: long synthetic goals (10-40 turns, each writing a file, running a command and
stating a value and a decision at random places in its long answer, with long tool output) rendered for the judge the old way (the
last turn only, cut to 8,000 characters) and the new way (the goal's whole history folded to the judge's budget).
Counts, over seeds, the planted facts of every turn that the judge's view still holds, and its size.

Usage: python benchmarks/goal_judge.py [--seeds 30] [--budget 48000]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from dataclasses import dataclass

from grove.goals.history import render_history
from grove.llm.types import Message

OLD_CHARS = 8_000  # the judge's window before issue 15


def old_view(messages: list[Message]) -> str:
    """The judge's view before issue 15: the last turn only, its tail within 8,000 characters."""
    start = max(i for i, m in enumerate(messages) if m["role"] == "user")
    lines = []
    for m in messages[start:]:
        text = str(m.get("content") or "")
        if m["role"] == "user":
            lines.append(f"REQUEST: {text[:1500]}")
        elif m["role"] == "tool":
            lines.append(f"RESULT: {text[:600]}")
        else:
            lines += [
                f"CALL {c['function']['name']}({c['function']['arguments'][:120]})"
                for c in m.get("tool_calls") or []
            ]
            if text:
                lines.append(f"AGENT: {text[:3000]}")
    out = "\n".join(lines)
    return out if len(out) <= OLD_CHARS else out[-OLD_CHARS:]


@dataclass
class Goal:
    messages: list[Message]
    files: list[str]
    values: list[str]
    decisions: list[str]


def synthetic_goal(rng: random.Random) -> Goal:
    turns = rng.randint(10, 40)
    g = Goal([], [], [], [])
    for t in range(turns):
        path = f"src/part_{t}_{rng.randrange(10_000)}.py"
        value = f"RETRIES_{t} = {rng.randrange(1, 999)}"
        decision = f"We decided to keep module {t} on the {rng.choice(['sync', 'async', 'batch'])} path because it is simpler."
        g.files.append(path)
        g.values.append(value)
        g.decisions.append(decision)
        request = (
            "migrate the service to the new queue"
            if t == 0
            else f"[grove goal g-1 · turn {t + 1}] Continuing"
        )
        write = json.dumps({"path": path, "content": "def f():\n    return 1\n" * 40})
        run = json.dumps({"command": f"pytest tests/test_part_{t}.py -q"})
        g.messages += [
            {"role": "user", "content": request},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"w{t}",
                        "type": "function",
                        "function": {"name": "write_file", "arguments": write},
                    },
                    {"id": f"r{t}", "type": "function", "function": {"name": "terminal", "arguments": run}},
                ],
            },
            {"role": "tool", "tool_call_id": f"w{t}", "name": "write_file", "content": f"wrote {path}"},
            {
                "role": "tool",
                "tool_call_id": f"r{t}",
                "name": "terminal",
                "content": "exit=0\n" + "." * 4000 + "\n12 passed",
            },
            {
                "role": "assistant",
                "content": _answer(rng, t, value, decision),
            },
        ]
    return g


def _answer(rng: random.Random, t: int, value: str, decision: str) -> str:
    """A long answer with the value and the decision at random places in it (not always at its start)."""
    filler = ["The step went as planned.", "Nothing else changed here.", "The output looked as expected."]
    sentences = [rng.choice(filler) for _ in range(110)]
    for fact in (value + ".", decision):
        sentences.insert(rng.randrange(len(sentences) + 1), fact)
    return f"Done with part {t}. " + " ".join(sentences)


def kept(view: str, items: list[str]) -> float:
    return sum(1 for i in items if i in view) / len(items)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=30)
    ap.add_argument("--budget", type=int, default=48_000, help="judge history chars (48000: a 32K+ window)")
    a = ap.parse_args()
    rows: dict[str, dict[str, list[float]]] = {"old": {}, "new": {}}
    for seed in range(a.seeds):
        g = synthetic_goal(random.Random(seed))
        full = sum(len(str(m.get("content") or "")) for m in g.messages)
        for name, view in (("old", old_view(g.messages)), ("new", render_history(g.messages, a.budget))):
            r = rows[name]
            r.setdefault("files", []).append(kept(view, g.files))
            r.setdefault("values", []).append(kept(view, g.values))
            r.setdefault("decisions", []).append(kept(view, g.decisions))
            r.setdefault("first_request", []).append(float("migrate the service" in view))
            r.setdefault("chars", []).append(len(view))
            r.setdefault("ratio", []).append(len(view) / full)
    print(f"{a.seeds} synthetic goals of 10-40 turns; judge budget {a.budget:,} characters")
    print(
        f"{'view':<5} {'files':>7} {'values':>7} {'decisions':>9} {'1st req':>8} {'chars':>8} {'of history':>10}"
    )
    summary = {}
    for name, r in rows.items():
        m = {k: statistics.mean(v) for k, v in r.items()}
        print(
            f"{name:<5} {m['files']:>7.1%} {m['values']:>7.1%} {m['decisions']:>9.1%} {m['first_request']:>8.0%}"
            f" {m['chars']:>8,.0f} {m['ratio']:>10.1%}"
        )
        summary.update({f"{name}_{k}": round(v, 3) for k, v in m.items() if k != "chars"})
        summary[f"{name}_chars"] = round(m["chars"])
    print(" ".join(f"{k}={v}" for k, v in summary.items()))


if __name__ == "__main__":
    main()
