"""Benchmark: do local models use grove's tools? SmolLM2-135M (the embedded default) and Qwen2.5-Coder-1.5B
(`local:qwen2.5-coder-1.5b`, the [coder] extra) side by side, greedy, with grove's lean prompt and default toolsets.

1. decisions: 41 single prompts; right = the right tool with the right arguments, or no tool when none is needed.
2. tasks: 18 multi-step tasks (read -> compute -> write) run by the real agent loop, judged by the file written;
   the last 6 were held out (added after the local prompt was frozen) and are also reported apart.
3. timing: the first turn of `grove run` in a fresh process, cold (no prompt cache on disk) and warm.

CPU figures are noisy on a shared machine (say what else runs). Run:
  python benchmarks/local_tools.py [--models smollm2,qwen] [--parts decisions,tasks,timing] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from grove.agent.events import AgentEvents
from grove.llm.types import ModelSettings
from local_tools_cases import DECISIONS, FILES, TASKS

SPECS = {"smollm2": "local", "qwen": "local:qwen2.5-coder-1.5b"}
TOOLSETS = ["files", "todo", "skills", "memory", "sessions"]
SANDBOX_GID = 64_055  # see grove doctor: as root, file tools run as this group


def load_model(spec: str, settings: Any) -> Any:
    from grove.llm.spec import build_model

    return build_model(spec, settings)


def run_decisions(
    model: Any, settings: Any, workspace: Path, limit: int | None, only: str = ""
) -> dict[str, Any]:
    from grove.agent.prompt import build_system_prompt, lean_tools
    from grove.tools.builtin import builtin_registry

    lean = not os.environ.get("BENCH_FULL_PROMPT")
    tools = builtin_registry().select(TOOLSETS)
    tools = lean_tools(tools) if lean else tools
    system = build_system_prompt(settings, workspace, tools, lean=lean)
    schemas = tools.schemas()
    rows, times = [], []
    for case in [c for c in DECISIONS if only.lower() in c.prompt.lower()][:limit]:
        messages = [{"role": "system", "content": system}, {"role": "user", "content": case.prompt}]
        start = time.perf_counter()
        reply = model.complete(messages, schemas, ModelSettings(max_tokens=160))
        times.append(time.perf_counter() - start)
        call = reply.tool_calls[0] if reply.tool_calls else None
        got = call.name if call else None
        args = json.loads(call.arguments) if call else {}
        right_tool = got == case.tool
        right = right_tool and (case.tool is None or case.args_ok(args))
        rows.append({"prompt": case.prompt, "want": case.tool, "got": got, "args": args, "right": right})
        mark = "ok " if right else "BAD"
        shown = f"{got}({json.dumps(args)[:80]})" if call else repr(reply.text[:60])
        print(f"  {mark} {case.prompt[:58]:58} -> {shown}", flush=True)
    need = [r for r in rows if r["want"]]
    return {
        "right": sum(r["right"] for r in rows),
        "n": len(rows),
        "tool_right": sum(r["right"] for r in need),
        "tool_n": len(need),
        "no_tool_right": sum(r["right"] for r in rows if not r["want"]),
        "no_tool_n": len(rows) - len(need),
        "mean_s": sum(times) / max(len(times), 1),
    }


class ToolLog(AgentEvents):
    """Keeps each tool call and the start of its result, to show why a task failed."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def on_tool_end(self, call: Any, result: Any) -> None:
        self.lines.append(f"{call.name}({call.arguments[:90]}) -> {result.content[:90]!r}")


