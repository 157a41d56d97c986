"""Datasets: JSONL loading, and splits by family that never let paraphrases cross, reproducible by seed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grove.evolve.dataset import Example, load_jsonl, split_by_family


def _items(n: int) -> list[dict]:
    return [
        {
            "id": f"i{i}",
            "input": f"q{i}",
            "expected": str(i),
            "family": f"f{i // 3}",
            "paraphrases": [f"Q{i}?"],
        }
        for i in range(n)
    ]


def test_load_jsonl_reads_fields(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in _items(4)) + "\n\n", encoding="utf-8")
    got = load_jsonl(path)
    assert [e.id for e in got] == ["i0", "i1", "i2", "i3"]
    assert got[0].paraphrases == ("Q0?",) and got[0].family == "f0"
    assert got[0].prompts(2) == ["q0", "Q0?"] and got[0].prompts(1) == ["q0"]


def test_load_jsonl_refuses_items_without_expected(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"input": "x"}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="expected"):
        load_jsonl(path)


def test_families_never_cross_splits_and_the_seed_fixes_them() -> None:
    examples = [
        Example(id=x["id"], input=x["input"], expected=x["expected"], family=x["family"]) for x in _items(90)
    ]
    a = split_by_family(examples, seed=3)
    b = split_by_family(examples, seed=3)
    c = split_by_family(examples, seed=4)
    fams = [{e.family for e in part} for part in (a.train, a.val, a.test)]
    assert not (fams[0] & fams[1] or fams[0] & fams[2] or fams[1] & fams[2])
    assert sum(a.sizes().values()) == 90 and all(a.sizes().values())
    assert [e.id for e in a.test] == [e.id for e in b.test]
    assert [e.id for e in a.test] != [e.id for e in c.test]
