"""Does learning help? Runs the task stream twice on one model: learning off, then learning on (a review after every
task, the skill library carried forward), and prints per class success, model calls, tool calls and tokens for
the first instance and the later ones.

Run: python benchmarks/learning/harness.py --model local            (the embedded model)
     python benchmarks/learning/harness.py --model openai:gpt-4o-mini  (needs OPENAI_API_KEY; any model spec works)
Options: --classes csv-total,json-set  --instances 5  --max-iterations 12  --json rows.json
         --tasks unseen (the held-out classes of tasks_unseen.py)  --seed N (values and order)  --threads N
Tokens are cl100k counts (benchmarks/tokens.py) of the text each request carries (messages and tool schemas), so
they compare across models; the reviewer's own calls are counted apart. Last line: key=value figures.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from statistics import mean
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]

from learning_report import figures as learning_figures  # noqa: E402
from learning_report import table  # noqa: E402
from tasks import CLASSES, Task, stream  # noqa: E402
from tasks_unseen import CLASSES as UNSEEN_CLASSES  # noqa: E402
from tasks_unseen import stream as unseen_stream  # noqa: E402

from grove.llm.types import Completion, Message, Model, ModelSettings, TextCallback, ToolSchema  # noqa: E402
from tokens import count_tokens  # noqa: E402


class CountingModel:
    """Counts calls and cl100k tokens of what goes in and comes out, whatever the provider reports."""

    def __init__(self, inner: Model) -> None:
        self.inner = inner
        self.name = inner.name
        self.context_window = getattr(inner, "context_window", 8192)
        self.calls = self.prompt_tokens = self.completion_tokens = 0

    def complete(
        self,
        messages: list[Message],
        tools: list[ToolSchema],
        settings: ModelSettings,
        on_text: TextCallback | None = None,
    ) -> Completion:
        self.calls += 1
        self.prompt_tokens += sum(count_tokens(_text(m)) for m in messages)
        self.prompt_tokens += count_tokens(json.dumps(tools)) if tools else 0
        completion = self.inner.complete(messages, tools, settings, on_text)
        out = completion.text + "".join(c.name + c.arguments for c in completion.tool_calls)
        self.completion_tokens += count_tokens(out)
        return completion


def _text(m: Message) -> str:
    calls = "".join(c["function"]["name"] + c["function"]["arguments"] for c in m.get("tool_calls") or [])
    return str(m.get("content") or "") + calls


def _trace(messages: list[Message]) -> list[str]:
    """The session's turns after the prompt, short: which tools were called with what, and what came back."""
    out = []
    for m in messages[2:]:
        text = str(m.get("content") or "")
        for c in m.get("tool_calls") or []:
            out.append(f"call {c['function']['name']} {c['function']['arguments'][:300]}")
        if text:
            out.append(f"{m['role']}: {text[:300]}")
    return out


def share_with_sandbox(ws: Path) -> None:
    """As root, file tools act as the sandbox group: the task's workspace must be group-writable for it, as the
    README asks of a project (a 0700 temp dir made every task fail with "permission denied")."""
    if os.geteuid() != 0:
        return
    from grove.sandbox.users import SANDBOX_GID

    for path in [ws, *ws.rglob("*")]:
        if path.is_symlink():
            continue
        os.chown(path, -1, SANDBOX_GID)
        os.chmod(path, 0o2775 if path.is_dir() else path.stat().st_mode | 0o060)


