"""Sub-agents in parallel vs one after another: wall time of a parent turn that delegates N tasks.

The parent and its children talk to a fake OpenAI-compatible server on 127.0.0.1 that answers every request after
`--latency` seconds (a remote model's think time), through grove's real path: the `openai-compat` provider, the
router, `Session.open`, the `delegate` tool and the child runner (children share the parent's model object, the
default). Each child reads a file (one model call asks for it, one answers); the parent asks and then sums up.
Ideal times: parallel = (2 + 2) x latency, sequential = (2 + 2N) x latency; what is above is grove's overhead.
Usage: python benchmarks/delegate.py [--latency 0.3] [--runs 3] [--children 1,3,6] [--png out.png]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fakes.openai_server import FakeOpenAIServer, FakeReply, Handler  # noqa: E402

from grove.config import Settings  # noqa: E402
from grove.config.delegation import DelegationConfig  # noqa: E402
from grove.runtime import Profile, Session  # noqa: E402


class DelegatingServer(FakeOpenAIServer):
    """Answers by what the request is: the parent delegates then sums up; a child reads a file then answers."""

    def __init__(self, latency: float, tasks: int) -> None:
        super().__init__()
        self.latency = latency
        self.tasks = tasks
        self._request = threading.local()

    def handle_post(self, h: Handler, path: str, body: Any) -> None:
        self._request.body = body
        return super().handle_post(h, path, body)

    def next_reply(self) -> FakeReply:
        body = self._request.body
        messages = body["messages"]
        names = [t["function"]["name"] for t in body.get("tools") or []]
        last = messages[-1]
        if "delegate" in names:  # the parent
            if last["role"] == "tool":
                return FakeReply(text="summary of the children's reports", delay=self.latency)
            tasks = [{"goal": f"read part {i + 1}"} for i in range(self.tasks)]
            return FakeReply(
                tool_calls=[("delegate", {"goal": "read it", "tasks": tasks})], delay=self.latency
            )
        if last["role"] == "tool":
            return FakeReply(text=f"part read: {str(last['content'])[:40]}", delay=self.latency)
        return FakeReply(tool_calls=[("read_file", {"path": "notes.txt"})], delay=self.latency)


def one_run(
    server: DelegatingServer, parallel: int, home: Path, workspace: Path
) -> tuple[float, dict[str, Any]]:
    settings = Settings(home=home, delegation=DelegationConfig(max_parallel=parallel))
    profile = Profile(
        source="bench",
        model=f"openai-compat:fake-model@{server.url}",
        toolsets=["files", "delegate"],
        workspace=workspace,
    )
    session = Session.open(settings, profile)
    start = time.perf_counter()
    session.run_turn("read the notes with sub-agents")
    wall = time.perf_counter() - start
    session.close()
    reports = next(
        json.loads(str(m["content"]))["children"]
        for m in reversed(session.store.messages(session.id))
        if m["role"] == "tool" and m.get("name") == "delegate"
    )
    statuses = [r["status"] for r in reports]
    row = session.store.get_session(session.id)
    session.store.db.close()
    return wall, {"done": statuses.count("done"), "model_calls": row.model_calls}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--latency", type=float, default=0.3, help="seconds the fake model takes per call")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--children", default="1,3,6", help="comma-separated numbers of tasks")
    parser.add_argument("--png", type=Path, help="also plot wall time against the number of children")
    args = parser.parse_args()
    counts = [int(c) for c in args.children.split(",")]

    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="grove-bench-delegate-") as tmp:
        workspace = Path(tmp) / "ws"
        workspace.mkdir()
        (workspace / "notes.txt").write_text("the answer is 42\n" * 20)
        for n in counts:
            server = DelegatingServer(args.latency, n).start()
            try:
                one_run(
                    server, 3, Path(tmp) / f"home-{n}-warm", workspace
                )  # imports, schema cache: not timed
                for mode, parallel in (("parallel", 3), ("sequential", 1)):
                    walls, info = [], {}
                    for r in range(args.runs):
                        wall, info = one_run(server, parallel, Path(tmp) / f"home-{n}-{mode}-{r}", workspace)
                        walls.append(wall)
                    ideal = (2 + (2 if parallel >= n else 2 * -(-n // parallel))) * args.latency
                    rows.append(
                        {
                            "children": n,
                            "mode": mode,
                            "wall_s": statistics.median(walls),
                            "ideal_s": ideal,
                            **info,
                        }
                    )
            finally:
                server.close()

    print(f"latency per model call: {args.latency}s; median of {args.runs} runs; max_parallel 3 vs 1")
    print(
        f"{'children':>8} {'mode':<10} {'wall s':>7} {'ideal s':>7} {'overhead s':>10} {'done':>4} {'calls':>5}"
    )
    for row in rows:
        over = row["wall_s"] - row["ideal_s"]
        print(
            f"{row['children']:>8} {row['mode']:<10} {row['wall_s']:>7.2f} {row['ideal_s']:>7.2f} {over:>10.2f}"
            f" {row['done']:>4} {row['model_calls']:>5}"
        )
    if args.png:
        plot(rows, args.png)
        print(f"plot: {args.png}")

    three = {r["mode"]: r for r in rows if r["children"] == 3} or {
        r["mode"]: r for r in rows if r["children"] == counts[-1]
    }
    par, seq = three["parallel"], three["sequential"]
    print(
        f"children={par['children']} latency_s={args.latency} parallel_s={par['wall_s']:.2f} "
        f"sequential_s={seq['wall_s']:.2f} speedup={seq['wall_s'] / par['wall_s']:.2f} "
        f"parallel_overhead_s={par['wall_s'] - par['ideal_s']:.2f} all_done={all(r['done'] == r['children'] for r in rows)}"
    )


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.2))
    for mode in ("parallel", "sequential"):
        pts = [(r["children"], r["wall_s"]) for r in rows if r["mode"] == mode]
        ax.plot(
            *zip(*pts, strict=True),
            marker="o",
            label=f"{mode} (max_parallel {3 if mode == 'parallel' else 1})",
        )
    ax.set_xlabel("children (delegated tasks)")
    ax.set_ylabel("wall time of the parent's turn (s)")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
