"""Graders: exact, regex, JSON-field match, numeric tolerance, sandboxed code, and an LLM judge."""

from __future__ import annotations

import pytest

from grove.evolve.graders import make_grader
from grove.llm.script import ScriptModel


def test_exact_uses_the_final_line_and_ignores_case() -> None:
    g = make_grader("exact")
    assert g("thinking...\nAnswer: Deny.", "deny").score == 1.0
    bad = g("approve", "deny")
    assert bad.score == 0.0 and "expected 'deny'" in bad.feedback


def test_regex_from_spec_or_expected() -> None:
    assert make_grader("regex:^\\d+ km$")("12 km", None).score == 1.0
    assert make_grader("regex")("the answer is 42", r"\b42\b").score == 1.0
    assert make_grader("regex")("41", r"\b42\b").score == 0.0


def test_json_fields_scores_the_fraction_right() -> None:
    g = make_grader("json")
    got = g('Here: {"name": "Ada", "year": 1843}', {"name": "ada", "year": 1842})
    assert got.score == 0.5 and "year" in got.feedback
    assert make_grader("json:name")('{"name": "Ada", "year": 0}', {"name": "Ada", "year": 1}).score == 1.0
    assert g("no json", {"a": 1}).score == 0.0


def test_numeric_tolerance() -> None:
    assert make_grader("numeric:0.01")("about 1,000.5 m", 1000).score == 1.0
    assert make_grader("numeric:0.01")("1100", 1000).score == 0.0
    assert make_grader("numeric")("none", 3).score == 0.0


def test_sandboxed_code_grader() -> None:
    from pathlib import Path

    g = make_grader(f"code:{Path(__file__).with_name('graderfns.py')}:length_is", allow_unisolated=True)
    assert g("abc", 3).score == 1.0
    assert g("ab", 3).feedback == "length 2"


def test_llm_judge_and_unknown() -> None:
    judge = ScriptModel(lambda m, t: "PASS same meaning" if "Paris" in m[0]["content"] else "FAIL")
    g = make_grader("llm", judge)
    assert g("It is Paris", "Paris").score == 1.0
    with pytest.raises(ValueError):
        make_grader("llm")
    with pytest.raises(ValueError):
        make_grader("bogus")
