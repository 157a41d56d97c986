"""A file the scan cannot finish gets a verdict (refused, the error as its reason); the import goes on."""

from __future__ import annotations

from pathlib import Path

import pytest
from skillkit import skill_text, write_skill

import grove.skills.scan_cache as scan_cache
from grove.skills.importer import import_skills

BOOM = "the scanner trips on this text"


@pytest.fixture
def tripping(monkeypatch: pytest.MonkeyPatch) -> None:
    real = scan_cache.scan_skill_file

    def scan(rel: str, text: str, source: str, prose: object) -> object:
        if BOOM in text:
            raise RecursionError("maximum recursion depth exceeded")
        return real(rel, text, source, prose)  # type: ignore[arg-type]

    monkeypatch.setattr(scan_cache, "scan_skill_file", scan)


@pytest.mark.usefixtures("tripping")
def test_one_file_the_scan_cannot_finish_is_refused_and_the_rest_import(tmp_path: Path) -> None:
    write_skill(tmp_path / "src", "fine")
    write_skill(tmp_path / "src", "odd", skill_text("odd") + f"\n{BOOM}\n")
    out = {o.name: o for o in import_skills(tmp_path / "src", tmp_path / "home" / "skills", workers=1)}
    assert out["fine"].status == "imported"
    assert out["odd"].status == "refused"
    assert "the scan could not finish (RecursionError" in out["odd"].reason
