"""Crossover inside a run: two lineages each fix a different section; the recombination pass joins them."""

from __future__ import annotations

import json
import re
from pathlib import Path

from grove.evolve.run import EvolveConfig, run_evolution
from grove.llm.script import ScriptModel

SKILL = """---
name: refund-policy
description: Decide refund eligibility for an order. Use when asked whether an order can be refunded.
---
# Refund policy

Answer with one word: approve or deny.

## Rules
- Orders more than 30 days old are denied.

## Delivery
- Delivery problems are handled by the carrier.
"""
R1 = "- Opened software is denied."
R2 = "- Damaged items are approved."


def decide(skill: str, q: str) -> str:
    if "damaged" in q:
        return "approve" if R2 in skill else "deny"
    if "opened software" in q:
        return "deny" if R1 in skill else "approve"
    days = int(re.search(r"(\d+) days", q).group(1))
    return "deny" if days > 30 else "approve"


def reflect_fn(messages: list[dict], tools: list[dict]) -> str:
    p = messages[-1]["content"]
    section = p.split("<section>\n", 1)[1].split("\n</section>", 1)[0]
    if section.startswith("## Rules") and "opened software" in p and R1 not in section:
        return section.rstrip("\n") + "\n" + R1 + "\n"
    if section.startswith("## Delivery") and "damaged" in p and R2 not in section:
        return section.rstrip("\n") + "\n" + R2 + "\n"
    return section


def write_data(path: Path) -> Path:
    items = []
    for i in range(120):
        kind = i % 3
        what = ["opened software", "damaged lamp", "unopened book"][kind]
        days = 2 + (i * 7) % 50
        q = f"order {days} days old, {what}"
        items.append({"id": f"r{i}", "input": q, "expected": decide(SKILL + R1 + R2, q)})
    path.write_text("".join(json.dumps(x) + "\n" for x in items))
    return path


def test_crossover_combines_two_sections_improved_in_different_lineages(tmp_path: Path) -> None:
    folder = tmp_path / "refund-policy"
    folder.mkdir()
    (folder / "SKILL.md").write_text(SKILL, encoding="utf-8")
    data = write_data(tmp_path / "d.jsonl")
    task = ScriptModel(lambda m, tools: decide(m[0]["content"], m[-1]["content"]))
    cfg = EvolveConfig(budget=150, seed=1, operators=["reflect"])
    report = run_evolution(folder, data, tmp_path / "run", task, ScriptModel(reflect_fn), cfg)
    cands = report["candidates"]
    children = [c for c in cands if c["origin"] == "crossover"]
    assert children, "the recombination pass proposed nothing"
    child = children[0]
    a, b = child["parents"]
    text = (tmp_path / "run" / "candidates" / f"{child['index']:03d}.md").read_text(encoding="utf-8")
    assert R1 in text and R2 in text  # both fixes
    for parent, fix, other in (
        ((a, R1, R2), (b, R2, R1)) if R1 in _text(tmp_path, a) else ((a, R2, R1), (b, R1, R2))
    ):
        parent_text = _text(tmp_path, parent)
        assert fix in parent_text and other not in parent_text  # each lineage fixed one section only
    assert child["val"]["accuracy"] > max(cands[a]["val"]["accuracy"], cands[b]["val"]["accuracy"])


def _text(tmp_path: Path, index: int) -> str:
    return (tmp_path / "run" / "candidates" / f"{index:03d}.md").read_text(encoding="utf-8")
