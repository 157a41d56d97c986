"""skill_run on an SSH host (a real sshd on 127.0.0.1): the skill runs there, on the remote workspace's files; what
it writes comes back there, never through a link out, and its scratch folder goes."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("asyncssh", reason="the ssh backend's library: pip install 'grove-agent[ssh]'")

from tests.codeskills.codekit import CSV_CODE, CSV_TESTS, create_skill, write_csv

from grove.backends.open import open_backend
from grove.config import Settings
from grove.security.approval.policy import SafetyPolicy
from grove.tools import code_skills
from grove.tools.context import ToolContext
from grove.tools.registry import ToolRegistry, ToolResult

WHERE_CODE = (
    "import os\n\n\ndef solve(src: str, dst: str) -> dict:\n"
    "    text = open(src).read()\n"
    "    open(dst, 'w').write(text.upper())\n"
    "    os.symlink('/etc/hostname', 'leak.txt')\n"
    "    return {'chars': len(text), 'cwd': os.getcwd()}\n"
)
WHERE_TESTS = (
    "from skill import solve\n\n\ndef test_copy(tmp_path):\n    import os\n    os.chdir(tmp_path)\n"
    "    (tmp_path / 'a').write_text('hi')\n    assert solve('a', 'b')['chars'] == 2\n"
    "    assert (tmp_path / 'b').read_text() == 'HI'\n"
)


@pytest.fixture
def calls(
    settings: Settings, ssh_settings: Settings, workspace: Path, remote_ws: Path
) -> Iterator[tuple[Callable[..., ToolResult], Callable[..., ToolResult]]]:
    """(a call on this machine, to store skills; a call whose tools act on the SSH host)."""
    reg = ToolRegistry(code_skills.tools())
    here = ToolContext(workspace=workspace, settings=settings)
    backend = open_backend(ssh_settings.backends.use, ssh_settings)
    policy = SafetyPolicy(
        allow_unisolated=True
    )  # a host without bwrap still runs it (the tests' sshd is here)
    there = ToolContext(workspace=workspace, settings=ssh_settings, backend=backend, policy=policy)

    def on(ctx: ToolContext) -> Callable[..., ToolResult]:
        return lambda tool, /, **args: reg.call(ctx, tool, args)

    yield on(here), on(there)
    assert backend is not None
    backend.close()


def test_a_skill_runs_on_the_remote_workspace(calls: Any, workspace: Path, remote_ws: Path) -> None:
    here, there = calls
    create_skill(here, "csv-column", CSV_CODE, CSV_TESTS)
    write_csv(remote_ws / "data" / "s.csv", ["a", "b"], [[1, 2], [3, 4.5]])  # only on the host
    out = there("skill_run", name="csv-column", args={"path": "data/s.csv", "column": "b"})
    assert out.ok, out.content
    assert json.loads(out.content) == {"result": [2.0, 4.5]}
    saved = there(
        "skill_run", name="csv-column", args={"path": "data/s.csv", "column": "a"}, output_path="col.json"
    )
    assert saved.ok, saved.content
    assert json.loads((remote_ws / "col.json").read_text()) == [1.0, 3.0]
    assert not (workspace / "col.json").exists() and not (workspace / "data").exists()


def test_its_files_come_back_to_the_host_never_through_a_link(
    calls: Any, workspace: Path, remote_ws: Path, tmp_path: Path
) -> None:
    here, there = calls
    create_skill(here, "shout-file", WHERE_CODE, WHERE_TESTS)
    (remote_ws / "in.txt").write_text("hello")
    outside = tmp_path / "outside.txt"
    outside.write_text("keep")
    (remote_ws / "linked.txt").symlink_to(outside)
    linked = there("skill_run", name="shout-file", args={"src": "in.txt", "dst": "linked.txt"})
    assert linked.ok, linked.content
    assert "files_written" not in json.loads(linked.content) and outside.read_text() == "keep"
    out = there("skill_run", name="shout-file", args={"src": "in.txt", "dst": "out.txt"})
    data = json.loads(out.content)
    assert data["files_written"] == ["out.txt"]  # the symlink it made is not copied back
    assert (remote_ws / "out.txt").read_text() == "HELLO" and (remote_ws / "in.txt").read_text() == "hello"
    # it ran in a scratch folder of the remote workspace (a local run's is under the system's temp folder)
    cwd = Path(data["result"]["cwd"])
    assert cwd.parent == remote_ws.resolve() and cwd.name.startswith(".grove-skillrun-")
    assert sorted(os.listdir(remote_ws)) == ["in.txt", "linked.txt", "out.txt"]  # the scratch folder went
    assert not (workspace / "out.txt").exists()
