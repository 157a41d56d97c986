"""Three deterministic evolution suites (refund eligibility, unit conversion, structured extraction): a seed skill
each (with one rule missing, so there is something to evolve) and a generated JSONL dataset with paraphrases.

    python benchmarks/evolve/suites.py OUT_DIR [--items 270]   # writes OUT_DIR/<suite>/{<skill>/SKILL.md,data.jsonl}
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

REFUND_SKILL = """---
name: refund-eligibility
description: Decide whether an order can be refunded under the store's written rules. Use for refund questions.
---
# Refund eligibility

Reply with exactly one word: approve or deny.

## Rules
- Orders more than 30 days old are denied.
- Opened software is denied.
- Everything else is approved.

## Examples
- Example: Order placed 5 days ago. Item: book, unopened. -> approve
"""
# missing rule: items that arrived damaged are approved whatever their age or state

UNITS_SKILL = """---
name: unit-conversion
description: Convert quantities between units. Use when asked to convert a length, mass or volume.
---
# Unit conversion

Reply with the number only, rounded to two decimals.

## Factors
- 1 km = 1000 m
- 1 m = 100 cm
- 1 kg = 1000 g
- 1 l = 1000 ml

## Examples
- Example: Convert 3 km to m. -> 3000
"""
# missing factors: miles and pounds

EXTRACT_SKILL = """---
name: person-extraction
description: Extract a person's name, birth year and city from a sentence as JSON. Use for extraction requests.
---
# Person extraction

Reply with one JSON object and nothing else.

## Fields
- name: the person's full name as written
- year: the birth year as a number

## Examples
- Example: Ada Byron was born in 1815 in London. -> {"name": "Ada Byron", "year": 1815, "city": "London"}
"""
# missing field rule: city

FIRST = ["Ada", "Alan", "Grace", "Linus", "Mary", "Kurt", "Emmy", "John", "Rosa", "Niels", "Lise", "Carl"]
LAST = ["Lovelace", "Turing", "Hopper", "Pauling", "Curie", "Godel", "Noether", "Nash", "Franklin", "Bohr"]
CITIES = ["Paris", "Berlin", "Vienna", "Boston", "Leeds", "Oslo", "Turin", "Prague", "Dublin", "Lyon"]


def refund_item(rng: random.Random, i: int) -> dict[str, Any]:
    days = rng.randint(1, 60)
    item = rng.choice(["book", "headphones", "software", "lamp", "shirt"])
    state = rng.choice(["opened", "unopened"])
    damaged = rng.random() < 0.25
    cond = "arrived damaged" if damaged else "arrived fine"
    if damaged:
        expected = "approve"
    elif days > 30 or (item == "software" and state == "opened"):
        expected = "deny"
    else:
        expected = "approve"
    text = f"Order placed {days} days ago. Item: {item}, {state}, {cond}."
    para = f"I bought {item} ({state}) {days} days ago and it {cond}. Can I get a refund?"
    return {
        "id": f"refund-{i}",
        "input": text,
        "expected": expected,
        "paraphrases": [para],
        "grader": "exact",
    }


UNITS = [
    ("km", "m", 1000.0),
    ("m", "cm", 100.0),
    ("kg", "g", 1000.0),
    ("l", "ml", 1000.0),
    ("mi", "km", 1.609344),
    ("lb", "kg", 0.45359237),
]


def units_item(rng: random.Random, i: int) -> dict[str, Any]:
    src, dst, factor = rng.choice(UNITS)
    qty = rng.choice([1, 2, 3, 5, 7, 10, 12, 20, 25, 40]) + rng.choice([0, 0.5])
    text = f"Convert {qty:g} {src} to {dst}."
    para = f"How many {dst} is {qty:g} {src}?"
    return {
        "id": f"units-{i}",
        "input": text,
        "expected": round(qty * factor, 2),
        "paraphrases": [para],
        "grader": "numeric:0.01",
    }


def extract_item(rng: random.Random, i: int) -> dict[str, Any]:
    name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
    year = rng.randint(1800, 2000)
    city = rng.choice(CITIES)
    text = f"{name} was born in {year} in {city}."
    para = f"Born in {city} in {year}, {name} later became famous."
    return {
        "id": f"extract-{i}",
        "input": text,
        "expected": {"name": name, "year": year, "city": city},
        "paraphrases": [para],
        "grader": "json",
    }


SUITES: dict[str, tuple[str, str, Callable[[random.Random, int], dict[str, Any]]]] = {
    "refund": ("refund-eligibility", REFUND_SKILL, refund_item),
    "units": ("unit-conversion", UNITS_SKILL, units_item),
    "extract": ("person-extraction", EXTRACT_SKILL, extract_item),
}


def write_suite(out: Path, suite: str, items: int = 270, seed: int = 0) -> tuple[Path, Path]:
    name, skill, make = SUITES[suite]
    rng = random.Random(f"{suite}-{seed}")
    folder = out / suite / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(skill, encoding="utf-8")
    data = out / suite / "data.jsonl"
    data.write_text("".join(json.dumps(make(rng, i)) + "\n" for i in range(items)), encoding="utf-8")
    return folder, data


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("out", type=Path)
    ap.add_argument("--items", type=int, default=270)
    args = ap.parse_args()
    for suite in SUITES:
        folder, data = write_suite(args.out, suite, args.items)
        print(f"{suite}: {folder} {data}")


if __name__ == "__main__":
    main()
