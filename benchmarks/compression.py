"""Compression fidelity: a long synthetic session with planted facts (file names, numbers, decisions) spread
through it is compressed once; we count the planted facts that were compressed away and are still present in
the compressed context (skeleton + summary), and the cl100k tokens before and after.

Summarisers: `script` returns a fixed sectioned text with no facts of its own, so its figure is what the
deterministic skeleton alone keeps; `local` is the embedded llama.cpp model (grove.llm.local), when it loads.
Usage: python benchmarks/compression.py [--summariser script|local|both] [--turns 60] [--window 32000]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from grove.context.compressor import Compressor  # noqa: E402
from grove.context.summary import SUMMARY_MARKER  # noqa: E402
from grove.llm.script import ScriptModel  # noqa: E402
from grove.llm.types import Message, Model, ModelSettings  # noqa: E402
from grove.store.sessions import SessionStore  # noqa: E402
from tokens import count_tokens  # noqa: E402


@dataclass
class Fact:
    kind: str  # file | number | decision
    where: str  # user | tool_arg | tool_result | assistant
    text: str  # what is planted
    needle: str  # what must still be found (case-insensitive)
    index: int = -1  # message index it was planted at


FILES = [
    "services/billing/ledger_reconcile.py",
    "infra/terraform/vpc_peering.tf",
    "web/src/hooks/useQuotaBanner.ts",
    "scripts/backfill_invoices_2023.py",
    "docs/adr/0042-event-sourcing.md",
    "config/rate_limits.yaml",
    "tests/integration/test_refund_flow.py",
    "pkg/auth/jwks_rotation.go",
    "migrations/0117_add_tenant_index.sql",
    "tools/ci/flaky_quarantine.json",
]
NUMBERS = [
    ("user", "Keep the public API on port 8743, the load balancer expects it.", "8743"),
    ("user", "The nightly batch must finish within 47 minutes.", "47 minutes"),
    ("user", "Our staging tenant id is 5512093; never use production ids in tests.", "5512093"),
    ("user", "Limit the worker pool to 384 connections.", "384"),
    ("user", "The customer SLA is 99.95% monthly uptime.", "99.95"),
    ("tool_result", "MAX_RETRY_BUDGET = 1917", "1917"),
    ("tool_result", "SHARD_COUNT = 73  # chosen after the March incident", "SHARD_COUNT"),
    ("tool_result", "KAFKA_PARTITIONS = 96", "KAFKA_PARTITIONS"),
    ("tool_result", "cache_ttl_seconds: 2711", "2711"),
    ("tool_result", "LEGACY_CUTOFF_DATE = '2019-04-30'", "2019-04-30"),
]
DECISIONS = [
    ("We decided to use LMDB instead of Redis for the session cache, to drop a network hop.", "LMDB"),
    ("Decision: refunds go through the outbox table, never direct to Stripe.", "outbox"),
    ("We agreed to pin protobuf to 4.25 until the gRPC upgrade lands.", "4.25"),
    ("Decided: tenant deletion is soft (tombstone flag) for 30 days, then a purge job.", "tombstone"),
    ("We chose Argon2id over bcrypt for new password hashes.", "Argon2id"),
    ("Decision: the quota banner shows at 80% usage, not 90%.", "80%"),
    ("We will feature-flag the new ledger behind LEDGER_V2 and ramp 5% a day.", "LEDGER_V2"),
    ("Decided to drop Python 3.9 support in the next minor release.", "3.9"),
    ("We picked NATS JetStream for the webhook queue over SQS.", "JetStream"),
    ("Decision: migrations run in a separate deploy step, never on app boot.", "separate deploy step"),
]
FILLER = [
    "def handler(event, context):",
    "    payload = json.loads(event['body'])",
    "    if not payload:",
    "        return {'statusCode': 400}",
    "    result = process(payload)",
    "    log.info('done %s', result)",
    "    return {'statusCode': 200, 'body': json.dumps(result)}",
    "class Repo:",
    "    def get(self, key):",
    "        return self.db.fetch(key)",
]


def build_session(turns: int, rng: random.Random) -> tuple[list[Message], list[Fact]]:
    facts = [Fact("file", "tool_arg", f, f) for f in FILES]
    facts += [Fact("number", w, t, n) for w, t, n in NUMBERS]
    facts += [Fact("decision", "assistant", t, n) for t, n in DECISIONS]
    rng.shuffle(facts)
    slots = rng.sample(range(2, turns - 4), len(facts))  # not the first turn (head) nor the last ones (tail)
    by_turn = dict(zip(slots, facts, strict=True))
    messages: list[Message] = []
    for t in range(turns):
        fact = by_turn.get(t)
        user = f"Step {t}: continue with the migration work on module {t}."
        if fact and fact.where == "user":
            user += " " + fact.text
            fact.index = len(messages)
        messages.append({"role": "user", "content": user})
        path = fact.text if fact and fact.where == "tool_arg" else f"src/module_{t}.py"
        name = "write_file" if t % 3 == 0 else "read_file"
        args = {"path": path, "content": "..."} if name == "write_file" else {"path": path}
        cid = f"call_{t}"
        if fact and fact.where == "tool_arg":
            fact.index = len(messages)
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
                ],
            }
        )
        body = [f"{i + 1}|{rng.choice(FILLER)}" for i in range(40)]
        if fact and fact.where == "tool_result":
            body.insert(rng.randrange(5, 35), f"21|{fact.text}")
            fact.index = len(messages)
        result = "\n".join(body) if name == "read_file" else f"wrote 1,204 bytes to {path}"
        messages.append({"role": "tool", "tool_call_id": cid, "name": name, "content": result})
        answer = f"Done with step {t}: module {t} now uses the shared handler."
        if fact and fact.where == "assistant":
            answer += " " + fact.text
            fact.index = len(messages)
        messages.append({"role": "assistant", "content": answer})
    return messages, facts


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
    model = ScriptModel(lambda messages, tools: text, name="script")
    return model


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


def run(
    label: str, summariser: Model, turns: int, window: int, seed: int, show: bool = False
) -> dict[str, float | int | str]:
    messages, facts = build_session(turns, random.Random(seed))
    with tempfile.TemporaryDirectory() as tmp:
        store = SessionStore.open(Path(tmp) / "state.db")
        sid = store.create_session("bench", system_prompt="You are grove.")
        for m in messages:
            store.add_message(sid, m)
        system: Message = {"role": "system", "content": "You are grove."}
        before = [system, *store.messages(sid)]
        compressor = Compressor(AgentWindow(window), store, sid, summarizer=summariser)  # type: ignore[arg-type]
        started = time.perf_counter()
        after = compressor.compress(before, "manual")
        seconds = time.perf_counter() - started
        report = compressor.reports[-1]
        store.db.close()
    summary = next(
        (str(m["content"]) for m in after if str(m.get("content") or "").startswith(SUMMARY_MARKER)), ""
    )
    live = {json.dumps(m, ensure_ascii=False) for m in after}
    compressed = [f for f in facts if json.dumps(before[f.index + 1], ensure_ascii=False) not in live]
    kept = [f for f in compressed if f.needle.lower() in summary.lower()]
    by_kind = {
        k: (sum(1 for f in kept if f.kind == k), sum(1 for f in compressed if f.kind == k))
        for k in ("file", "number", "decision")
    }
    context_text = render(after)
    row: dict[str, float | int | str] = {
        "summariser": label,
        "status": report.status,
        "facts_compressed": len(compressed),
        "facts_kept": len(kept),
        "kept_share": round(len(kept) / max(1, len(compressed)), 3),
        "tokens_before": count_tokens(render(before)),
        "tokens_after": count_tokens(context_text),
        "summary_tokens": count_tokens(summary),
        "seconds": round(seconds, 2),
    }
    kinds = " ".join(f"{k}={a}/{b}" for k, (a, b) in by_kind.items())
    print(
        f"[{label}] {row['status']}: kept {len(kept)}/{len(compressed)} compressed facts ({kinds}); "
        f"tokens {row['tokens_before']} -> {row['tokens_after']} (summary message {row['summary_tokens']}); "
        f"{row['seconds']}s; missing: {', '.join(f.needle for f in compressed if f not in kept) or '-'}"
    )
    if show:
        print(summary, file=sys.stderr)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--summariser", choices=("script", "local", "both"), default="both")
    parser.add_argument("--turns", type=int, default=60)
    parser.add_argument("--window", type=int, default=32_000, help="the agent model's context window")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--show", action="store_true", help="print the summary message to stderr")
    args = parser.parse_args()
    figures: dict[str, float | int | str] = {
        "turns": args.turns,
        "facts": len(FILES) + len(NUMBERS) + len(DECISIONS),
    }
    if args.summariser in ("script", "both"):
        row = run("script", script_summariser(), args.turns, args.window, args.seed, args.show)
        figures.update({f"script_{k}": v for k, v in row.items() if k not in ("summariser",)})
    if args.summariser in ("local", "both"):
        model = local_summariser()
        if model is None:
            figures["local_status"] = "unavailable"
        else:
            row = run("local", model, args.turns, args.window, args.seed, args.show)
            figures.update({f"local_{k}": v for k, v in row.items() if k not in ("summariser",)})
    print(" ".join(f"{k}={v}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
