"""`grove cron` as a user drives it, with the script model: add, list, run by hand, the daemon, remove."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.clirun import grove

from grove.store.sessions import SessionStore


def script(tmp_path: Path, text: str = "all good") -> str:
    path = tmp_path / "s.yaml"
    path.write_text(f"- text: {text}\n")
    return f"script:{path}"


def test_add_run_and_see_the_session(tmp_path: Path, capsys: pytest.CaptureFixture[str], settings) -> None:  # type: ignore[no-untyped-def]
    code, out, err = grove(
        capsys, "cron", "add", "every 2h", "check the build", "-m", script(tmp_path), "-t", "", "--json"
    )
    assert code == 0, err
    job = json.loads(out)
    assert job["schedule"] == "every 2h" and job["next_run_at"] is not None
    code, out, err = grove(capsys, "cron", "run", job["id"], "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["status"] == "ok" and result["output"] == "all good"
    store = SessionStore.open(settings.db_path)
    row = store.db.conn.execute(
        "SELECT source FROM sessions WHERE id = ?", (result["session_id"],)
    ).fetchone()
    store.db.close()
    assert row["source"] == "cron"
    code, out, _ = grove(capsys, "cron", "runs", "--json")
    [run] = [json.loads(line) for line in out.splitlines()]
    assert run["session_id"] == result["session_id"] and run["status"] == "ok"
    code, out, _ = grove(capsys, "cron", "list", "--json")
    listed = json.loads(out.splitlines()[0])
    assert listed["next_run_at"] == job["next_run_at"]  # a run by hand leaves the schedule alone
    code, out, _ = grove(capsys, "cron", "remove", job["id"])
    assert code == 0 and "removed" in out
    code, out, _ = grove(capsys, "cron", "list")
    assert "no cron jobs" in out


def test_the_daemon_once_runs_what_is_due(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = grove(
        capsys,
        "cron",
        "add",
        "2020-01-01T00:00:00+00:00",
        "old one-shot",
        "-m",
        script(tmp_path),
        "-t",
        "",
        "--json",
    )
    assert code == 0, err
    code, out, err = grove(capsys, "cron", "daemon", "--once", "--json")
    assert code == 0, err
    [result] = [json.loads(line) for line in out.splitlines()]
    assert result["status"] == "ok"
    code, out, _ = grove(capsys, "cron", "daemon", "--once", "--json")
    assert code == 0 and out == ""  # a one-shot runs once


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["30s", "x"], "cannot read schedule"),
        (["61 * * * *", "x"], "not a valid cron expression"),
        (["every 1h", "x", "-t", "nope"], "unknown toolset"),
        (["every 1h", "x", "-d", "telegram"], "<platform>:<chat id>"),
        (["every 1h", "x", "-m", "nosuch:model"], "unknown model spec"),
        (["every 1h", "  "], "needs a prompt"),
    ],
)
def test_bad_input_is_a_usage_error(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    if "cron expression" in message:
        pytest.importorskip("croniter", reason="5-field cron expressions need the cron extra")
    code, _, err = grove(capsys, "cron", "add", *args)
    assert code == 2 and message in err


def test_unknown_job(capsys: pytest.CaptureFixture[str]) -> None:
    for cmd in (["remove", "nope"], ["run", "nope"], ["runs", "nope"]):
        code, _, err = grove(capsys, "cron", *cmd)
        assert code == 2 and "no cron job 'nope'" in err


def test_cron_expression_without_croniter_says_how(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "croniter", None)  # as on a base install
    code, _, err = grove(capsys, "cron", "add", "0 9 * * *", "x")
    assert code == 2 and "grove-agent[cron]" in err


def test_pause_and_resume(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = grove(capsys, "cron", "add", "every 2h", "tidy", "-m", script(tmp_path), "--json")
    job = json.loads(out)["id"]
    code, out, err = grove(capsys, "cron", "pause", job)
    assert code == 0 and "paused" in out, err
    code, out, _ = grove(capsys, "cron", "list")
    assert f"{job}  paused" in out.replace("   ", "  ")
    code, out, _ = grove(capsys, "cron", "list", "--json")
    assert json.loads(out)["enabled"] is False
    code, out, err = grove(capsys, "cron", "resume", job)
    assert code == 0 and "resumed; next run" in out, err
    code, out, _ = grove(capsys, "cron", "list", "--json")
    assert json.loads(out)["enabled"] is True
    code, _, err = grove(capsys, "cron", "pause", "no-such-job")
    assert code == 2 and "no cron job" in err
