"""Deterministic operators, the reflective operator, and section-wise crossover."""

from __future__ import annotations

from grove.evolve.crossover import common_ancestor, crossover_pass, recombine
from grove.evolve.operators import add_worked_examples, drop_section, shorten_section
from grove.evolve.reflective import reflect
from grove.llm.script import ScriptModel

FAIL = {
    "Inputs": "order 12 days old, opened software",
    "Generated Outputs": "approve",
    "Feedback": "expected 'deny'",
    "Expected": "deny",
    "score": 0.0,
}
PASS = dict(FAIL, Inputs="order 3 days old", Expected="approve", score=1.0)


def test_add_worked_examples_appends_failures_within_budget() -> None:
    out = add_worked_examples("## Examples\n", [PASS, FAIL], max_added_bytes=200)
    assert out == "## Examples\n- Example: order 12 days old, opened software -> deny\n"
    assert add_worked_examples("## Examples\n", [FAIL], max_added_bytes=10) is None
    assert add_worked_examples(out, [FAIL], max_added_bytes=200) is None  # already there


def test_drop_and_shorten() -> None:
    assert drop_section("01 ## Notes", "## Notes\nx\n") == ""
    assert drop_section("00 preamble", "# T\n") is None
    short = shorten_section("## Rules\n- a (see the appendix)\nNote: be nice.\n\n\n- b\n")
    assert short == "## Rules\n- a\n\n- b\n"
    assert shorten_section("## Rules\n- a\n- b\n") is None  # nothing soft to trim: no rule is lost
    assert shorten_section("## Rules\n") is None


def test_reflect_keeps_the_heading_and_reads_the_expected_answers() -> None:
    seen: list[str] = []

    def fn(messages, tools):
        seen.append(messages[0]["content"])
        return "```\n- Orders within 30 days are approved.\n- Opened software is denied.\n```"

    model = ScriptModel(fn)
    out = reflect(
        model, "skill text", "01 ## Rules", "## Rules\n- Orders within 30 days are approved.\n", [FAIL], 500
    )
    assert out == "## Rules\n- Orders within 30 days are approved.\n- Opened software is denied.\n"
    assert "## Expected\ndeny" in seen[0]
    assert reflect(model, "s", "01 ## Rules", "## Rules\n", [PASS], 500) is None


def test_crossover_combines_sections_improved_in_different_lineages() -> None:
    base = {"00 preamble": "# T\n", "01 ## Rules": "## Rules\n- a\n", "02 ## Examples": "## Examples\n"}
    left = dict(base, **{"01 ## Rules": "## Rules\n- a\n- b\n"})  # lineage 1 improved the rules
    right = dict(base, **{"02 ## Examples": "## Examples\n- x -> y\n"})  # lineage 2 the examples
    parents = [[None], [0], [0], [1], [2]]  # 3 descends from 1, 4 from 2
    assert common_ancestor(parents, 3, 4) == 0
    child = recombine(base, left, right)
    assert child == {
        "00 preamble": "# T\n",
        "01 ## Rules": "## Rules\n- a\n- b\n",
        "02 ## Examples": "## Examples\n- x -> y\n",
    }
    assert recombine(base, left, left) is None
    conflict = dict(base, **{"01 ## Rules": "## Rules\n- c\n"})
    assert recombine(base, left, conflict) is None


def test_crossover_pass_recombines_front_members_of_two_lineages() -> None:
    base = {"00 preamble": "# T\n", "01 ## Rules": "## Rules\n- a\n", "02 ## Examples": "## Examples\n"}
    rules = dict(base, **{"01 ## Rules": "## Rules\n- a\n- b\n"})
    examples = dict(base, **{"02 ## Examples": "## Examples\n- x -> y\n"})
    pool = [base, rules, examples]
    children = crossover_pass(pool, [[None], [0], [0]], [1, 2])
    assert children == [(dict(rules, **{"02 ## Examples": "## Examples\n- x -> y\n"}), [1, 2])]
    assert crossover_pass(pool, [[None], [None], [None]], [1, 2]) == []  # no common ancestor
