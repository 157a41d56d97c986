"""load_group: entry points found from metadata, loaded lazily, a broken plugin reported and skipped."""

from __future__ import annotations

import sys

from tests.plugins.fakedist import MakePlugin

from grove.plugins import list_group, load_group


def test_listing_imports_nothing_and_loading_imports(make_plugin: MakePlugin) -> None:
    make_plugin(
        "grove-hello",
        "0.3",
        entry_points={"grove.tools": {"hello": "grove_hello_mod:TOOLS"}},
        modules={"grove_hello_mod": "TOOLS = ['a tool']\n"},
    )
    entries = list_group("grove.tools")
    assert [(e.name, e.dist, e.version) for e in entries] == [("hello", "grove-hello", "0.3")]
    assert "grove_hello_mod" not in sys.modules
    [plugin] = load_group("grove.tools")
    assert plugin.ok and plugin.obj == ["a tool"] and plugin.source == "grove-hello 0.3"


def test_a_broken_plugin_is_reported_and_the_others_still_load(make_plugin: MakePlugin) -> None:
    make_plugin(
        "grove-broken",
        entry_points={
            "grove.graders": {
                "boom": "grove_broken_mod:GRADER",
                "missing": "grove_no_such_module:X",
                "noattr": "grove_good_mod:NOPE",
                "exits": "grove_exit_mod:X",
                "good": "grove_good_mod:GRADER",
            }
        },
        modules={
            "grove_broken_mod": "raise RuntimeError('plugin exploded')\n",
            "grove_good_mod": "GRADER = 42\n",
            "grove_exit_mod": "raise SystemExit(3)\n",
        },
    )
    by_name = {p.name: p for p in load_group("grove.graders")}
    assert by_name["good"].obj == 42 and by_name["good"].ok
    assert "RuntimeError: plugin exploded" in (by_name["boom"].error or "")
    assert "ModuleNotFoundError" in (by_name["missing"].error or "")
    assert "AttributeError" in (by_name["noattr"].error or "")
    assert "SystemExit" in (by_name["exits"].error or "")
    assert all(p.obj is None for p in by_name.values() if not p.ok)


def test_an_unknown_group_is_empty() -> None:
    assert load_group("grove.nothing-here") == []
