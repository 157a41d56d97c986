"""A whole `grove run` turn whose tools act on an SSH host: the script model reads, edits and runs code remotely."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("asyncssh", reason="the ssh backend's library: pip install 'grove-agent[ssh]'")
import yaml
from tests.backends.sshd import Sshd
from tests.clirun import grove


def test_a_turn_reads_edits_and_runs_code_on_the_remote_host(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    sshd: Sshd,
    remote_ws: Path,
    workspace: Path,
    tmp_path: Path,
) -> None:
    (remote_ws / "app.py").write_text("x = 1\nprint(x)\n")
    steps = [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "app.py"}}]},
        {
            "tool_calls": [
                {
                    "name": "patch",
                    "arguments": {"path": "app.py", "old_string": "x = 1", "new_string": "x = 41 + 1"},
                }
            ]
        },
        {"tool_calls": [{"name": "terminal", "arguments": {"command": "python3 app.py > out.txt"}}]},
        "app.py now prints 42",
    ]
    script = tmp_path / "steps.yaml"
    script.write_text(yaml.safe_dump(steps))
    monkeypatch.setenv("GROVE_BACKENDS__SSH_CONFIG", str(sshd.ssh_config))
    monkeypatch.chdir(workspace)
    code, out, err = grove(
        capsys, "run", "make app.py print 42", "-m", f"script:{script}", "-t", "files,terminal",
        "--allow-terminal", "--yolo", "--allow-unisolated", "--json", "--backend", sshd.spec,
    )  # fmt: skip
    assert code == 0, err
    result = json.loads(out)
    assert [(c["name"], c["ok"]) for c in result["tool_calls"]] == [
        ("read_file", True),
        ("patch", True),
        ("terminal", True),
    ]
    assert (remote_ws / "app.py").read_text() == "x = 41 + 1\nprint(x)\n"
    assert (remote_ws / "out.txt").read_text() == "42\n"  # run there, by the remote python
    assert not (workspace / "app.py").exists()  # the local folder was never touched


def test_a_bad_backend_is_refused_before_the_turn(capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = grove(capsys, "run", "hi", "-m", "script:x.yaml", "--backend", "ftp:box")
    assert code == 2 and "unknown backend 'ftp:box'" in err
