"""`grove spend` (also `grove usage`): today's and this month's spend per scope from the spend ledger, against the
caps in config (`spend:`), with when each period resets."""

from __future__ import annotations

import datetime as dt
import json

import typer

from grove.cli.common import load


def spend(
    scope: str | None = typer.Option(
        None, help="One scope: 'all', 'key:NAME', 'user:PLATFORM:ID' or 'profile:SOURCE'; none = every scope."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object per scope."),
) -> None:
    """Show spend today and this month (UTC) per scope, with the caps and when they reset."""
    from grove.spend.guard import LEDGER_FILE, scope_caps
    from grove.spend.ledger import Ledger, day_reset, month_reset

    settings = load()
    ledger = Ledger(settings.home / LEDGER_FILE)
    scopes = [scope] if scope else (ledger.scopes() or ["all"])
    try:
        caps = scope_caps(settings.spend, [s for s in scopes if s != "all"])
    except ValueError as e:
        raise typer.BadParameter(str(e)) from e
    now = dt.datetime.now(dt.UTC)
    for name in scopes:
        t, c = ledger.totals(name), caps[name]
        if as_json:
            row = {"scope": name, "today_usd": round(t.day_usd, 6), "month_usd": round(t.month_usd, 6)}
            row |= {"today_tokens": t.day_tokens, "month_tokens": t.month_tokens}
            row |= {f"cap_{k}": getattr(c, k) for k in ("day_usd", "month_usd", "day_tokens", "month_tokens")}
            typer.echo(json.dumps(row | {"day_resets": day_reset(now), "month_resets": month_reset(now)}))
            continue
        typer.echo(
            f"scope={name} today_usd={t.day_usd:.4f}{_of(c.day_usd, '.4f')} "
            f"month_usd={t.month_usd:.4f}{_of(c.month_usd, '.4f')} "
            f"today_tokens={t.day_tokens}{_of(c.day_tokens, 'd')} "
            f"month_tokens={t.month_tokens}{_of(c.month_tokens, 'd')}"
        )
    if not as_json:
        typer.echo(
            f"(day resets {day_reset(now)}, month {month_reset(now)}; caps are set under spend: in config)"
        )


def _of(cap: float | None, fmt: str) -> str:
    return "" if cap is None else f"/{cap:{fmt}}"
