"""Killing `grove run` (SIGKILL) in the middle of a tool call loses nothing already done; resume repairs the gap."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from grove.store.sessions import SessionStore


def _roles(db: Path) -> list[str]:
    try:
        conn = sqlite3.connect(db, timeout=1)
        rows = conn.execute("SELECT role FROM messages ORDER BY id").fetchall()
        conn.close()
    except sqlite3.Error:
        return []
    return [r[0] for r in rows]


def test_sigkill_mid_tool_call_keeps_every_earlier_message(tmp_path: Path, grove_home: Path) -> None:
    # a command that sleeps: a tool call that is surely "in the middle" (search patterns run in linear time now)
    steps = tmp_path / "s.yaml"
    steps.write_text(
        "- tool_calls: [{name: write_file, arguments: {path: done.txt, content: first step}}]\n"
        "- tool_calls: [{name: terminal, arguments: {command: 'sleep 60'}}]\n"
        "- text: never reached\n"
    )
    env = {**os.environ, "GROVE_HOME": str(grove_home)}
    argv = [sys.executable, "-m", "grove", "run", "do two steps", "-m", f"script:{steps}"]
    proc = subprocess.Popen(
        [*argv, "-t", "files,terminal", "--allow-terminal"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    db = grove_home / "state.db"
    deadline = time.monotonic() + 30
    while _roles(db) != ["user", "assistant", "tool", "assistant"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)

    store = SessionStore.open(db)
    sid = store.resolve_id("last")
    messages = store.messages(sid)
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant"]
    assert messages[2]["content"] == "wrote 10 bytes to done.txt"
    assert messages[3]["tool_calls"][0]["function"]["name"] == "terminal"
    assert (tmp_path / "done.txt").read_text() == "first step"

    # resuming answers the lost call with a warning instead of leaving the conversation broken
    resume = tmp_path / "r.yaml"
    resume.write_text("- text: resumed\n")
    out = subprocess.run(
        [sys.executable, "-m", "grove", "run", "go on", "-m", f"script:{resume}", "--resume", sid, "--json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["answer"] == "resumed"
    repaired = store.messages(sid)[4]
    assert repaired["role"] == "tool" and "effect is unknown" in repaired["content"]