def run_task(
    task: Task,
    settings: Any,
    model: Model,
    learning: bool,
    max_iterations: int,
    labels: bool = True,
    precheck: bool = False,
) -> dict[str, Any]:
    from grove.learning.session_outcome import record_verdict, task_done
    from grove.runtime.assemble import open_agent
    from grove.runtime.profile import Profile
    from grove.runtime.review import review_session
    from grove.store.sessions import SessionStore

    started = time.perf_counter()
    ws = Path(tempfile.mkdtemp(prefix="grove-bench-"))
    task.setup(ws)
    share_with_sandbox(ws)
    store = SessionStore.open(settings.db_path)
    counter = CountingModel(model)
    # What `grove run` gives a user's session: the default toolsets (the same with learning off and on), and for a
    # local model the lean prompt and tool list; the skills index shows what earlier reviews kept.
    profile = Profile(
        source="benchmark",
        model=counter,  # named as the model: a local one gets the lean prompt and tool list
        workspace=ws,
        max_iterations=max_iterations,
    )
    agent = open_agent(settings, profile, store=store)
    sid = agent.session_id
    system = str(agent.messages[0]["content"])
    row: dict[str, Any] = {
        "task": task.id,
        "class": task.cls,
        "instance": task.instance,
        "learning": learning,
    }
    try:
        result = agent.run_turn(task.prompt)
        row["tool_calls"] = len(result.tool_calls)
        row["answer"] = result.answer[:300]
        row["error"] = None
    except Exception as e:  # a model failure is a failed task, not a crashed benchmark
        row["tool_calls"] = sum(1 for m in agent.messages if m["role"] == "tool")
        row["error"] = f"{type(e).__name__}: {e}"[:200]
    finally:
        agent.close()
    row["trace"] = _trace(agent.messages)
    row.update(
        ok=task.verify(ws),
        model_calls=counter.calls,
        prompt_tokens=counter.prompt_tokens,
        completion_tokens=counter.completion_tokens,
        skills_in_index=system.count("\n- ") if "## Skills" in system else 0,
    )
    row["seconds"] = round(time.perf_counter() - started, 1)
    if learning:
        if labels:  # the verifier's label, as a batch has one: the reviewer learns only from a task done
            record_verdict(settings.home, sid, bool(row["ok"]), "the benchmark's check of the files")
        done, why = task_done(settings.home, sid, store.messages(sid))
        if precheck and not done:
            # the reviewer refuses a code skill from this session (grove.learning.session_outcome); asking first
            # saves its drafts, which take minutes on shared cores
            row.update(review_calls=0, review_prompt_tokens=0, review_completion_tokens=0, review_changes=[])
            row.update(review_error=None, review_answer=f"not reviewed: {why}", review_seconds=0.0)
            store.db.close()
            shutil.rmtree(ws, ignore_errors=True)
            return row
        reviewer = CountingModel(model)
        report = review_session(settings, reviewer, sid, workspace=ws, store=store)
        row.update(
            review_calls=reviewer.calls,
            review_prompt_tokens=reviewer.prompt_tokens,
            review_completion_tokens=reviewer.completion_tokens,
            review_changes=[
                f"{c.get('action', 'memory')} {c.get('name', '')}".strip() for c in report.changes
            ],
            review_error=report.error,
            review_answer=report.answer[:300],
            review_seconds=round(time.perf_counter() - started - row["seconds"], 1),
        )
    store.db.close()
    shutil.rmtree(ws, ignore_errors=True)
    return row


def run_mode(
    tasks: list[Task],
    spec: str,
    learning: bool,
    max_iterations: int,
    verbose: bool,
    trace: bool = False,
    threads: int | None = None,
    models_dir: Path | None = None,
    keep: Path | None = None,
    labels: bool = True,
    precheck: bool = False,
) -> list[dict]:
    from grove.config import LocalModelConfig, Settings
    from grove.llm.spec import build_model

    home = Path(tempfile.mkdtemp(prefix=f"grove-bench-home-{'on' if learning else 'off'}-"))
    # a local model is assembled once for both modes (and for later runs), not into each fresh home: the
    # files of `models_dir` are linked into the home's models/ (the 1.1 GB file is never copied)
    shared = models_dir or Path(tempfile.gettempdir()) / "grove-bench-models"
    shared.mkdir(exist_ok=True)
    (home / "models").mkdir()
    for f in shared.iterdir():
        (home / "models" / f.name).symlink_to(f.resolve())
    os.environ["GROVE_HOME"] = str(home)
    settings = Settings(home=home, model=spec, local=LocalModelConfig(n_threads=threads))
    model = build_model(spec, settings)
    rows = []
    for task in tasks:
        row = run_task(task, settings, model, learning, max_iterations, labels, precheck)
        rows.append(row)
        if verbose:
            extra = f" review={row.get('review_changes')}" if learning else ""
            print(
                f"  [{'on ' if learning else 'off'}] {task.id:<20} ok={row['ok']} calls={row['model_calls']}"
                f" tools={row['tool_calls']} s={row['seconds']}{extra}{' err=' + row['error'] if row['error'] else ''}",
                file=sys.stderr,
            )
        if trace:
            print("\n".join("      " + line.replace("\n", "\\n") for line in row["trace"]), file=sys.stderr)
    if keep is not None:  # what the reviewer kept, to read after the run
        for part in ("skills", "verdicts"):
            if (home / part).is_dir():
                shutil.copytree(
                    home / part, keep / f"{'on' if learning else 'off'}-{part}", dirs_exist_ok=True
                )
    shutil.rmtree(home, ignore_errors=True)
    return rows


def seeded(tasks: list[Task], seed: int) -> list[Task]:
    """tasks.py's stream in another order: each round (instance r of every class) shuffled by the seed; its
    values are tasks.py's own (fixed per instance)."""
    if not seed:
        return tasks
    import random

    rounds: dict[int, list[Task]] = {}
    for t in tasks:
        rounds.setdefault(t.instance, []).append(t)
    out: list[Task] = []
    for i, batch in sorted(rounds.items()):
        random.Random(f"order:{seed}:{i}").shuffle(batch)
        out += batch
    return out


def _stats(rows: list[dict]) -> dict[str, float]:
    if not rows:
        return {"n": 0, "ok": 0.0, "calls": 0.0, "tools": 0.0, "ptok": 0.0, "ctok": 0.0}
    return {
        "n": len(rows),
        "ok": mean(r["ok"] for r in rows),
        "calls": mean(r["model_calls"] for r in rows),
        "tools": mean(r["tool_calls"] for r in rows),
        "ptok": mean(r["prompt_tokens"] for r in rows),
        "ctok": mean(r["completion_tokens"] for r in rows),
    }


