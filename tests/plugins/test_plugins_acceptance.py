"""A plugin package adds a provider and a tool; `grove plugins list` shows it; a broken plugin is listed with its
error and grove still works."""

from __future__ import annotations

import json

import pytest
from tests.clirun import grove
from tests.plugins.fakedist import MakePlugin

PLUGIN = '''
from grove.llm.script import ScriptModel
from grove.tools.registry import make_tool


def shout(ctx, text: str) -> str:
    """Upper-case a text.

    Args:
        text: what to shout.
    """
    return text.upper() + "!"


TOOLS = [make_tool(shout, toolset="ignored")]


def reply(messages, tools):
    last = messages[-1]
    if last["role"] == "tool":
        return {"text": "tool said " + last["content"]}
    offered = sorted(t["function"]["name"] if "function" in t else t["name"] for t in tools)
    assert "shout" in offered, offered
    return {"tool_calls": [{"name": "shout", "arguments": {"text": "hello"}}]}


def make_model(spec, provider, settings, long_lived=False):
    return ScriptModel(reply, name=f"{provider.name}:{spec.model}")
'''


@pytest.fixture
def plugins(make_plugin: MakePlugin) -> None:
    make_plugin(
        "grove-shout",
        "0.2",
        entry_points={
            "grove.providers": {"shoutprov": "grove_shout_mod:make_model"},
            "grove.tools": {"shouting": "grove_shout_mod:TOOLS"},
        },
        modules={"grove_shout_mod": PLUGIN},
    )
    make_plugin(
        "grove-broken",
        "9.9",
        entry_points={
            "grove.tools": {"broken": "grove_broken_mod:TOOLS"},
            "grove.providers": {"badprov": "grove_broken_mod:make"},
        },
        modules={"grove_broken_mod": "import grove_no_such_dependency\n"},
    )


def test_plugin_provider_and_tool_run_a_turn(plugins: None, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = grove(capsys, "run", "shout hello", "-m", "shoutprov:any", "-t", "shouting", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["answer"] == "tool said HELLO!"


def test_plugins_list_shows_good_and_broken(plugins: None, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = grove(capsys, "plugins", "list", "--json")
    assert code == 0, err
    rows = {(r["group"], r["name"]): r for r in map(json.loads, out.splitlines())}
    prov = rows[("grove.providers", "shoutprov")]
    assert prov["ok"] and prov["package"] == "grove-shout 0.2" and "shoutprov:<model>" in prov["detail"]
    tool = rows[("grove.tools", "shouting")]
    assert tool["ok"] and "shout" in tool["detail"]
    for key in [("grove.tools", "broken"), ("grove.providers", "badprov")]:
        assert not rows[key]["ok"] and "grove_no_such_dependency" in rows[key]["detail"]
        assert rows[key]["package"] == "grove-broken 9.9"
    code, out, _ = grove(capsys, "plugins", "list")
    assert code == 0 and "ERROR broken" in out


def test_a_broken_plugin_does_not_stop_a_run(
    plugins: None, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path_factory.mktemp("s") / "s.yaml"
    script.write_text("- text: fine\n")
    code, out, err = grove(capsys, "run", "hi", "-m", f"script:{script}", "--json")
    assert code == 0, err
    assert json.loads(out)["answer"] == "fine"
    code, _, err = grove(capsys, "run", "hi", "-m", "badprov:x", "--json")
    assert code == 2 and "unknown" in err and "shoutprov:<model>" in err


def test_a_builtin_name_cannot_be_taken(make_plugin: MakePlugin, capsys: pytest.CaptureFixture[str]) -> None:
    make_plugin(
        "grove-hijack",
        entry_points={
            "grove.providers": {"openai": "grove_hijack_mod:make"},
            "grove.tools": {"x": "grove_hijack_mod:T"},
        },
        modules={
            "grove_hijack_mod": "from grove.tools.builtin import builtin_registry\n"
            "make = print\nT = [builtin_registry().get('read_file')]\n"
        },
    )
    _, out, _ = grove(capsys, "plugins", "list", "--json")
    rows = {r["name"]: r for r in map(json.loads, out.splitlines())}
    assert not rows["openai"]["ok"] and "built-in" in rows["openai"]["detail"]
    assert not rows["x"]["ok"] and "read_file" in rows["x"]["detail"]
