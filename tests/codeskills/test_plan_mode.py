"""Plan steps: the submit_plan schema (enum of existing skills), its parser, and the embedded model's grammar."""

from __future__ import annotations

import json

import pytest

from grove.plan.steps import PlanError, parse_plan, plan_schema


def test_schema_lists_existing_skills_as_an_enum() -> None:
    steps = plan_schema(["moving-average", "csv-column"])["function"]["parameters"]["properties"]["steps"]
    call = next(v for v in steps["items"]["oneOf"] if v["properties"]["kind"] == {"enum": ["call_skill"]})
    assert call["properties"]["skill"]["anyOf"][0] == {"enum": ["csv-column", "moving-average"]}
    kinds = [v["properties"]["kind"]["enum"][0] for v in steps["items"]["oneOf"]]
    assert kinds == ["write_skill", "call_skill", "write_result", "done"]


def test_parse_accepts_calls_to_existing_and_newly_written_skills() -> None:
    plan = parse_plan(
        {
            "steps": [
                {"kind": "write_skill", "skill": "median", "detail": "rolling median"},
                {"kind": "call_skill", "skill": "new:median", "detail": "on the prices"},
                {"kind": "call_skill", "skill": "csv-column", "detail": "prices"},
                {"kind": "write_result", "detail": "out.csv"},
                {"kind": "done", "detail": "ok"},
            ]
        },
        ["csv-column"],
    )
    assert [s.render() for s in plan.steps[:3]] == [
        "write_skill median: rolling median",
        "call_skill median: on the prices",
        "call_skill csv-column: prices",
    ]
    assert json.loads(plan.to_json())["steps"][3] == {
        "kind": "write_result",
        "skill": "",
        "detail": "out.csv",
    }


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        ([{"kind": "call_skill", "skill": "nope", "detail": ""}], "no skill 'nope'"),
        ([{"kind": "write_skill", "skill": "csv-column", "detail": ""}], "exists already"),
        ([{"kind": "write_skill", "skill": "Bad Name", "detail": ""}], "needs a new skill name"),
        ([{"kind": "dance", "detail": ""}], "kind must be one of"),
        ([], "at least one step"),
    ],
)
def test_parse_refuses_plans_that_do_not_hold(steps: list, message: str) -> None:
    with pytest.raises(PlanError, match=message):
        parse_plan(json.dumps({"steps": steps}), ["csv-column"])


def test_the_embedded_models_grammar_accepts_the_plan_schema() -> None:
    pytest.importorskip("llama_cpp")
    from llama_cpp import LlamaGrammar

    from grove.llm.local_grammar import build_grammar, tool_specs

    text = build_grammar(tool_specs([plan_schema(["csv-column", "moving-average"])]), allow_text=False)
    assert '"\\"csv-column\\""' in text and '"\\"write_skill\\""' in text  # names and kinds are literals
    LlamaGrammar.from_string(text, verbose=False)
