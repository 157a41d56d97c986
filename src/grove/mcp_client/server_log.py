"""A server's log messages (`notifications/message`) recorded in logs/mcp-<name>.log, where a stdio server's
stderr goes too: one line each, redacted (a secret a server logs never reaches disk), long ones cut."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

MAX_LINE = 4000
LEVEL = "info"  # what a 2026-07-28 server is asked to send (delivery there is opt-in per request)


def log_path(log_dir: Path, server: str) -> Path:
    return log_dir / f"mcp-{server}.log"


def record(log_dir: Path | None, server: str, params: Any) -> None:
    """Append one log message; a home that cannot be written loses the line, never the call."""
    if log_dir is None:
        return
    from grove.security.secrets.redact import redact

    data = params.data if isinstance(params.data, str) else json.dumps(params.data, ensure_ascii=False)
    line = " ".join(redact(data).split())  # one line per message, whatever the server put in it
    if len(line) > MAX_LINE:
        line = line[:MAX_LINE] + f" [… {len(line) - MAX_LINE} more characters]"
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
    who = f" {params.logger}:" if params.logger else ""
    try:
        log_dir.mkdir(parents=True, exist_ok=True)
        with log_path(log_dir, server).open("a", encoding="utf-8") as f:
            f.write(f"{stamp} [{params.level}]{who} {line}\n")
    except OSError:
        pass