def report(rows: dict[str, list[dict]], classes: list[str]) -> None:
    """Per mode, class and part (first try, later instances): success and cost with bootstrap 95% intervals."""
    for line in table(rows, classes):
        print(line)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="local", help="model spec (local, openai:<m>, anthropic:<m>, ...)")
    parser.add_argument(
        "--tasks",
        default="seen",
        choices=["seen", "unseen"],
        help="tasks.py's six or tasks_unseen.py's held-out",
    )
    parser.add_argument(
        "--classes",
        default=None,
        help=f"comma-separated subset of: {', '.join(CLASSES)}; with --tasks unseen: {', '.join(UNSEEN_CLASSES)}",
    )
    parser.add_argument(
        "--exclude", default="", help="classes left out (a broken frozen class is excluded, not edited)"
    )
    parser.add_argument("--instances", type=int, default=None, help="per class (default 5 seen, 3 unseen)")
    parser.add_argument(
        "--seed", type=int, default=0, help="a stream: each round's order (and unseen values)"
    )
    parser.add_argument(
        "--threads", type=int, default=None, help="a local model's n_threads (default: idle cores)"
    )
    parser.add_argument("--models-dir", type=Path, default=None, help="where the local model files are")
    parser.add_argument("--keep", type=Path, default=None, help="copy the home's skills and verdicts here")
    parser.add_argument(
        "--no-labels", action="store_true", help="do not record the verifier's label for the reviewer"
    )
    parser.add_argument(
        "--precheck",
        action="store_true",
        help="review no session grove's own check (session_outcome.task_done) says failed: its review would keep "
        "nothing and costs minutes of drafts on a local model",
    )
    parser.add_argument("--max-iterations", type=int, default=12, help="model calls per task")
    parser.add_argument("--json", type=Path, default=None, help="write every task's row here")
    parser.add_argument(
        "--modes",
        default="off,on",
        help="which streams to run: off, on or off,on (a figures line needs both)",
    )
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("--trace", action="store_true", help="print each task's calls and replies (stderr)")
    args = parser.parse_args(argv)
    known = UNSEEN_CLASSES if args.tasks == "unseen" else CLASSES
    classes = [c.strip() for c in args.classes.split(",")] if args.classes else list(known)
    classes = [c for c in classes if c not in args.exclude.split(",")]
    if args.tasks == "unseen":
        tasks = unseen_stream(classes, args.instances or 3, args.seed)
    else:
        tasks = seeded(stream(classes, args.instances or 5), args.seed)
    started = time.perf_counter()
    modes = [m.strip() for m in args.modes.split(",")]
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    rows = {
        m: run_mode(
            tasks,
            args.model,
            m == "on",
            args.max_iterations,
            args.verbose,
            args.trace,
            args.threads,
            args.models_dir,
            args.keep,
            not args.no_labels,
            args.precheck,
        )
        for m in modes
    }
    meta = {
        "tasks": args.tasks,
        "seed": args.seed,
        "threads": args.threads,
        "model": args.model,
        "labels": not args.no_labels,
        "precheck": args.precheck,
    }
    if sorted(modes) != ["off", "on"]:  # a partial run for diagnosis: its rows only
        if args.json:
            args.json.write_text(json.dumps({**rows, "meta": meta}, indent=1, default=str))
        for m, rs in rows.items():
            print(
                f"{m}: {sum(r['ok'] for r in rs)}/{len(rs)} solved, {mean(r['model_calls'] for r in rs):.2f} calls"
            )
        return 0
    report(rows, classes)
    if args.json:
        args.json.write_text(json.dumps({**rows, "meta": meta}, indent=1, default=str))
    off, on = rows["off"], rows["on"]
    later = lambda rs: [r for r in rs if r["instance"] > 1]  # noqa: E731
    figures: dict[str, object] = {
        "model": args.model,
        "task_set": args.tasks,
        "seed": args.seed,
        "threads": args.threads if args.threads is not None else "auto",
        "tasks": len(tasks),
        "classes": len(classes),
        "off_success": f"{_stats(off)['ok']:.3f}",
        "on_success": f"{_stats(on)['ok']:.3f}",
        "off_later_success": f"{_stats(later(off))['ok']:.3f}",
        "on_later_success": f"{_stats(later(on))['ok']:.3f}",
        "off_calls_per_task": f"{_stats(off)['calls']:.2f}",
        "on_calls_per_task": f"{_stats(on)['calls']:.2f}",
        "off_prompt_tokens_per_task": f"{_stats(off)['ptok']:.0f}",
        "on_prompt_tokens_per_task": f"{_stats(on)['ptok']:.0f}",
        "review_calls_per_task": f"{mean(r['review_calls'] for r in on):.2f}",
        "review_prompt_tokens_per_task": f"{mean(r['review_prompt_tokens'] for r in on):.0f}",
        "skill_writes": sum(len(r["review_changes"]) for r in on),
        "errors": sum(1 for r in off + on if r["error"]),
        **learning_figures(off, on),
        "seconds": f"{time.perf_counter() - started:.0f}",
    }
    print(" ".join(f"{k}={v}" for k, v in figures.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
