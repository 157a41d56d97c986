"""A review in its own process, for one-shot `grove run`: the answer is printed and the process exits; the review
carries on detached (or `grove run --wait-review` waits for it). Run: python -m grove.runtime.background SESSION ...
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from typing import Any


def spawn(
    settings: Any, session_id: str, kinds: list[str], up_to: int, workspace: Path, model: str
) -> subprocess.Popen:
    """Start the review detached from the terminal (its own session), logging to $GROVE_HOME/logs/review.log."""
    import os

    logs = Path(settings.home) / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "grove.runtime.background", session_id, "--kinds", ",".join(kinds)]
    cmd += ["--up-to", str(up_to), "--workspace", str(workspace), "--model", model]
    with open(logs / "review.log", "ab") as log:
        return subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,  # a Ctrl-C in the terminal after the answer does not kill the review
            env={**os.environ, "GROVE_HOME": str(settings.home)},
        )


def main(argv: list[str] | None = None) -> int:
    from grove.agent.events import AgentEvents
    from grove.config import load_settings
    from grove.runtime.assemble import build_router
    from grove.runtime.review import review_session

    parser = argparse.ArgumentParser(prog="grove.runtime.background")
    parser.add_argument("session_id")
    parser.add_argument("--kinds", default="skill")
    parser.add_argument("--up-to", type=int, default=None)
    parser.add_argument("--workspace", type=Path, default=None)
    parser.add_argument("--model", required=True)
    args = parser.parse_args(argv)
    settings = load_settings()
    model = build_router(settings, args.model, AgentEvents())
    failed = False
    for kind in args.kinds.split(","):
        report = review_session(
            settings, model, args.session_id, kind=kind, up_to=args.up_to, workspace=args.workspace
        )
        print(report.render(), flush=True)
        failed = failed or bool(report.error)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
