"""Learning in its own process, for one-shot `grove run`: the answer is printed and the process exits; the review
(and the curator, when due) carry on detached (or `grove run --wait-review` waits for them).
Run: python -m grove.runtime.background SESSION ... | python -m grove.runtime.background --curator [--model SPEC]
"""

from __future__ import annotations

import argparse
import subprocess
from pathlib import Path
from typing import Any


def spawn(
    settings: Any, session_id: str, kinds: list[str], up_to: int, workspace: Path, model: str
) -> subprocess.Popen:
    """Start the review detached from the terminal (its own session), logging to $GROVE_HOME/logs/review.log."""
    cmd = ["-m", "grove.runtime.background", session_id, "--kinds", ",".join(kinds)]
    # absolute: the review runs in grove's home, not in the workspace
    cmd += ["--up-to", str(up_to), "--workspace", str(Path(workspace).resolve()), "--model", model]
    return _detached(settings, cmd, "review.log")


def spawn_curator(settings: Any, model: str | None) -> subprocess.Popen:
    """Start the curator detached (it re-checks the schedule under its lock), logging to logs/curator.log."""
    cmd = ["-m", "grove.runtime.background", "--curator"]
    cmd += ["--model", model] if model else []
    return _detached(settings, cmd, "curator.log")


def key_envs(settings: Any) -> set[str]:
    """The key variables grove's own processes need beyond own_process's allow-list: each provider's key_env."""
    from grove.config import KEY_ENVS

    return {
        *KEY_ENVS.values(),
        *(p.key_env for p in getattr(settings, "providers", {}).values() if p.key_env),
    }


def _detached(settings: Any, cmd: list[str], log_name: str) -> subprocess.Popen:
    from grove.own_process import spawn_python

    home = Path(settings.home)
    logs = home / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    keep = key_envs(settings)  # a provider's own key_env passes too; nothing else the parent had set
    with open(logs / log_name, "ab") as log:
        # isolated Python in grove's home: the workspace (cwd of `grove run`) is never on its sys.path
        return spawn_python(
            cmd,
            cwd=home,
            env={"GROVE_HOME": str(home)},
            keep=keep,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,  # a Ctrl-C in the terminal after the answer does not kill the review
        )


def main(argv: list[str] | None = None) -> int:
    from grove.agent.events import AgentEvents
    from grove.config import load_settings
    from grove.runtime.assemble import build_router
    from grove.runtime.review import review_session

    parser = argparse.ArgumentParser(prog="grove.runtime.background")
    parser.add_argument("session_id", nargs="?")
    parser.add_argument("--curator", action="store_true", help="run the curator when due (no idle wait)")
    parser.add_argument("--kinds", default="skill")
    parser.add_argument("--up-to", type=int, default=None)
    parser.add_argument("--workspace", type=Path, default=None)
    parser.add_argument("--model", default=None)
    args = parser.parse_args(argv)
    settings = load_settings()
    if args.curator:
        return _curate(settings, args.model)
    if not args.session_id or not args.model:
        parser.error("a review needs SESSION and --model")
    model = build_router(settings, args.model, AgentEvents())
    failed = False
    for kind in args.kinds.split(","):
        report = review_session(
            settings, model, args.session_id, kind=kind, up_to=args.up_to, workspace=args.workspace
        )
        print(report.render(), flush=True)
        failed = failed or bool(report.error)
    return 1 if failed else 0


def _curate(settings: Any, spec: str | None) -> int:
    from grove.agent.events import AgentEvents
    from grove.learning.curator import run_curator_if_due
    from grove.runtime.assemble import build_router
    from grove.runtime.review_probes import probes_for

    factory = (lambda: build_router(settings, spec, AgentEvents())) if spec else None
    report = run_curator_if_due(settings, factory, require_idle=False, probes=probes_for(settings))
    print(report.render() if report else "curator: not due", flush=True)
    return 1 if report is not None and report.error else 0


if __name__ == "__main__":
    raise SystemExit(main())
