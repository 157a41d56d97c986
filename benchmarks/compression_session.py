"""Realistic long coding sessions with planted facts, for benchmarks/compression.py.

Each seed builds a different session: user requests (some with constraints, some pasting a long log), tool calls
reading code and config files and running commands (test runs, metrics, JSON from an API, errors), and assistant
answers with decisions and findings among plain chatter. Facts are phrased in many ways and surrounded by
distractors: other config keys and constants with numbers, local literals in code, timestamps, line numbers,
stale values of the same key that a later read supersedes.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

from compression_facts import (
    CHATTER,
    CONFIG_KEYS,
    CONSTANTS,
    CONSTRAINTS,
    DECISIONS,
    DIRS,
    ERRORS,
    FINDINGS,
    METRICS,
    NARRATION,
    REQUESTS,
    WORDS,
)
from grove.llm.types import Message


@dataclass
class Fact:
    kind: str  # request | constraint | decision | finding | value | path | error
    needles: list[str]  # all must be on one line of the compressed context (constraints: the sentence)
    index: int = -1  # the message it was planted in
    adjacent: bool = False  # values: the value must follow its subject closely (not a stale one elsewhere)


@dataclass
class Session:
    messages: list[Message] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)


class Builder:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.s = Session()
        self.calls = 0

    def fill(self, template: str, needles: list[str] | None = None) -> tuple[str, list[str]]:
        """Placeholders drawn once, so the text and its needles agree."""
        r = self.rng
        draws = {
            "{n1}": str(r.randint(2, 9)),
            "{n2}": str(r.randint(11, 95)),
            "{n3}": str(r.randint(120, 980)),
            "{n4}": str(r.randint(1100, 9900)),
            "{n5}": f"{r.randint(11, 99)},{r.randint(100, 999)}",
            "{n7}": str(r.randint(1_000_000, 9_999_999)),
            "{w}": r.choice(WORDS),
        }
        out = [template, *(needles or [])]
        for k, v in draws.items():
            out = [t.replace(k, v) for t in out]
        return out[0], out[1:]

    def num(self, template: str) -> str:
        return self.fill(template)[0]

    def path(self, ext: str = "py") -> str:
        return f"{self.rng.choice(DIRS)}/{self.rng.choice(WORDS)}_{self.rng.choice(['core', 'io', 'jobs', 'api', 'util'])}.{ext}"

    def add(self, message: Message, fact: Fact | None = None) -> None:
        if fact is not None:
            fact.index = len(self.s.messages)
            self.s.facts.append(fact)
        self.s.messages.append(message)

    def call(
        self, name: str, args: dict[str, object], result: str, text: str = "", fact: Fact | None = None
    ) -> None:
        self.calls += 1
        cid = f"call_{self.calls}"
        fn = {"name": name, "arguments": json.dumps(args)}
        self.add(
            {
                "role": "assistant",
                "content": text or None,
                "tool_calls": [{"id": cid, "type": "function", "function": fn}],
            }
        )
        self.add({"role": "tool", "tool_call_id": cid, "name": name, "content": result}, fact)

    def code_file(self, planted: str | None = None, numbered: bool = True) -> str:
        r = self.rng
        lines = ['"""Module docstring."""', "", "import logging", "from decimal import Decimal", ""]
        for c in r.sample(CONSTANTS, 2):  # distractor constants (facts too, but not planted)
            lines.append(f"{c}_DEFAULT = {r.randint(2, 500)}")
        if planted:
            lines.append(planted)
        for f in range(r.randint(4, 7)):
            name = f"{r.choice(['load', 'apply', 'sync', 'build', 'check'])}_{r.choice(WORDS)}_{f}"
            lines += [
                "",
                "",
                f"def {name}(rows, limit={r.randint(10, 900)}):",
                f'    """{name.replace("_", " ")}."""',
            ]
            for _ in range(r.randint(4, 9)):
                lines.append(r.choice([
                    f"    total = sum(r.amount for r in rows[:{r.randint(2, 99)}])",
                    f"    if len(rows) > {r.randint(10, 5000)}:",
                    "        raise ValueError('too many rows')",
                    f"    delay = {r.randint(1, 60)} * attempt",
                    "    log.info('processed %s rows', len(rows))",
                    f"    rows = [r for r in rows if r.status != {r.randint(400, 599)}]",
                    "    return Decimal(total).quantize(Decimal('0.01'))",
                ]))  # fmt: skip
        return "\n".join(f"{i + 1:>6}|{ln}" for i, ln in enumerate(lines)) if numbered else "\n".join(lines)

    def config_file(self, planted: tuple[str, str] | None) -> str:
        r = self.rng
        keys = r.sample(CONFIG_KEYS, r.randint(8, 14))
        out = [
            f"# generated {r.randint(2021, 2025)}-0{r.randint(1, 9)}-1{r.randint(0, 9)}",
            f"{r.choice(WORDS)}:",
        ]
        for k in keys:
            out.append(f"  {k}: {r.choice([str(r.randint(1, 9000)), 'info', 'eu-west-1', 'true', '30s'])}")
        if planted:
            out.insert(r.randint(2, len(out)), f"  {planted[0]}: {planted[1]}")
        return "\n".join(f"{i + 1:>6}|{ln}" for i, ln in enumerate(out))


def build_session(rng: random.Random, turns: int = 80) -> Session:
    b = Builder(rng)
    plan: list[str] = (
        ["constraint"] * 7 + ["request"] * 5 + ["decision"] * 7 + ["finding"] * 4 + ["value"] * 9 + ["error"] * 4
        + ["path"] * 4
    )  # fmt: skip
    rng.shuffle(plan)
    slots = dict(zip(sorted(rng.sample(range(1, turns - 2), len(plan))), plan, strict=True))
    constraints = rng.sample(CONSTRAINTS, 7)
    requests = rng.sample(REQUESTS, 5)
    decisions = rng.sample(DECISIONS, 7)
    findings = rng.sample(FINDINGS * 2, 4)
    errors = rng.sample(ERRORS, 4)
    stale: dict[str, str] = {}  # a constant read once with an old value, read again after a change
    for t in range(turns):
        kind = slots.get(t)
        module = b.path()
        if kind == "request":
            text, needle = requests.pop()
            b.add({"role": "user", "content": text}, Fact("request", [needle]))
        elif kind == "constraint":
            sentence = b.num(constraints.pop())
            if rng.random() < 0.3:  # pasted logs push the constraint past the first 600 characters
                log = "\n".join(
                    f"2026-03-0{rng.randint(1, 9)}T10:{rng.randint(10, 59)}:{rng.randint(10, 59)}Z INFO worker-{rng.randint(1, 9)} "
                    f"batch {rng.randint(100, 999)} done in {rng.randint(20, 900)} ms"
                    for _ in range(rng.randint(12, 25))
                )
                text = f"Here is the log from last night:\n{log}\nLooks fine to me. {sentence}"
            else:
                text = rng.choice(["", "Also: ", "One more thing. ", "Before you go on: "]) + sentence
                text += rng.choice(["", f" Then continue with {module}."])
            b.add({"role": "user", "content": text}, Fact("constraint", [sentence]))
        elif kind == "path":
            p = b.path(rng.choice(["py", "ts", "go", "sql", "yaml"]))
            text = rng.choice([f"The bug report points at {p}, start there.", f"Have a look at {p} next."])
            b.add({"role": "user", "content": text}, Fact("path", [p]))
        else:
            b.add({"role": "user", "content": rng.choice([
                f"Continue with {module}.", "ok, go on", f"Please look at {module}.", "Thanks. Next step?",
                f"Does {module} still need the old import?", "Carry on with the plan.",
            ])})  # fmt: skip
        # the work of the turn: one to three tool calls with realistic output
        for _ in range(rng.randint(1, 3)):
            narration = b.num(rng.choice(NARRATION)).replace("{p}", module)
            choice = rng.random()
            if kind == "value":
                plant_value(b, rng, stale)
                kind = None
            elif kind == "error":
                text, needles = b.fill(*errors.pop())
                out = f'exit=1\n{"=" * 20} FAILURES {"=" * 20}\nTraceback (most recent call last):\n  File "{module}", line {rng.randint(10, 400)}, in run\n    apply(rows)\n{text}\n{rng.randint(1, 3)} failed, {rng.randint(100, 400)} passed in {rng.randint(2, 40)}.{rng.randint(10, 99)}s'
                b.call(
                    "terminal",
                    {"command": f"pytest -q tests/{rng.choice(WORDS)}"},
                    out,
                    narration,
                    Fact("error", needles),
                )
                kind = None
            elif choice < 0.55:
                b.call("read_file", {"path": module}, b.code_file(), narration)
            elif choice < 0.7:
                b.call("read_file", {"path": b.path("yaml")}, b.config_file(None), narration)
            elif choice < 0.85:
                out = f"exit=0\n{rng.randint(100, 500)} passed, {rng.randint(0, 4)} skipped in {rng.randint(2, 60)}.{rng.randint(10, 99)}s"
                b.call("terminal", {"command": "pytest -q"}, out, narration)
            else:
                hits = "\n".join(
                    f"{b.path()}:{rng.randint(1, 400)}:    total = {rng.randint(1, 99)}"
                    for _ in range(rng.randint(3, 9))
                )
                b.call("search_files", {"pattern": "total ="}, hits, narration)
        answer = b.num(rng.choice(CHATTER)).replace("{m}", module)
        fact = None
        if kind == "decision":
            text, needles = decisions.pop()
            answer += " " + text
            fact = Fact("decision", needles)
        elif kind == "finding":
            text, needles = b.fill(*findings.pop())
            answer += " " + text
            fact = Fact("finding", needles)
        b.add({"role": "assistant", "content": answer}, fact)
    return b.s


def plant_value(b: Builder, rng: random.Random, stale: dict[str, str]) -> None:
    """One of: a YAML key in a config file, a module constant (maybe read earlier with another value), a metric
    in a benchmark's output, a leaf of a JSON answer."""
    form = rng.choice(["yaml", "constant", "metric", "json"])
    if form == "yaml":
        key = (
            rng.choice(["cache_ttl_seconds", "max_inflight", "shard_weight", "drain_seconds"])
            + f"_{rng.choice(WORDS)}"
        )
        value = str(rng.randint(1000, 9999))
        b.call(
            "read_file",
            {"path": b.path("yaml")},
            b.config_file((key, value)),
            "",
            Fact("value", [key, value], adjacent=True),
        )
    elif form == "constant":
        key = f"{rng.choice(CONSTANTS)}_{rng.choice(WORDS).upper()}"
        path = b.path()
        if rng.random() < 0.5:  # a stale value first: the fact is the later one
            b.call("read_file", {"path": path}, b.code_file(f"{key} = {rng.randint(10, 99)}"), "")
        value = str(rng.randint(100, 9999))
        b.call(
            "read_file",
            {"path": path},
            b.code_file(f"{key} = {value}  # tuned"),
            "",
            Fact("value", [key, value], adjacent=True),
        )
    elif form == "metric":
        key = rng.choice(METRICS)
        value = f"{rng.randint(100, 9999)}"
        lines = [f"{m}: {rng.randint(1, 999)}" for m in rng.sample(METRICS, 3) if m != key]
        lines.insert(rng.randint(0, len(lines)), f"{key}: {value}")
        out = "exit=0\nrunning load test (60s, 32 workers)\n" + "\n".join(lines)
        b.call(
            "terminal",
            {"command": f"python bench/{rng.choice(WORDS)}_load.py"},
            out,
            "",
            Fact("value", [key, value], adjacent=True),
        )
    else:
        key = rng.choice(["pending_jobs", "active_tenants", "open_disputes", "stuck_payouts"])
        value = str(rng.randint(1000, 99999))
        doc = {"status": rng.choice(["ok", "degraded"]), key: int(value), "checked_at": "2026-03-02T10:14:07Z",
               "version": f"{rng.randint(1, 9)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}", "workers": rng.randint(2, 64)}  # fmt: skip
        b.call(
            "terminal",
            {"command": "curl -s http://127.0.0.1:8080/admin/health"},
            json.dumps(doc),
            "",
            Fact("value", [key, value], adjacent=True),
        )
