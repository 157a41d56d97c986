"""skill_run in the session's container (a real engine; an image with this machine's python3 copied in): the
skill runs inside it on the mounted workspace, its output comes back, its scratch folder goes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.backends.engines import Engine, python_image
from tests.codeskills.codekit import CSV_CODE, CSV_TESTS, create_skill, write_csv

from grove.backends.local import LocalBackend
from grove.backends.open import open_backend
from grove.config import Settings
from grove.tools import code_skills
from grove.tools.context import ToolContext
from grove.tools.registry import ToolRegistry

WHERE = "import os\n\n\ndef solve(path: str) -> str:\n    open('copy.txt', 'w').write(open(path).read())\n    return os.getcwd()\n"
WHERE_TESTS = (
    "from skill import solve\n\n\ndef test_it(tmp_path):\n    import os\n    os.chdir(tmp_path)\n"
    "    (tmp_path / 'a').write_text('x')\n    assert solve('a') == str(tmp_path)\n"
)


def test_a_skill_runs_inside_the_container(
    settings: Settings, engine: Engine, workspace: Path, tmp_path: Path
) -> None:
    image, why = python_image(engine, tmp_path)
    if image is None:
        pytest.skip(f"no python image for the engine: {why}")
    reg = ToolRegistry(code_skills.tools())
    here = ToolContext(workspace=workspace, settings=settings)
    settings.backends.container.engine_args = engine.args
    box = open_backend(f"{engine.name}:{image}", settings, lambda: LocalBackend(workspace, settings=settings))
    assert box is not None
    there = ToolContext(workspace=workspace, settings=settings, backend=box)
    try:
        create_skill(lambda t, /, **a: reg.call(here, t, a), "csv-column", CSV_CODE, CSV_TESTS)
        create_skill(lambda t, /, **a: reg.call(here, t, a), "where-am-i", WHERE, WHERE_TESTS)
        write_csv(workspace / "s.csv", ["a", "b"], [[1, 2], [3, 4.5]])
        out = reg.call(there, "skill_run", {"name": "csv-column", "args": {"path": "s.csv", "column": "b"}})
        assert out.ok, out.content
        assert json.loads(out.content) == {"result": [2.0, 4.5]}
        where = reg.call(there, "skill_run", {"name": "where-am-i", "args": {"path": "s.csv"}})
        assert where.ok, where.content
        data = json.loads(where.content)
        # the container's mount point, not this machine's temp folder: it ran in there
        assert data["result"].startswith("/workspace/.grove-skillrun-")
        assert data["files_written"] == ["copy.txt"]
        assert (workspace / "copy.txt").read_text() == (workspace / "s.csv").read_text()
        assert sorted(os.listdir(workspace)) == ["copy.txt", "s.csv"]  # the scratch folder went
    finally:
        box.close()
