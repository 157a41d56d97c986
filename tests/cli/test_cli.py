"""The CLI as a user drives it: run (text and --json), resume, sessions, config, errors with exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.clirun import grove


def script(tmp_path: Path, steps: str, name: str = "s.yaml") -> str:
    path = tmp_path / name
    path.write_text(steps)
    return f"script:{path}"


def test_run_json_reports_answer_usage_and_tool_calls(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    spec = script(
        tmp_path,
        "- tool_calls: [{name: write_file, arguments: {path: out.txt, content: hi}}]\n- text: Done.\n",
    )
    code, out, _ = grove(capsys, "run", "make out.txt", "-m", spec, "--json")
    assert code == 0
    data = json.loads(out)
    assert data["answer"] == "Done." and data["model_calls"] == 2 and data["model"] == spec
    assert data["tool_calls"] == [
        {"name": "write_file", "arguments": {"path": "out.txt", "content": "hi"}, "ok": True}
    ]
    assert set(data["usage"]) == {"prompt_tokens", "completion_tokens", "cached_tokens"}
    assert (tmp_path / "out.txt").read_text() == "hi"

    code, out, _ = grove(capsys, "sessions", "show", data["session_id"], "--json")
    assert [m["role"] for m in json.loads(out)["messages"]] == ["user", "assistant", "tool", "assistant"]


def test_run_prints_the_plain_answer_and_resume_continues(tmp_path, capsys) -> None:
    first = script(tmp_path, "- text: It is Paris.\n", "a.yaml")
    code, out, _ = grove(capsys, "run", "capital of France?", "-m", first, "-t", "")
    assert (code, out) == (0, "It is Paris.\n")
    second = script(tmp_path, "- text: Still Paris.\n", "b.yaml")
    code, out, _ = grove(capsys, "run", "and now?", "-m", second, "--resume", "last", "--json")
    data = json.loads(out)
    code, out, _ = grove(capsys, "sessions", "show", data["session_id"], "--json")
    contents = [m["content"] for m in json.loads(out)["messages"]]
    assert contents == ["capital of France?", "It is Paris.", "and now?", "Still Paris."]


def test_sessions_list_and_search(tmp_path, capsys) -> None:
    grove(capsys, "run", "remember the zebra protocol", "-m", script(tmp_path, "- text: noted\n"))
    code, out, _ = grove(capsys, "sessions", "list", "--json")
    assert code == 0 and json.loads(out)[0]["title"] == "remember the zebra protocol"
    code, out, _ = grove(capsys, "sessions", "search", "zebra", "--json")
    assert code == 0 and "[zebra]" in json.loads(out)[0]["snippet"]
    code, _, err = grove(capsys, "sessions", "search", "unicorn")
    assert code == 1 and "nothing found" in err


def test_sessions_commands_close_state_db(capsys, grove_home, store) -> None:
    # left to the garbage collector, state.db stayed open after `grove sessions list` in a process that runs
    # commands in-process; its -wal and -shm files then let a later run write in a home made read-only (0500)
    import gc
    import os

    fds = Path("/proc/self/fd")
    if not fds.is_dir():
        pytest.skip("needs /proc/self/fd to see this process's open files")

    def state_db_open() -> list[str]:
        found = []
        for fd in fds.iterdir():
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith(str(grove_home / "state.db")):
                found.append(target)
        return found

    sid = store.create_session("script", title="remember the zebra protocol")
    store.add_message(sid, {"role": "user", "content": "remember the zebra protocol"})
    store.db.close()
    assert state_db_open() == []
    gc.disable()  # from here only the commands themselves can close it
    try:
        for args in (["sessions", "list"], ["sessions", "show", "last"], ["sessions", "search", "zebra"]):
            code, _, err = grove(capsys, *args)
            assert code == 0, err
            assert state_db_open() == [], args
    finally:
        gc.enable()


def test_errors_are_clear_with_nonzero_exit(tmp_path, capsys) -> None:
    code, _, err = grove(capsys, "run", "x", "-m", "gpt-4o")
    assert code == 2 and "unknown model spec" in err and "openai:<model>" in err
    code, _, err = grove(capsys, "run", "x", "-m", "script:/nowhere.yaml")
    assert code == 2 and "script file not found" in err
    code, _, err = grove(capsys, "run", "x", "-t", "bogus", "-m", script(tmp_path, "- text: a\n"))
    assert code == 2 and "unknown toolset" in err
    code, _, err = grove(capsys, "run", "x", "-m", "openai:gpt-4o-mini")
    assert code == 2 and "OPENAI_API_KEY" in err
    code, _, err = grove(capsys, "sessions", "show", "nope")
    assert code == 2 and "grove sessions list" in err


def test_running_off_the_end_of_a_script_fails_and_keeps_the_session(tmp_path, capsys) -> None:
    spec = script(tmp_path, "- tool_calls: [{name: todo, arguments: {}}]\n")
    code, _, err = grove(capsys, "run", "go", "-m", spec)
    assert code == 1 and "ran off its end" in err and "--resume" in err


def test_config_set_and_show_mask_keys(capsys, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-proj-abcdefghijklmnopqrstuvwxyz")
    code, out, _ = grove(capsys, "config", "set", "retry.attempts", "2")
    assert code == 0
    code, out, _ = grove(capsys, "config", "show")
    assert "attempts: 2" in out and "OPENAI_API_KEY: sk-p…wxyz" in out
    assert "abcdefghijklmnop" not in out
    code, _, err = grove(capsys, "config", "set", "api_key", "sk-1")
    assert code == 2 and "never writes keys" in err


@pytest.mark.parametrize(
    "cmd", [[], ["run"], ["chat"], ["sessions"], ["sessions", "search"], ["config"], ["doctor"]]
)
def test_every_command_has_help(capsys, cmd: list[str]) -> None:
    code, out, _ = grove(capsys, *cmd, "--help")
    assert code == 0 and "Usage: grove" in out and len(out.splitlines()) > 4


def test_version(capsys) -> None:
    from grove import __version__

    assert grove(capsys, "--version")[1].strip() == f"grove {__version__}"


def test_run_wait_review_turns_a_busy_task_into_a_skill(tmp_path, capsys, monkeypatch, grove_home) -> None:
    monkeypatch.chdir(tmp_path)
    todo = "{name: todo, arguments: {items: [{content: step}]}}"
    task = script(
        tmp_path, "".join(f"- tool_calls: [{todo}]\n" for _ in range(5)) + "- text: Done.\n", "t.yaml"
    )
    skill = (
        "---\\nname: weekly-report\\ndescription: Build the weekly report. Use when asked for the weekly report."
        "\\n---\\n\\n# Weekly report\\n\\n## Steps\\n1. Gather the numbers.\\n2. Write report.md.\\n"
    )
    reviewer = script(
        tmp_path,
        f'- tool_calls: [{{name: skill_manage, arguments: {{action: create, name: weekly-report, content: "{skill}"}}}}]\n'
        "- text: Saved a skill for weekly reports.\n",
        "review.yaml",
    )
    monkeypatch.setenv("GROVE_LEARNING__REVIEW_MODEL", reviewer)
    code, out, err = grove(capsys, "run", "make the weekly report", "-m", task, "--wait-review")
    assert code == 0 and out == "Done.\n"
    assert "skill create 'weekly-report'" in err
    assert (
        (grove_home / "skills" / "weekly-report" / "SKILL.md")
        .read_text()
        .startswith("---\nname: weekly-report")
    )
