"""The run directory `$GROVE_HOME/evolve/<run>/`: manifest (dataset hash, models, seeds, config), candidates,
scores, lineage, report; a STOP file there ends the search gracefully after the current iteration."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from grove.atomic_files import atomic_write_text

STOP_FILE = "STOP"


def runs_root(home: Path) -> Path:
    return Path(home) / "evolve"


def new_run_id(skill: str) -> str:
    return f"{skill}-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}"


def resolve_run(home: Path, run: str) -> Path:
    path = Path(run)
    if path.is_dir():
        return path
    path = runs_root(home) / run
    if not path.is_dir():
        raise FileNotFoundError(f"no evolution run {run!r} in {runs_root(home)}")
    return path


def write_json(path: Path, data: Any) -> None:
    atomic_write_text(path, json.dumps(data, indent=2, sort_keys=True, default=str) + "\n")


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def request_stop(run_dir: Path) -> None:
    (run_dir / STOP_FILE).write_text("stop\n", encoding="utf-8")


class StopFile:
    """gepa stopper: true once the run directory holds a STOP file."""

    def __init__(self, run_dir: Path) -> None:
        self.path = run_dir / STOP_FILE

    def __call__(self, gepa_state: Any) -> bool:  # gepa's StopperProtocol
        return self.path.exists()


class TokenBudget:
    """gepa stopper: true once the task model has spent the token budget."""

    def __init__(self, evaluator: Any, budget: int | None) -> None:
        self.evaluator, self.budget = evaluator, budget

    def __call__(self, gepa_state: Any) -> bool:  # gepa's StopperProtocol
        return self.budget is not None and self.evaluator.tokens_spent >= self.budget


class FileLogger:
    def __init__(self, path: Path) -> None:
        self.path = path

    def log(self, message: str) -> None:
        with self.path.open("a", encoding="utf-8") as f:
            f.write(message.rstrip("\n") + "\n")
