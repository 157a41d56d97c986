"""The CLI's error contract, over the mistakes people make and the odd places grove finds itself in: one
`grove: ...` line that says what and how to fix, exit 2 (usage, configuration), 1 (runtime) or 130 (interrupted),
no traceback, and GROVE_HOME left as it was."""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from tests.clirun import grove

HELLO = "- text: hello\n"
BAD_YAML = "not: [valid\n"


@dataclass
class Case:
    args: list[str]
    code: int
    says: str  # a piece of the message (case-insensitive)
    stdin: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    config: str | None = None  # config.yaml's text before the command
    home: str = "dir"  # dir | file | proc: what GROVE_HOME is


def S(name: str) -> str:
    return f"script:{{tmp}}/{name}"


CASES: dict[str, Case] = {
    # usage: arguments and options
    "no prompt, empty stdin": Case(["run"], 2, "prompt is empty", stdin=""),
    "dash, empty stdin": Case(["run", "-"], 2, "prompt is empty", stdin=""),
    "blank prompt": Case(["run", "   "], 2, "prompt is empty"),
    "unknown option": Case(["run", "--bogus", "x"], 2, "no such option"),
    "unknown command": Case(["nosuchcmd"], 2, "no such command"),
    "bad option value": Case(["run", "--max-iterations", "0", "hi"], 2, "--max-iterations"),
    "option needs a value": Case(["run", "hi", "-m"], 2, "requires an argument"),
    "sessions list, bad number": Case(["sessions", "list", "--limit", "many"], 2, "--limit"),
    "sessions search, no query": Case(["sessions", "search"], 2, "missing argument"),
    "sessions show, unknown id": Case(["sessions", "show", "nosuch"], 2, "no session 'nosuch'"),
    "memory show, both flags": Case(["memory", "show", "--user", "--agent"], 2, "not both"),
    "memory edit, no terminal": Case(
        ["memory", "edit"], 2, "needs a terminal", env={"EDITOR": "", "VISUAL": ""}
    ),
    "chat, unknown provider": Case(["chat", "-m", "gibberish:foo"], 2, "unknown model spec"),
    "goal status, unknown id": Case(["goal", "status", "nosuch"], 2, "no goal 'nosuch'"),
    # usage: models
    "unknown provider": Case(["run", "-m", "gibberish:foo", "hi"], 2, "unknown model spec"),
    "spec without model": Case(["run", "-m", "openai:", "hi"], 2, "names no model"),
    "compat spec without url": Case(["run", "-m", "openai-compat:qwen", "hi"], 2, "openai-compat:"),
    "missing gguf": Case(["run", "-m", "local:/missing.gguf", "hi"], 2, "model file not found"),
    "malformed script yaml": Case(["run", "-m", S("bad.yaml"), "hi"], 2, "yaml"),
    "script step of a wrong type": Case(["run", "-m", S("num.yaml"), "hi"], 2, "script step"),
    "missing script file": Case(["run", "-m", "script:/nonexistent/s.yaml", "hi"], 2, "/nonexistent/s.yaml"),
    "no key for a provider": Case(["run", "-m", "openai:gpt-4o-mini", "hi"], 2, "OPENAI_API_KEY"),
    "unknown toolset": Case(["run", "-m", S("hello.yaml"), "-t", "nosuch", "hi"], 2, "unknown toolset"),
    "resume unknown session": Case(["run", "-m", S("hello.yaml"), "--resume", "nosuch", "hi"], 2, "nosuch"),
    # config set
    "set unknown key": Case(["config", "set", "nosuchkey", "1"], 2, "unknown setting 'nosuchkey'"),
    "set near miss": Case(["config", "set", "max_iteration", "3"], 2, "did you mean 'max_iterations'"),
    "set a secret": Case(["config", "set", "openai_api_key", "sk-x"], 2, "looks like a secret"),
    "set provider secret": Case(
        ["config", "set", "providers.openai.api_key", "sk-x"], 2, "looks like a secret"
    ),
    "set unknown toolset": Case(["config", "set", "toolsets", "nosuchtoolset"], 2, "unknown toolset"),
    "set one bad toolset of two": Case(["config", "set", "toolsets", "files,nosuch"], 2, "nosuch"),
    "set unknown model": Case(["config", "set", "model", "gibberish:foo"], 2, "unknown model spec"),
    "set bad fallback model": Case(["config", "set", "fallback_models", "[local, nope:x]"], 2, "nope:x"),
    "set bad judge model": Case(["config", "set", "goals.judge_model", "zz:top"], 2, "unknown model spec"),
    "set negative number": Case(["config", "set", "max_iterations", "-5"], 2, "greater than or equal to 1"),
    "set a word for a number": Case(["config", "set", "max_iterations", "many"], 2, "max_iterations"),
    "set broken yaml value": Case(["config", "set", "model", "[oops"], 2, "not a yaml value"),
    "set below a value": Case(["config", "set", "temperature.x", "1"], 2, "not a section"),
    "set bad sandbox": Case(["config", "set", "security.sandbox", "docker"], 2, "sandbox"),
    "set without value": Case(["config", "set", "model"], 2, "missing argument"),
    # configuration files and variables
    "config.yaml broken": Case(["config", "show"], 2, "not valid yaml", config=BAD_YAML),
    "config.yaml a list": Case(["run", "hi"], 2, "must hold a mapping", config="- a\n- b\n"),
    "config.yaml bad value": Case(["run", "hi"], 2, "invalid settings", config="max_iterations: -1\n"),
    "config.yaml unknown key": Case(["sessions", "list"], 2, "invalid settings", config="nosuch: 1\n"),
    "env bad number": Case(["run", "hi"], 2, "invalid settings", env={"GROVE_MAX_ITERATIONS": "many"}),
    "env broken json": Case(["sessions", "list"], 2, "broken json", env={"GROVE_RETRY": "{bad"}),
    # odd GROVE_HOME
    "home is a file: run": Case(["run", "-m", S("hello.yaml"), "hi"], 2, "GROVE_HOME", home="file"),
    "home is a file: sessions": Case(["sessions", "list"], 2, "GROVE_HOME", home="file"),
    "home is a file: config set": Case(["config", "set", "model", "local"], 2, "GROVE_HOME", home="file"),
    "home under /proc: run": Case(["run", "-m", S("hello.yaml"), "hi"], 2, "GROVE_HOME", home="proc"),
    "home under /proc: sessions": Case(["sessions", "list"], 2, "GROVE_HOME", home="proc"),
    "home under /proc: config set": Case(["config", "set", "model", "local"], 2, "GROVE_HOME", home="proc"),
    # runtime
    "model refuses the request": Case(["run", "-m", S("err.yaml"), "hi"], 1, "bad_request"),
    "script runs off its end": Case(["run", "-m", S("empty.yaml"), "hi"], 1, "ran off its end"),
    "plan that cannot be made": Case(
        ["run", "--plan", "-m", S("noplan.yaml"), "do it"], 1, "plan did not finish"
    ),
}

