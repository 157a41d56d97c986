"""Failure memory on a stream where each mistake is invited again: six task classes, each with a trap (three a
verifier catches after the fact, three a tool error the agent works around), and two near neighbours without a trap
(a note of the trap next door shown there is a wrong note), three instances each, run round by
round through `grove batch` (kanban workers against a fake OpenAI-compatible server), learning off vs on.

The model is a stand-in policy, not a language model: for each task it takes the trap's wrong approach unless its
prompt carries a failure note naming that class's own mistake, then it takes the right one. So the figures do
not say whether a real model heeds a note; they measure the rest of the loop end to end: is the failure noted
(by the batch's verifier labels, or in the worker's session), is the note found for the next instance of the same
task and for no other, and does it reach the prompt. Rounds run one after another (round r+1 sees round r's notes);
within a round cards run in parallel (`--jobs`).

Run: python benchmarks/learning/failure_memory.py [--seeds 1,2] [--jobs 1,3] [--instances 3]
Last line: key=value figures (later = instances 2 and up).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.fakes.openai_server import FakeOpenAIServer, FakeReply, Handler  # noqa: E402

HINT = "Earlier attempts at similar tasks failed"
CLASSES = 8  # six with a trap, two near neighbours without one
NEIGHBOURS = ("price-total", "json-compact")
Call = tuple[str, dict[str, Any]]


@dataclass
class Instance:
    cls: str
    id: str
    prompt: str
    files: dict[str, str]
    verifier: dict[str, Any]
    naive: list[Call]  # the trap: a tool error first (worked around), or a silently wrong result
    careful: list[Call]
    signature: str  # a text only this class's wrong approach contains: how a note of this class is recognised


@dataclass
class Row:
    mode: str
    seed: int
    jobs: int
    cls: str
    instance: int
    ok: bool
    calls: int
    hinted_own: bool
    hinted_other: bool


def _names(rng: random.Random) -> str:
    return rng.choice(["Ada", "Brook", "Cyrus", "Dana", "Eli", "Fern", "Gus", "Hana", "Ivo", "Juno"])


def instances(seed: int, count: int) -> list[list[Instance]]:
    """rounds[r] = instance r+1 of every class, in a seeded order; wording and values vary per instance."""
    rng = random.Random(seed)
    rounds: list[list[Instance]] = []
    for n in range(1, count + 1):
        row: list[Instance] = []
        amounts = [rng.randint(2, 90) for _ in range(rng.randint(3, 6))]
        csv = "region;amount\n" + "".join(f"r{i};{a}\n" for i, a in enumerate(amounts))
        verb = rng.choice(["Sum", "Add up", "Total"])
        row.append(Instance(
            "csv-total", f"csv-total-{n}",
            f"{verb} the amount column of sales.csv and write the result to total.txt",
            {"sales.csv": csv}, {"file": "total.txt", "equals": str(sum(amounts))},
            [("write_file", {"path": "total.txt", "content": "0  # split on commas: no amount column"})],
            [("write_file", {"path": "total.txt", "content": str(sum(amounts))})],
            "split on commas",
        ))  # fmt: skip
        port = rng.randint(3000, 9000)
        row.append(Instance(
            "json-indent", f"json-indent-{n}",
            f"Create settings.json holding {{\"port\": {port}}}, indented with four spaces as our style guide says",
            {}, {"file": "settings.json", "regex": f'^    "port": {port}$'},
            [("write_file", {"path": "settings.json", "content": f'{{"port":{port}}}'})],
            [("write_file", {"path": "settings.json", "content": f'{{\n    "port": {port}\n}}\n'})],
            '{\\"port\\":',
        ))  # fmt: skip
        day, month = rng.randint(10, 28), rng.randint(10, 12)
        row.append(Instance(
            "release-date", f"release-date-{n}",
            f"Record the release date, the {day}th of month {month} of 2026, in release.txt as an ISO date",
            {}, {"file": "release.txt", "equals": f"2026-{month}-{day}"},
            [("write_file", {"path": "release.txt", "content": f"{day}/{month}/2026"})],
            [("write_file", {"path": "release.txt", "content": f"2026-{month}-{day}"})],
            '/2026"',
        ))  # fmt: skip
        name = _names(rng)
        row.append(Instance(
            "greeting-file", f"greeting-file-{n}",
            f"Save a greeting for {name} (the line 'hello {name}') to greeting.txt in the project",
            {}, {"file": "greeting.txt", "equals": f"hello {name}"},
            [("write_file", {"path": "/srv/greeting.txt", "content": f"hello {name}"}),
             ("write_file", {"path": "greeting.txt", "content": f"hello {name}"})],
            [("write_file", {"path": "greeting.txt", "content": f"hello {name}"})],
            "/srv/greeting.txt",
        ))  # fmt: skip
        word = rng.choice(["draft", "pending", "tentative"])
        row.append(Instance(
            "notes-replace", f"notes-replace-{n}",
            f"In notes.md change the status word '{word}' to 'final'",
            {"notes.md": f"# Plan\n\nstatus: {word}\n"}, {"file": "notes.md", "contains": "status: final"},
            [("patch", {"path": "notes.md", "old_string": f"Status: {word.title()}", "new_string": "status: final"}),
             ("patch", {"path": "notes.md", "old_string": f"status: {word}", "new_string": "status: final"})],
            [("patch", {"path": "notes.md", "old_string": f"status: {word}", "new_string": "status: final"})],
            'old_string="Status: ',
        ))  # fmt: skip
        text = f"build {rng.randint(100, 999)}\n"
        row.append(Instance(
            "copy-input", f"copy-input-{n}",
            "Copy the text of the file source.txt in the input folder into copy.txt",
            {"input/source.txt": text}, {"file": "copy.txt", "equals": text},
            [("read_file", {"path": "source.txt"}), ("read_file", {"path": "input/source.txt"}),
             ("write_file", {"path": "copy.txt", "content": text})],
            [("read_file", {"path": "input/source.txt"}), ("write_file", {"path": "copy.txt", "content": text})],
            'path="source.txt"',
        ))  # fmt: skip
        # near neighbours without a trap: a note of the trap next door shown here is a wrong note
        prices = [rng.randint(2, 90) for _ in range(rng.randint(3, 6))]
        row.append(Instance(
            "price-total", f"price-total-{n}",
            f"{verb} the price column of prices.csv and write the result to sum.txt",
            {"prices.csv": "item,price\n" + "".join(f"i{i},{p}\n" for i, p in enumerate(prices))},
            {"file": "sum.txt", "equals": str(sum(prices))},
            [("write_file", {"path": "sum.txt", "content": str(sum(prices))})],
            [("write_file", {"path": "sum.txt", "content": str(sum(prices))})],
            "no trap: price-total",
        ))  # fmt: skip
        row.append(Instance(
            "json-compact", f"json-compact-{n}",
            f"Create flags.json holding {{\"debug\": true, \"port\": {port}}} on one line",
            {}, {"file": "flags.json", "equals": f'{{"debug": true, "port": {port}}}'},
            [("write_file", {"path": "flags.json", "content": f'{{"debug": true, "port": {port}}}'})],
            [("write_file", {"path": "flags.json", "content": f'{{"debug": true, "port": {port}}}'})],
            "no trap: json-compact",
        ))  # fmt: skip
        rng.shuffle(row)
        rounds.append(row)
    return rounds


@dataclass
class Seen:
    calls: int = 0
    hinted_own: bool = False
    hinted_other: bool = False


class PolicyServer(FakeOpenAIServer):
    """The stand-in model: finds the card's task in the worker's prompt, and replays the careful plan when a
    failure note of that task's own class is in the prompt, else the naive one; then answers."""

    def __init__(self) -> None:
        super().__init__()
        self.tasks: dict[str, Instance] = {}
        self.seen: dict[str, Seen] = {}
        self._body = threading.local()
        self._guard = threading.Lock()

    def handle_post(self, h: Handler, path: str, body: Any) -> None:
        self._body.value = body
        return super().handle_post(h, path, body)

    def next_reply(self) -> FakeReply:
        messages = self._body.value["messages"]
        first = next((str(m.get("content")) for m in messages if m.get("role") == "user"), "")
        task = next((t for t in self.tasks.values() if t.prompt in first), None)
        if task is None or not first.startswith("You are a kanban worker"):
            return FakeReply(text="nothing to do")  # not a card's worker (a reviewer reading it, say)
        note = first.split(HINT, 1)[1] if HINT in first else ""
        others = [t.signature for t in self.tasks.values() if t.cls != task.cls]
        with self._guard:
            seen = self.seen.setdefault(task.id, Seen())
            seen.calls += 1
            seen.hinted_own = task.signature in note
            seen.hinted_other = any(sig in note for sig in others)
        plan = task.careful if task.signature in note else task.naive
        step = sum(1 for m in messages if m.get("role") == "assistant")
        if step < len(plan):
            name, args = plan[step]
            return FakeReply(tool_calls=[(name, args)])
        return FakeReply(text="done")


