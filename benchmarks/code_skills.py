"""Code skills pay off on the second run: the canonical task (7-day moving average of a CSV column) run twice in
plan-then-act mode on one skill library. Run 1 writes and sandbox-tests two code skills; run 2 (another CSV, another
column) only calls them. Reports model calls, generated code tokens (cl100k, code + tests sent to
skill_code_create), total tokens (prompt + completion, as the model reported them) and wall time for each run.

Default model: the scripted canonical model (grove.codeskills.canonical), so token counts are the script's
estimates (four characters a token) and wall time is mostly the sandbox. `--model SPEC` runs a real model instead.
`--buggy` makes the scripted first attempt at moving-average fail its tests (one extra round trip).
Run: python benchmarks/code_skills.py [--model SPEC] [--buggy] [--rounds N]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from tokens import count_tokens  # benchmarks/tokens.py, beside this script

SALES = [[f"2026-01-{d:02d}", 100 + (d * 37) % 23, d % 5] for d in range(1, 31)]
TRAFFIC = [[f"w{d}", (d * 53) % 97 + 0.5, (d * 7) % 11] for d in range(1, 21)]


def _csv(path: Path, header: list[str], rows: list[list[object]]) -> None:
    path.write_text(",".join(header) + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows))


def one_run(workspace: Path, text: str, model_spec: str | None, buggy: bool, rounds: int) -> dict[str, float]:
    from grove.codeskills.canonical import CanonicalScript
    from grove.config import Settings
    from grove.llm.script import ScriptModel
    from grove.plan.loop import PlanAndAct, with_code_skills
    from grove.plan.steps import PlanError
    from grove.runtime.assemble import open_agent
    from grove.runtime.profile import Profile

    settings = Settings()
    model = None if model_spec else ScriptModel(CanonicalScript(buggy_first=buggy))
    profile = Profile(model=model_spec or model, workspace=workspace, toolsets=["files", "skills"])
    agent = open_agent(settings, profile)
    agent.tools = with_code_skills(agent.tools)
    start = time.perf_counter()
    try:
        run = PlanAndAct(agent, max_rounds=rounds).run(text)
    except PlanError as e:  # a model that never writes a valid plan: a failed run, with what it cost
        info = agent.store.get_session(agent.session_id)
        print(f"plan failed: {e}")
        return {
            "done": 0,
            "model_calls": info.model_calls,
            "code_tokens": 0,
            "total_tokens": info.prompt_tokens + info.completion_tokens,
            "skills_written": 0,
            "skill_runs": 0,
            "wall_s": round(time.perf_counter() - start, 3),
        }
    finally:
        agent.close()
    wall = time.perf_counter() - start
    created = [c for c in run.tool_calls if c.name == "skill_code_create" and isinstance(c.arguments, dict)]
    code_tokens = sum(
        count_tokens(c.arguments.get("code", "") + c.arguments.get("tests", "")) for c in created
    )
    return {
        "done": int(run.done),
        "model_calls": run.model_calls,
        "code_tokens": code_tokens,
        "total_tokens": run.usage.prompt_tokens + run.usage.completion_tokens,
        "skills_written": sum(1 for c in created if c.ok),
        "skill_runs": sum(1 for c in run.tool_calls if c.name == "skill_run"),
        "wall_s": round(wall, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default=None, help="a model spec (default: the scripted canonical model)")
    parser.add_argument("--buggy", action="store_true", help="scripted run 1 first writes a failing skill")
    parser.add_argument("--rounds", type=int, default=12, help="plan-act rounds per run")
    args = parser.parse_args()
    from grove.codeskills.canonical import goal
    from grove.sandbox.users import sandbox_folder

    with tempfile.TemporaryDirectory(prefix="grove-bench-codeskills-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        # a local model is assembled once into a shared folder (as the learning harness does), not per run
        shared = Path(tempfile.gettempdir()) / "grove-bench-models"
        shared.mkdir(exist_ok=True)
        (home / "models").symlink_to(shared, target_is_directory=True)
        os.environ["GROVE_HOME"] = str(home)
        Path(tmp).chmod(0o711)  # as root, file tools act as the sandbox group: it must reach the workspace
        ws = sandbox_folder(Path(tmp) / "ws")
        _csv(ws / "sales.csv", ["date", "revenue", "units"], SALES)
        _csv(ws / "traffic.csv", ["week", "visits", "signups"], TRAFFIC)
        first = one_run(ws, goal("sales.csv", "revenue", "smoothed.csv"), args.model, args.buggy, args.rounds)
        second = one_run(
            ws, goal("traffic.csv", "visits", "smoothed_visits.csv"), args.model, False, args.rounds
        )
    print(f"model: {args.model or 'script (canonical)'}")
    print(f"{'':14}{'first':>10}{'second':>10}")
    for key in first:
        print(f"{key:14}{first[key]:>10}{second[key]:>10}")
    figures = {f"{k}_1": v for k, v in first.items()} | {f"{k}_2": v for k, v in second.items()}
    ratio = second["total_tokens"] / first["total_tokens"] if first["total_tokens"] else 0.0
    print(" ".join(f"{k}={v}" for k, v in figures.items()) + f" total_tokens_ratio={ratio:.2f}")


if __name__ == "__main__":
    main()