SCRIPTS = {
    "hello.yaml": HELLO,
    "bad.yaml": BAD_YAML,
    "num.yaml": "- 42\n",
    "err.yaml": "- error: bad_request\n",
    "empty.yaml": "[]\n",
    "noplan.yaml": "- text: no plan here\n" * 4,
}


def snapshot(home: Path) -> dict[str, str]:
    """Every file under GROVE_HOME by content (state.db by its rows), the settings cache aside."""
    out: dict[str, str] = {}
    if not home.is_dir():
        return {"": hashlib.sha256(home.read_bytes()).hexdigest()} if home.is_file() else {}
    for path in sorted(home.rglob("*")):
        rel = str(path.relative_to(home))
        if rel.startswith("cache") or not path.is_file() or rel.startswith("state.db-"):
            continue
        if rel == "state.db":
            with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
                out[rel] = hashlib.sha256("\n".join(db.iterdump()).encode()).hexdigest()
            continue
        out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


@pytest.fixture
def lived_in(grove_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A home in use: a config file and a session store (made by commands that start nothing in the background)."""
    for name, text in SCRIPTS.items():
        (tmp_path / name).write_text(text)
    assert grove(capsys, "config", "set", "temperature", "0.5")[0] == 0
    assert grove(capsys, "sessions", "list")[0] == 0
    return grove_home


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_gets_one_clear_line(
    name: str,
    lived_in: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    case = CASES[name]
    monkeypatch.chdir(tmp_path)
    if case.config is not None:
        (lived_in / "config.yaml").write_text(case.config)
    home = lived_in
    if case.home == "file":
        home = tmp_path / "a-file"
        home.write_text("not a directory\n")
    elif case.home == "proc":
        home = Path("/proc/grove-home")
    monkeypatch.setenv("GROVE_HOME", str(home))
    for key, value in case.env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(sys, "stdin", io.StringIO(case.stdin or ""))
    before = snapshot(home)
    args = [a.replace("{tmp}", str(tmp_path)) for a in case.args]
    code, out, err = grove(capsys, *args)
    assert code == case.code, f"{name}: exit {code}\nstdout: {out}\nstderr: {err}"
    assert "Traceback" not in out + err
    lines = [ln for ln in err.splitlines() if ln.startswith("grove: ")]
    assert lines, f"{name}: no `grove: ...` line in\n{err}"
    assert case.says.lower() in err.lower(), f"{name}: {case.says!r} not in\n{err}"
    if case.code == 2:  # refused before anything started: nothing on disk changed
        assert snapshot(home) == before


def _can_mount_read_only() -> str | None:
    if os.geteuid() != 0:
        return "needs root to bind-mount GROVE_HOME read-only"
    if shutil.which("unshare") is None:
        return "needs unshare(1)"
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    return None if probe.returncode == 0 else "this host does not allow a private mount namespace"


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["run", "-m", "script:{tmp}/hello.yaml", "hi"], 2),
        (["config", "set", "model", "local"], 2),
        (["sessions", "list"], 0),  # reading works from a read-only home
    ],
    ids=["run", "config-set", "sessions"],
)
def test_read_only_home(args: list[str], code: int, lived_in: Path, tmp_path: Path) -> None:
    why = _can_mount_read_only()
    if why:
        pytest.skip(why)
    before = snapshot(lived_in)
    argv = [a.replace("{tmp}", str(tmp_path)) for a in args]
    inner = f'mount --bind -o ro "$GROVE_HOME" "$GROVE_HOME" && exec {sys.executable} -m grove "$@"'
    proc = subprocess.run(
        ["unshare", "-m", "sh", "-c", inner, "sh", *argv],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "GROVE_HOME": str(lived_in)},
        timeout=120,
    )
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr
    if code:
        assert proc.stderr.startswith("grove: ") and "GROVE_HOME" in proc.stderr
    assert snapshot(lived_in) == before


def test_unwritable_home_as_a_user(
    lived_in: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if os.geteuid() == 0:
        pytest.skip("root writes through file modes; the read-only mount test covers root")
    lived_in.chmod(0o500)
    try:
        code, _, err = grove(capsys, "run", "-m", f"script:{tmp_path}/hello.yaml", "hi")
    finally:
        lived_in.chmod(0o700)
    assert code == 2 and err.startswith("grove: ") and "GROVE_HOME" in err


def test_ctrl_c_in_run_exits_130_with_a_line(lived_in: Path, tmp_path: Path) -> None:
    from tests.cli.test_chat_interrupt import _Handler, serve

    with serve() as url:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "grove",
                "run",
                "-m",
                f"openai-compat:fake@{url}",
                "-t",
                "",
                "tell me a story",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "GROVE_HOME": str(lived_in), "GROVE_API_KEY": "test-key"},
        )
        try:
            assert _Handler.stalled.wait(60), "the request never reached the fake server"
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1].startswith("grove: interrupted") and "Traceback" not in err


def test_no_local_extra_and_no_key(
    lived_in: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # as on the base install: the import fails
    monkeypatch.setitem(sys.modules, "xllamacpp", None)
    before = snapshot(lived_in)
    code, _, err = grove(capsys, "run", "hi")
    assert code == 2 and err.startswith("grove: ") and "Traceback" not in err
    assert "grove-agent[local]" in err and "OPENAI_API_KEY" in err
    assert snapshot(lived_in) == before


def test_there_are_at_least_forty_cases() -> None:
    assert len(CASES) + 5 >= 40
