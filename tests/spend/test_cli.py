"""`grove spend` reads the ledger under GROVE_HOME."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from grove.cli.main import build_app
from grove.spend.ledger import Caps, Ledger


def test_grove_spend_shows_ledger_totals(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GROVE_HOME", str(tmp_path))
    Ledger(tmp_path / "spend.db").reserve("all", Caps(), 0.25)
    result = CliRunner().invoke(build_app(["spend"]), ["spend"])
    assert result.exit_code == 0, result.output
    assert "today_usd=0.2500 month_usd=0.2500" in result.output
