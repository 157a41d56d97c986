"""Benchmark: the embedded local model over a three-turn chat behind a ~2K-token agent-like system prompt.

Shows what the KV cache buys: turn 1 evaluates the whole prompt, later turns only the new suffix.
Run: python benchmarks/local_model.py [--max-tokens 48] [--threads N]
"""

from __future__ import annotations

import argparse
import tempfile
import time

from grove.llm.local import LocalModel
from grove.llm.types import Message, ModelSettings, ToolSchema

TOOLS = [
    (
        "read_file",
        "Read a text file and return its lines.",
        {"path": "string", "offset": "integer"},
        ["path"],
    ),
    (
        "write_file",
        "Write text to a file, replacing it.",
        {"path": "string", "content": "string"},
        ["path", "content"],
    ),
    (
        "patch",
        "Replace an exact string in a file.",
        {"path": "string", "old": "string", "new": "string"},
        ["path"],
    ),
    (
        "search_files",
        "Search file contents with a regex.",
        {"pattern": "string", "path": "string"},
        ["pattern"],
    ),
    ("terminal", "Run a shell command.", {"command": "string"}, ["command"]),
    ("todo", "Manage the task list.", {"items": "string"}, []),
]
TURNS = ["What is the capital of France?", "And of Italy?", "Thanks! Say goodbye."]


def tool_schemas() -> list[ToolSchema]:
    return [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": desc,
                "parameters": {
                    "type": "object",
                    "properties": {k: {"type": t} for k, t in props.items()},
                    "required": required,
                },
            },
        }
        for name, desc, props, required in TOOLS
    ]


def system_prompt(model: LocalModel, target_tokens: int) -> str:
    """Identity, guidance, memory and a skills index, padded with numbered notes to about `target_tokens`."""
    parts = [
        "You are grove, a helpful assistant that works in the user's terminal.",
        "Answer briefly. Use tools only when the user asks for files, commands or tasks.",
        "# Memory\nThe user prefers short answers. The project uses Python 3.11 and pytest.",
        "# Skills\n- release-notes: write release notes from git log\n- fix-flaky-test: find and fix a flaky test",
    ]
    note = 0
    while model.count_tokens("\n\n".join(parts)) < target_tokens:
        note += 1
        parts.append(
            f"Note {note}: keep changes small, run the tests after each edit, and explain what changed "
            f"in one or two sentences; never touch files outside the project folder."
        )
    return "\n\n".join(parts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--max-tokens", type=int, default=48)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--system-tokens", type=int, default=2000)
    args = ap.parse_args()

    t0 = time.perf_counter()
    model = LocalModel(n_threads=args.threads)
    model.render([], [])  # loads the model
    load_s = time.perf_counter() - t0
    print(f"model {model.path.name}, load {load_s:.2f} s")

    tools = tool_schemas()
    messages: list[Message] = [{"role": "system", "content": system_prompt(model, args.system_tokens)}]
    settings = ModelSettings(max_tokens=args.max_tokens)
    seconds: list[float] = []
    cached: list[int] = []
    prompt_tokens = 0
    for i, text in enumerate(TURNS, 1):
        messages.append({"role": "user", "content": text})
        t = time.perf_counter()
        reply = model.complete(messages, tools, settings)
        seconds.append(time.perf_counter() - t)
        cached.append(reply.usage.cached_tokens)
        prompt_tokens = prompt_tokens or reply.usage.prompt_tokens
        answer = reply.text or " ".join(f"{c.name}({c.arguments})" for c in reply.tool_calls)
        print(
            f"turn {i}: {seconds[-1]:6.2f} s  prompt {reply.usage.prompt_tokens:5d}  cached {cached[-1]:5d}  "
            f"out {reply.usage.completion_tokens:3d}  {reply.finish_reason:10s} {answer[:70]!r}"
        )
        messages.append(reply.to_message())

    # The same last turn again with the cache dropped: what turn 3 would cost without prefix reuse.
    model.drop_cache()
    t = time.perf_counter()
    model.complete(messages[:-1], tools, settings)
    uncached_s = time.perf_counter() - t
    print(f"turn 3 without the KV cache: {uncached_s:.2f} s")

    # A new process's first turn when the system prompt's KV was kept on disk by an earlier one.
    with tempfile.TemporaryDirectory() as tmp:
        disk = LocalModel(n_threads=args.threads, prompt_cache_dir=tmp)
        disk.drop_cache()  # a file is written only when the prompt is evaluated afresh
        disk.complete(messages[:2], tools, settings)  # the earlier process: evaluates and writes the file
        disk.drop_cache()
        t = time.perf_counter()
        reply = disk.complete(messages[:2], tools, settings)
        disk_s = time.perf_counter() - t
    print(
        f"turn 1 with the system prompt's KV read from disk: {disk_s:.2f} s (cached {reply.usage.cached_tokens})"
    )
    print(
        f"load_s={load_s:.2f} first_turn_s={seconds[0]:.2f} turn2_s={seconds[1]:.2f} turn3_s={seconds[2]:.2f} "
        f"turn3_nocache_s={uncached_s:.2f} first_turn_diskkv_s={disk_s:.2f} cached_turn2={cached[1]} "
        f"cached_turn3={cached[2]} prompt_tokens={prompt_tokens}"
    )


if __name__ == "__main__":
    main()
