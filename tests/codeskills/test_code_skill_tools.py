"""The code_skills tools through the registry: skill_run's JSON in and out and its file mapping, and patches
that must keep the tests passing."""

from __future__ import annotations

import json
from pathlib import Path

from codekit import AVG_CODE, AVG_TESTS, CSV_CODE, CSV_TESTS, create_skill, write_csv

from grove.codeskills.layout import CODE_FILE, TEST_FILE
from grove.skills.history import versions


def test_skill_run_maps_input_files_and_returns_json(call, workspace: Path) -> None:
    create_skill(call, "csv-column", CSV_CODE, CSV_TESTS)
    write_csv(workspace / "data" / "s.csv", ["a", "b"], [[1, 2], [3, 4.5]])
    out = call("skill_run", name="csv-column", args={"path": "data/s.csv", "column": "b"})
    assert out.ok, out.content
    assert json.loads(out.content) == {"result": [2.0, 4.5]}
    absolute = call(
        "skill_run", name="csv-column", args={"path": str(workspace / "data" / "s.csv"), "column": "a"}
    )
    assert json.loads(absolute.content) == {"result": [1.0, 3.0]}


def test_skill_run_writes_outputs_to_the_workspace_but_cannot_change_inputs(call, workspace: Path) -> None:
    code = (
        "import os\n\n\ndef solve(src: str, dst: str) -> dict:\n"
        "    text = open(src).read()\n"
        "    open(dst, 'w').write(text.upper())\n"
        "    os.symlink('/etc/hostname', 'leak.txt')\n"
        "    try:\n"
        "        open(src, 'w').write('clobbered')\n"
        "        clobbered = True\n"
        "    except OSError:\n"
        "        clobbered = False\n"
        "    return {'chars': len(text), 'clobbered': clobbered}\n"
    )
    tests = (
        "from skill import solve\n\n\ndef test_copy(tmp_path):\n    import os\n    os.chdir(tmp_path)\n"
        "    (tmp_path / 'a').write_text('hi')\n    assert solve('a', 'b')['chars'] == 2\n"
        "    assert (tmp_path / 'b').read_text() == 'HI'\n"
    )
    create_skill(call, "shout-file", code, tests)
    (workspace / "in.txt").write_text("hello")
    outside = workspace.parent / "outside.txt"
    outside.write_text("keep")
    (workspace / "linked.txt").symlink_to(outside)
    linked = call("skill_run", name="shout-file", args={"src": "in.txt", "dst": "linked.txt"})
    assert linked.ok and "files_written" not in json.loads(linked.content)
    assert outside.read_text() == "keep"  # a workspace symlink is not written through
    out = call("skill_run", name="shout-file", args={"src": "in.txt", "dst": "out.txt"})
    assert out.ok, out.content
    data = json.loads(out.content)
    assert data["result"] == {"chars": 5, "clobbered": False}  # inputs are mapped in read-only
    assert data["files_written"] == ["out.txt"]  # the symlink is not copied back
    assert (workspace / "out.txt").read_text() == "HELLO"
    assert (workspace / "in.txt").read_text() == "hello"
    assert not (workspace / "leak.txt").exists()


def test_skill_run_reports_errors_and_unknown_names(call) -> None:
    create_skill(call, "moving-average", AVG_CODE, AVG_TESTS)
    bad = call("skill_run", name="moving-average", args={"values": [1.0], "window": 0})
    assert not bad.ok and "failed" in bad.content and "ZeroDivisionError" in bad.content
    wrong = call("skill_run", name="moving-average", args={"numbers": [1]})
    assert not wrong.ok and "numbers: not an argument of solve" in wrong.content
    missing = call("skill_run", name="nope", args={})
    assert not missing.ok and "code skills: moving-average" in missing.content


def test_patch_that_breaks_the_tests_is_refused(call, grove_home: Path) -> None:
    create_skill(call, "moving-average", AVG_CODE, AVG_TESTS)
    folder = grove_home / "skills" / "moving-average"
    before = {p: (folder / p).read_text() for p in ("SKILL.md", CODE_FILE, TEST_FILE)}
    out = call(
        "skill_code_patch", name="moving-average", old_string="i - window + 1", new_string="i - window"
    )
    assert not out.ok and "patch refused" in out.content and "test_short_window" in out.content
    idle = call(
        "skill_code_patch",
        name="moving-average",
        file_path=TEST_FILE,
        old_string="from skill import solve\n",
        new_string="from skill import solve\n\n\ndef solve(*a, **k):\n    return [1, 1.5, 2.5, 3.5]\n",
    )
    assert not idle.ok  # tests that no longer exercise the stored code do not count
    assert {p: (folder / p).read_text() for p in before} == before


def test_patch_that_keeps_the_tests_passing_is_stored_and_the_signature_follows(
    call, grove_home: Path
) -> None:
    create_skill(call, "moving-average", AVG_CODE, AVG_TESTS)
    folder = grove_home / "skills" / "moving-average"
    out = call(
        "skill_code_patch",
        name="moving-average",
        old_string="window: int = 7) -> list[float]:",
        new_string="window: int = 7, digits: int = 12) -> list[float]:",
        reason="optional rounding",
    )
    assert out.ok, out.content
    skill_md = (folder / "SKILL.md").read_text()
    assert "solve(values: list[float], window: int = 7, digits: int = 12) -> list[float]" in skill_md
    assert "grove.created_by: agent" in skill_md
    assert len(versions(grove_home / "skills", "moving-average")) >= 2  # the previous version is kept
