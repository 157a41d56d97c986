"""Graders and mutation operators from plugins reach evolve by name; a broken one is an error, not a crash."""

from __future__ import annotations

import pytest
from tests.plugins.fakedist import MakePlugin

from grove.evolve.adapter import Schedule
from grove.evolve.graders import make_grader

MOD = """
from grove.evolve.attempt import Grade, as_attempt


def starts_with(arg, ctx):
    def grade(attempt, expected):
        ok = as_attempt(attempt).answer.startswith(arg)
        return Grade(1.0 if ok else 0.0, "ok" if ok else "no")
    return grade


def upper(key, section, records, room):
    return section.upper()
"""


def test_plugin_grader_and_mutation(make_plugin: MakePlugin) -> None:
    make_plugin(
        "grove-evo",
        entry_points={
            "grove.graders": {"starts": "grove_evo_mod:starts_with", "exact": "grove_evo_mod:starts_with"},
            "grove.mutations": {"upper": "grove_evo_mod:upper", "gone": "grove_evo_missing:x"},
        },
        modules={"grove_evo_mod": MOD},
    )
    grader = make_grader("starts:ab")
    assert grader("abc", None).score == 1.0 and grader("xbc", None).score == 0.0
    schedule = Schedule(["examples", "upper"])
    assert schedule.plugins["upper"]("k", "## a\nb", [], 10) == "## A\nB"
    with pytest.raises(ValueError, match=r"grove\.mutations plugin"):
        Schedule(["gone"])
    with pytest.raises(ValueError, match="unknown grader"):
        make_grader("nosuch")