def run_tasks(
    model: Any, settings: Any, workspace: Path, limit: int | None, only: str = "", held_out_only: bool = False
) -> dict[str, Any]:
    from grove.runtime.profile import Profile
    from grove.runtime.session import Session

    done, held_done, calls, times = 0, 0, 0, []
    tasks = [t for t in TASKS if only.lower() in t.prompt.lower() and (t.held_out or not held_out_only)][
        :limit
    ]
    for task in tasks:
        shutil.rmtree(workspace, ignore_errors=True)
        workspace.mkdir(parents=True)
        for name, text in task.files.items():
            (workspace / name).write_text(text)
        if os.geteuid() == 0:  # as root, file tools act as the sandbox group: the workspace must let it write
            for path in [workspace, *workspace.iterdir()]:
                os.chown(path, -1, SANDBOX_GID)
                path.chmod(0o2775 if path.is_dir() else 0o664)
        profile = Profile(
            source="benchmark",
            model=model,
            toolsets=TOOLSETS,
            workspace=workspace,
            max_iterations=6,
        )
        start = time.perf_counter()
        log = ToolLog()
        session = Session.open(settings, profile, log)
        try:
            result = session.run_turn(task.prompt)
        finally:
            session.close()
        times.append(time.perf_counter() - start)
        out = workspace / task.output
        text = out.read_text(errors="replace") if out.is_file() else None
        ok = text is not None and task.ok(text)
        done += ok
        held_done += ok and task.held_out
        calls += result.model_calls
        used = ",".join(c.name for c in result.tool_calls)
        print(f"  {'ok ' if ok else 'BAD'} {task.output:13} {text!r:.30} calls={result.model_calls} [{used}]")
        if not ok:
            print("      " + "\n      ".join([*log.lines, f"answer: {result.answer[:100]!r}"]))
    n = len(tasks)
    return {
        "done": done,
        "n": n,
        "held_done": held_done,
        "held_n": sum(t.held_out for t in tasks),
        "model_calls": calls / max(n, 1),
        "mean_s": sum(times) / max(n, 1),
    }


def first_turn_times(spec: str, models_dir: Path) -> dict[str, float]:
    """Wall time of `grove run` in a fresh process with the default toolsets, cold then warm prompt cache."""
    home = Path(tempfile.mkdtemp(prefix="grove-bench-home-"))
    ws = Path(tempfile.mkdtemp(prefix="grove-bench-ws-"))
    (home / "models").symlink_to(models_dir)  # the assembled 1.1 GB file, not a copy
    env = {**os.environ, "GROVE_HOME": str(home)}
    out = {}
    try:
        for label in ("cold", "warm"):
            start = time.perf_counter()
            subprocess.run(
                ["grove", "run", "-m", spec, "What is the capital of France? One word."],
                cwd=ws,
                env=env,
                check=True,
                capture_output=True,
            )
            out[label] = time.perf_counter() - start
    finally:
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(ws, ignore_errors=True)
    return out


