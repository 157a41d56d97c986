"""Compression fidelity over many realistic long sessions (benchmarks/compression_session.py builds them).

Each session is played through the compressor as the agent would (it compresses whenever the threshold fires),
then compressed once more at the end. A planted fact counts as compressed when its message left the live
context, and as kept when the compressed-context message still states it: all of its needles on one line (a
value right after its subject, so a stale value elsewhere does not count; a constraint as its whole sentence).
Sizes are cl100k tokens of the final live context against the whole session (offline tiktoken, bpe-openai):
`context_ratio`; `step_ratio` is each automatic compression alone (the live context after it against before it,
which the protected tail and the ledger's budget bound from below).

Summarisers: `script` answers with a fixed sectioned text holding no facts, so its figures are what the ledger
alone keeps; `lossy` is a scripted model summary that states some facts, paraphrases others and gets one value
wrong (the check must complete and correct it); `local` is the embedded llama.cpp model when it loads.
Usage: python benchmarks/compression.py [--summariser script|lossy|local] [--seeds 30] [--turns 80] [--window 32000]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from compression_session import Fact, build_session  # noqa: E402
from grove.context.compressor import Compressor  # noqa: E402
from grove.context.summary import SUMMARY_MARKER  # noqa: E402
from grove.context.tokens import conversation_tokens  # noqa: E402
from grove.llm.script import ScriptModel  # noqa: E402
from grove.llm.types import Message, Model, ModelSettings, Usage  # noqa: E402
from grove.store.sessions import SessionStore  # noqa: E402
from tokens import count_tokens  # noqa: E402

KINDS = ("request", "constraint", "decision", "finding", "value", "path", "error")


class AgentWindow:
    """Stands for the agent's model: compression sizes the head, tail and thresholds from its window."""

    name = "bench-agent"

    def __init__(self, window: int) -> None:
        self.context_window = window

    def complete(self, *args: object, **kwargs: object) -> object:
        raise AssertionError("the agent model is not called by compression")


def script_summariser() -> ScriptModel:
    text = "\n".join(
        f"## {s}\n- (see the facts recorded by grove)" for s in ("Goal", "Progress", "Next steps")
    )
    return ScriptModel(lambda messages, tools: text, name="script")


def lossy_summariser() -> ScriptModel:
    """A summary that keeps a third of the turns' sentences, and states every number it copies off by one."""

    def reply(messages: list[Message], tools: object) -> str:
        turns = str(messages[-1]["content"])
        lines = [ln for ln in turns.splitlines() if ln.startswith(("USER:", "ASSISTANT:"))]
        kept = [ln.split(": ", 1)[1][:300] for ln in lines[::3]]
        values = re.findall(r"\b([A-Za-z_]{5,}\w*)(: | = )(\d{2,})\b", turns)[:5]
        wrong = [f"{k}{sep}{int(v) + 1}" for k, sep, v in values]
        return "## Goal\ncontinue the work\n## Progress\n" + "\n".join(f"- {k}" for k in kept + wrong)

    return ScriptModel(reply, name="lossy")


def local_summariser() -> Model | None:
    try:
        from grove.llm.local import LocalModel

        model = LocalModel()
        model.complete([{"role": "user", "content": "Say OK."}], [], ModelSettings(max_tokens=4))
        return model
    except Exception as e:  # the embedded model is optional: report it missing rather than fail the benchmark
        print(f"local summariser unavailable: {type(e).__name__}: {e}", file=sys.stderr)
        return None


def render(messages: list[Message]) -> str:
    parts = []
    for m in messages:
        parts.append(f"{m['role']}: {m.get('content') or ''}")
        if m.get("tool_calls"):
            parts.append(json.dumps(m["tool_calls"]))
    return "\n".join(parts)


def stated(fact: Fact, text: str) -> bool:
    norm = " ".join(text.split())
    if fact.kind == "constraint":
        return " ".join(fact.needles[0].split()) in norm
    for line in text.splitlines():
        low = line.lower()
        if all(n.lower() in low for n in fact.needles):
            if not fact.adjacent:
                return True
            subject, value = (re.escape(n.lower()) for n in fact.needles)
            if re.search(rf"\b{subject}\b\W{{1,4}}{value}\b", low):
                return True
    return False


