"""A batch's pieces for the tests: the workers' script (write out.txt, complete, answer) and a dataset writer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.kanban.conftest import pg_cluster  # noqa: F401 (the throwaway PostgreSQL cluster, once a session)

SCRIPT = """\
- tool_calls: [{name: write_file, arguments: {path: out.txt, content: "ok\\n"}}]
- tool_calls: [{name: kanban_complete, arguments: {summary: "wrote ok", artifacts: [out.txt]}}]
- text: done
"""


@pytest.fixture(autouse=True)
def workspaces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "workspaces"
    monkeypatch.setenv("GROVE_KANBAN_WORKSPACES", str(root))
    return root


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "script.yaml"
    path.write_text(SCRIPT)
    return path


def write_dataset(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path
