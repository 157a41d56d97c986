"""The built-in registry by toolset: the module table matches what each module makes, and a session's toolsets
give the same tools as selecting from everything, without importing the other toolsets' modules."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from grove.tools.builtin import MODULE_OF, builtin_registry


def test_each_module_makes_exactly_the_toolsets_the_table_gives_it() -> None:
    for module in set(MODULE_OF.values()):
        made = {t.toolset for t in importlib.import_module(f"grove.tools.{module}").tools()}
        assert made == {ts for ts, m in MODULE_OF.items() if m == module}, module


@pytest.mark.parametrize(
    "toolsets",
    [["files", "todo", "skills", "memory", "sessions"], ["terminal"], ["web", "files"], list(MODULE_OF)],
)
def test_a_sessions_toolsets_are_the_same_tools_as_selected_from_all(toolsets: list[str]) -> None:
    some, every = builtin_registry(toolsets).select(toolsets), builtin_registry().select(toolsets)
    assert some.names() == every.names()
    assert [t.schema for t in some] == [t.schema for t in every]


def test_an_unknown_toolset_still_lists_every_known_one() -> None:
    with pytest.raises(Exception, match=r"unknown toolset.*known: browser, code_skills"):
        builtin_registry(["files", "nope"]).select(["files", "nope"])


def test_other_toolsets_modules_are_not_imported() -> None:
    code = (
        "import sys; from grove.tools.builtin import builtin_registry; builtin_registry(['files', 'todo']);"
        "print(sorted(m for m in ('grove.tools.browser', 'grove.tools.web', 'grove.tools.cron',"
        " 'grove.tools.delegate', 'grove.plugins.loader') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