def play(summariser: Model, seed: int, turns: int, window: int) -> dict[str, object]:
    session = build_session(random.Random(seed), turns)
    system: Message = {"role": "system", "content": "You are grove, a coding agent."}
    with tempfile.TemporaryDirectory() as tmp:
        store = SessionStore.open(Path(tmp) / "state.db")
        sid = store.create_session("bench", system_prompt=system["content"])
        compressor = Compressor(AgentWindow(window), store, sid, summarizer=summariser)  # type: ignore[arg-type]
        live: list[Message] = [system]
        for m in session.messages:
            if (
                m["role"] == "assistant"
            ):  # a model call: compress first when due, then observe its prompt size
                live = compressor.before_call(live, [])
                compressor.observe(Usage(prompt_tokens=conversation_tokens(live)))
            store.add_message(sid, m)
            live.append(m)
        live = compressor.compress(live, "manual")
        compressions = [r for r in compressor.reports if r.status != "skipped"]
        store.db.close()
    summary = next(
        (str(m["content"]) for m in live if str(m.get("content") or "").startswith(SUMMARY_MARKER)), ""
    )
    verbatim = {json.dumps(m, sort_keys=True) for m in live}
    compressed = [
        f for f in session.facts if json.dumps(session.messages[f.index], sort_keys=True) not in verbatim
    ]
    kept = [f for f in compressed if stated(f, summary)]
    return {
        "compressed": compressed,
        "kept": kept,
        "tokens_before": count_tokens(render([system, *session.messages])),
        "tokens_after": count_tokens(render(live)),
        "summary_tokens": count_tokens(summary),
        "corrections": summary.split("## Corrections", 1)[1].split("\n\n")[0].count("\n- ")
        if "## Corrections" in summary
        else 0,
        "compressions": len(compressions),
        # each automatic compression on its own: the live context after it against the context before it
        "step_ratios": [r.tokens_after / r.tokens_before for r in compressions if r.reason == "threshold"],
        "summary": summary,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--summariser", choices=("script", "lossy", "local"), default="script")
    parser.add_argument("--seeds", type=int, default=30)
    parser.add_argument("--turns", type=int, default=80)
    parser.add_argument("--window", type=int, default=32_000, help="the agent model's context window")
    parser.add_argument("--show", type=int, default=None, help="print this seed's summary message to stderr")
    args = parser.parse_args()
    summariser = {"script": script_summariser, "lossy": lossy_summariser, "local": local_summariser}[
        args.summariser
    ]()
    if summariser is None:
        print(f"summariser={args.summariser} status=unavailable")
        return
    per_kind = {k: [0, 0] for k in KINDS}
    ratios, counts, missing, corrections, steps = [], [], [], [], []
    for seed in range(args.seeds):
        row = play(summariser, seed, args.turns, args.window)
        for f in row["compressed"]:  # type: ignore[attr-defined]
            per_kind[f.kind][1] += 1
            if f in row["kept"]:  # type: ignore[operator]
                per_kind[f.kind][0] += 1
            else:
                missing.append(f"seed {seed} {f.kind}: {' | '.join(f.needles)}")
        ratios.append(row["tokens_after"] / row["tokens_before"])  # type: ignore[operator]
        counts.append(row["compressions"])
        corrections.append(row["corrections"])
        steps += row["step_ratios"]  # type: ignore[arg-type]
        print(
            f"seed {seed:>2}: kept {len(row['kept'])}/{len(row['compressed'])}; tokens {row['tokens_before']} -> "  # type: ignore[arg-type]
            f"{row['tokens_after']} (summary message {row['summary_tokens']}); {row['compressions']} compressions"
        )
        if args.show == seed:
            print(row["summary"], file=sys.stderr)
    for line in missing[:40]:
        print("missing:", line)
    kept = sum(k for k, _ in per_kind.values())
    total = sum(n for _, n in per_kind.values())
    print("by kind: " + ", ".join(f"{k} {a}/{n}" for k, (a, n) in per_kind.items()))
    figures = {
        "summariser": args.summariser,
        "seeds": args.seeds,
        "turns": args.turns,
        "window": args.window,
        "facts_compressed": total,
        "facts_kept": kept,
        "kept_share": round(kept / max(1, total), 4),
        "constraints_kept_share": round(per_kind["constraint"][0] / max(1, per_kind["constraint"][1]), 4),
        **{f"{k}_kept": f"{a}/{n}" for k, (a, n) in per_kind.items()},
        "context_ratio_mean": round(statistics.mean(ratios), 3),
        "context_ratio_max": round(max(ratios), 3),
        "compressions_mean": round(statistics.mean(counts), 2),
        "step_ratio_mean": round(statistics.mean(steps), 3) if steps else "-",
        "corrections_mean": round(statistics.mean(corrections), 2),  # wrong model values flagged (lossy)
    }
    print(" ".join(f"{k}={v}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