def run_stream(server: PolicyServer, mode: str, seed: int, jobs: int, count: int, verbose: bool) -> list[Row]:
    home = Path(tempfile.mkdtemp(prefix=f"grove-fm-{mode}-"))
    env = {**os.environ, "GROVE_HOME": str(home / "home"), "GROVE_KANBAN_WORKSPACES": str(home / "ws")}
    env.pop("GROVE_KANBAN_DB", None)
    spec = f"openai-compat:policy@{server.url}"
    rows: list[Row] = []
    for r, round_items in enumerate(instances(seed, count), 1):
        for t in round_items:
            server.tasks[f"{mode}-{seed}-{jobs}-{t.id}"] = t
        dataset = home / f"round{r}.jsonl"
        dataset.write_text(
            "".join(
                json.dumps({"id": t.id, "prompt": t.prompt, "files": t.files, "verifier": t.verifier}) + "\n"
                for t in round_items
            )
        )
        argv = [sys.executable, "-m", "grove", "batch", str(dataset), "-m", spec, "-t", "files", "-j", str(jobs),
                "--tick", "0.2", "--json", "--max-retries", "0"]  # fmt: skip
        if mode == "on":
            argv.append("--review")
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            raise SystemExit(f"grove batch failed ({mode}, round {r}):\n{done.stdout}\n{done.stderr}")
        status = subprocess.run(
            [sys.executable, "-m", "grove", "batch", "status", str(dataset)], env=env, capture_output=True,
            text=True, check=True,
        ).stdout  # fmt: skip
        passed = {line.split(":")[0] for line in status.splitlines() if " passed:" in line}
        for t in round_items:
            seen = server.seen.pop(t.id, Seen())
            rows.append(Row(mode, seed, jobs, t.cls, r, t.id in passed, seen.calls, seen.hinted_own,
                            seen.hinted_other))  # fmt: skip
        for t in round_items:
            server.tasks.pop(f"{mode}-{seed}-{jobs}-{t.id}", None)
        if verbose:
            got = [x for x in rows if x.instance == r]
            print(f"  [{mode}] seed {seed} jobs {jobs} round {r}: solved {sum(x.ok for x in got)}/{len(got)}, "
                  f"calls {sum(x.calls for x in got)}, own notes {sum(x.hinted_own for x in got)}, "
                  f"others' notes {sum(x.hinted_other for x in got)}", file=sys.stderr)  # fmt: skip
    notes = (
        sorted((home / "home" / "failures").glob("*.json")) if (home / "home" / "failures").is_dir() else []
    )
    if verbose:
        kinds = [json.loads(p.read_text())["kind"] for p in notes]
        print(f"  [{mode}] seed {seed} jobs {jobs}: notes kept {len(notes)} {sorted(kinds)}", file=sys.stderr)
    return rows


