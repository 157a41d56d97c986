"""`grove run` exits non-zero when the turn's asked change failed (and shows the fix whole), 0 when the model
recovered; as root in a root-owned folder a real one-shot run writes the file, owned by root."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.clirun import grove

from grove.cli.output import error_line

WRITE_OK = "  - name: write_file\n    arguments: {path: notes.txt, content: hello}\n"
WRITE_HOOK = "  - name: write_file\n    arguments: {path: .git/hooks/pre-commit, content: id}\n"


def _script(tmp_path: Path, *calls: str) -> str:
    path = tmp_path / "s.yaml"
    path.write_text("".join(f"- tool_calls:\n{c}" for c in calls) + "- text: done\n")
    return f"script:{path}"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    ws = tmp_path / "project"
    (ws / ".git" / "hooks").mkdir(parents=True)
    if os.geteuid() == 0:  # root's own folder, not the sandbox group's (the conftest hands tmp_path to it)
        for p in (ws, ws / ".git", ws / ".git" / "hooks"):
            os.chown(p, 0, 0)
            p.chmod(0o755)
    monkeypatch.chdir(ws)
    return ws


def test_a_failed_change_exits_non_zero(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = grove(capsys, "run", "add a hook", "-m", _script(tmp_path, WRITE_HOOK), "-t", "files")
    assert code == 1, (out, err)
    assert "the asked change did not happen" in err
    assert not (project / ".git" / "hooks" / "pre-commit").exists()


def test_a_recovered_change_exits_zero(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = _script(tmp_path, WRITE_HOOK, WRITE_OK)
    code, out, err = grove(capsys, "run", "make notes", "-m", model, "-t", "files", "--json")
    assert code == 0, (out, err)
    assert [c["ok"] for c in json.loads(out)["tool_calls"]] == [False, True]
    assert (project / "notes.txt").read_text() == "hello"


def test_root_writes_its_root_owned_folder(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if os.geteuid() != 0:
        pytest.skip("the root-owned folder case needs grove run as root")
    code, out, err = grove(
        capsys, "run", "create notes.txt", "-m", _script(tmp_path, WRITE_OK), "-t", "files"
    )
    assert code == 0, (out, err)
    st = (project / "notes.txt").stat()
    assert (st.st_uid, st.st_gid) == (0, 0)


def test_the_fix_is_shown_whole() -> None:
    fix = "Fix: `chgrp -R 64055 DIR && chmod -R g+rwX DIR`, or run grove as a normal user"
    line = error_line(f"permission denied for uid 64055: /{'a' * 900}/notes.txt. {fix}\nmore")
    assert line.endswith(fix) and len(line) < 900
    assert error_line("short error\nsecond") == "short error"
    assert error_line("x" * 700) == "x" * 600 + " …"
