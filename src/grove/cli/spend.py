"""`grove spend`: today's and this month's recorded spend per scope, from the spend ledger."""

from __future__ import annotations

import typer

from grove.config import grove_home
from grove.spend.ledger import Ledger


def spend(scope: str = typer.Option("all", help="a serve key, gateway user or 'all'")) -> None:
    """Show spend today and this month (UTC) for a scope."""
    day, month = Ledger(grove_home() / "spend.db").spent(scope)
    typer.echo(f"scope={scope} today_usd={day:.4f} month_usd={month:.4f}")