def prompt_profile(model: Any, settings: Any, workspace: Path) -> dict[str, float]:
    """What a cold first turn costs: load, tokens of the system prompt + tool list, their prefill time."""
    from grove.agent.prompt import build_system_prompt, lean_tools
    from grove.tools.builtin import builtin_registry

    tools = lean_tools(builtin_registry().select(TOOLSETS))
    system = build_system_prompt(settings, workspace, tools, lean=True)
    messages = [{"role": "system", "content": system}, {"role": "user", "content": "hi"}]
    prompt = model.render(messages, tools.schemas())
    tokens = model.count_tokens(prompt)
    model.drop_cache()
    start = time.perf_counter()
    loaded = model._loaded()
    with loaded.lock:
        loaded.engine.prefill(loaded.engine.tokenize(prompt))
    prefill = time.perf_counter() - start
    model.drop_cache()
    return {"prompt_tokens": tokens, "prefill_s": prefill}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="smollm2,qwen")
    parser.add_argument("--parts", default="decisions,tasks,timing")
    parser.add_argument("--limit", type=int, default=None, help="only the first N cases of each part")
    parser.add_argument("--only", default="", help="only prompts containing this text (tuning)")
    parser.add_argument("--held-out-only", action="store_true", help="only the held-out multi-step tasks")
    a = parser.parse_args()
    from grove.config import Settings, grove_home

    real_models = grove_home() / "models"
    tmp = Path(tempfile.mkdtemp(prefix="grove-local-tools-"))
    os.environ["GROVE_HOME"] = str(tmp / "home")
    (tmp / "home").mkdir()
    (tmp / "home" / "models").symlink_to(real_models)
    settings = Settings()
    workspace = tmp / "ws"
    workspace.mkdir()
    for name, text in FILES.items():
        (workspace / name).write_text(text)
    figures: dict[str, Any] = {}
    from grove.llm.local_runtime import runtime_name

    print(
        f"load average at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; runtime {runtime_name()}"
    )
    for key in a.models.split(","):
        spec = SPECS[key]
        start = time.perf_counter()
        model = load_model(spec, settings)
        model._loaded()
        figures[f"{key}_load_s"] = round(time.perf_counter() - start, 2)
        print(f"== {key} ({spec}) loaded in {figures[f'{key}_load_s']} s")
        if "timing" in a.parts:
            prof = prompt_profile(model, settings, workspace)
            figures[f"{key}_prompt_tokens"] = prof["prompt_tokens"]
            figures[f"{key}_prompt_prefill_s"] = round(prof["prefill_s"], 1)
            print(
                f"  system prompt + tools: {prof['prompt_tokens']} tokens, prefill {prof['prefill_s']:.1f} s"
            )
        if "decisions" in a.parts:
            d = run_decisions(model, settings, workspace, a.limit, a.only)
            figures[f"{key}_decisions"] = f"{d['right']}/{d['n']}"
            figures[f"{key}_decisions_pct"] = round(100 * d["right"] / max(d["n"], 1), 1)
            figures[f"{key}_tool_right"] = f"{d['tool_right']}/{d['tool_n']}"
            figures[f"{key}_no_tool_right"] = f"{d['no_tool_right']}/{d['no_tool_n']}"
            figures[f"{key}_decision_mean_s"] = round(d["mean_s"], 1)
            print(
                f"  decisions {d['right']}/{d['n']} (tool {d['tool_right']}/{d['tool_n']}, "
                f"no tool {d['no_tool_right']}/{d['no_tool_n']}), {d['mean_s']:.1f} s each"
            )
        if "tasks" in a.parts:
            t = run_tasks(model, settings, tmp / "task-ws", a.limit, a.only, a.held_out_only)
            figures[f"{key}_tasks"] = f"{t['done']}/{t['n']}"
            figures[f"{key}_tasks_pct"] = round(100 * t["done"] / max(t["n"], 1), 1)
            tuned = (t["done"] - t["held_done"], t["n"] - t["held_n"])
            figures[f"{key}_tasks_tuned"] = f"{tuned[0]}/{tuned[1]}"
            figures[f"{key}_tasks_held_out"] = f"{t['held_done']}/{t['held_n']}"
            figures[f"{key}_task_model_calls"] = round(t["model_calls"], 1)
            figures[f"{key}_task_mean_s"] = round(t["mean_s"], 1)
            print(
                f"  tasks {t['done']}/{t['n']} (tuned on {tuned[0]}/{tuned[1]}, held out "
                f"{t['held_done']}/{t['held_n']}), {t['model_calls']:.1f} model calls, {t['mean_s']:.1f} s each"
            )
        if "timing" in a.parts:
            ft = first_turn_times(spec, real_models)
            figures[f"{key}_first_turn_cold_s"] = round(ft["cold"], 1)
            figures[f"{key}_first_turn_warm_s"] = round(ft["warm"], 1)
            print(
                f"  first turn (grove run, fresh process): cold {ft['cold']:.1f} s, warm {ft['warm']:.1f} s"
            )
    shutil.rmtree(tmp, ignore_errors=True)
    figures["load_avg_end"] = round(os.getloadavg()[0], 2)
    print(" ".join(f"{k}={v}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