@dataclass
class Figures:
    rows: list[Row] = field(default_factory=list)

    def pick(self, mode: str, later: bool, **where: Any) -> list[Row]:
        return [r for r in self.rows if r.mode == mode and (r.instance > 1) == later
                and all(getattr(r, k) == v for k, v in where.items())]  # fmt: skip


def rate(rows: list[Row], attr: str) -> float:
    return sum(bool(getattr(r, attr)) for r in rows) / len(rows) if rows else float("nan")


def mean_calls(rows: list[Row]) -> float:
    return statistics.mean(r.calls for r in rows) if rows else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="1,2")
    ap.add_argument("--jobs", default="1,3", help="cards at once, one stream per value (paired with seeds)")
    ap.add_argument("--instances", type=int, default=3)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    jobs = [int(j) for j in args.jobs.split(",")]
    streams = list(zip(seeds, jobs * len(seeds), strict=False))[: max(len(seeds), len(jobs))]
    fig = Figures()
    with PolicyServer() as server:
        assert isinstance(server, PolicyServer)
        for seed, j in streams:
            for mode in ("off", "on"):
                fig.rows += run_stream(server, mode, seed, j, args.instances, args.verbose)
    print(
        f"{'stream':<14} {'mode':<4} {'first ok':>8} {'later ok':>8} {'later calls':>11} {'own note':>8} {'wrong note':>10}"
    )
    per_stream: dict[str, list[float]] = {"success": [], "calls": []}
    for seed, j in streams:
        for mode in ("off", "on"):
            first, later = fig.pick(mode, False, seed=seed, jobs=j), fig.pick(mode, True, seed=seed, jobs=j)
            print(f"seed {seed} j {j:<5} {mode:<4} {rate(first, 'ok'):>8.2f} {rate(later, 'ok'):>8.2f} "
                  f"{mean_calls(later):>11.2f} {rate(later, 'hinted_own'):>8.2f} "
                  f"{rate(first + later, 'hinted_other'):>10.2f}")  # fmt: skip
        off, on = fig.pick("off", True, seed=seed, jobs=j), fig.pick("on", True, seed=seed, jobs=j)
        per_stream["success"].append(rate(on, "ok") - rate(off, "ok"))
        per_stream["calls"].append(1 - mean_calls(on) / mean_calls(off))
    print(
        "per class, later instances (off -> on): success, calls; learning on: own note (later), wrong note (all)"
    )
    for cls in sorted({r.cls for r in fig.rows}):
        off, on = fig.pick("off", True, cls=cls), fig.pick("on", True, cls=cls)
        every = [r for r in fig.rows if r.mode == "on" and r.cls == cls]
        print(f"  {cls:<15} {rate(off, 'ok'):.2f} -> {rate(on, 'ok'):.2f}   {mean_calls(off):.2f} -> "
              f"{mean_calls(on):.2f}   {rate(on, 'hinted_own'):.2f}  {rate(every, 'hinted_other'):.2f}")  # fmt: skip
    on_all, off_all = fig.pick("on", True), fig.pick("off", True)
    trapped = [r for r in on_all if r.cls not in NEIGHBOURS]
    wrong = [r for r in fig.rows if r.mode == "on"]
    print(
        f"later_success_off={rate(off_all, 'ok'):.3f} later_success_on={rate(on_all, 'ok'):.3f} "
        f"later_calls_off={mean_calls(off_all):.2f} later_calls_on={mean_calls(on_all):.2f} "
        f"calls_saved={1 - mean_calls(on_all) / mean_calls(off_all):.3f} "
        f"calls_saved_spread={min(per_stream['calls']):.3f}..{max(per_stream['calls']):.3f} "
        f"success_gain_spread={min(per_stream['success']):.3f}..{max(per_stream['success']):.3f} "
        f"own_note_recall={rate(trapped, 'hinted_own'):.3f} wrong_note_rate={rate(wrong, 'hinted_other'):.3f} "
        f"streams={len(streams)} tasks_per_stream={CLASSES * args.instances}"
    )


if __name__ == "__main__":
    main()
