"""What the dashboard pages show, gathered from grove's own services (the same calls the CLI makes): no logic
of its own beyond diffs between a skill's saved versions and the masking of settings."""

from __future__ import annotations

import difflib
import io
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grove.config import Settings
from grove.security.secrets.redact import is_secret_name, mask, redact
from grove.store.sessions import SessionStore


@dataclass
class VersionView:
    number: int
    action: str
    actor: str
    reason: str
    at: float
    diff: str  # unified diff of SKILL.md from this version to the next one (or the current file)
    restorable: bool  # a snapshot exists (version 0, the creation, has none)


def skills_root(settings: Settings) -> Path:
    from grove.skills.discover import home_skills_dir

    return home_skills_dir(settings.home)


def manager(settings: Settings, store: SessionStore) -> Any:
    from grove.skills.manage import SkillManager

    return SkillManager(skills_root(settings), store.db, actor="user")


def skills(settings: Settings, store: SessionStore) -> list[dict[str, Any]]:
    """Every skill grove sees (as `grove skills list`), with views, uses, ok/graded and patches."""
    from grove.skills import usage
    from grove.skills.discover import discover

    lib = discover(settings, None)
    stats = usage.stats(store.db)
    rows = []
    for s in sorted(lib.skills.values(), key=lambda s: (s.category, s.name)):
        st = stats.get(s.name)
        rows.append(
            {
                "name": s.name,
                "category": s.category,
                "source": s.source,
                "created_by": s.created_by,
                "pinned": s.pinned,
                "description": s.description,
                "views": getattr(st, "views", 0),
                "uses": getattr(st, "uses", 0),
                "ok": f"{st.succeeded}/{st.graded}" if st is not None and st.graded else "-",
                "patches": getattr(st, "patches", 0),
            }
        )
    return rows


def skill(settings: Settings, name: str) -> Any:
    from grove.skills.discover import discover

    return discover(settings, None).get(name)


def history(settings: Settings, store: SessionStore, name: str) -> list[VersionView]:
    """The skill's timeline (as `grove skills history`), newest first, each with what its change did."""
    from grove.skills.history import timeline, version_dir

    root = skills_root(settings)
    found = timeline(root, name, store.db)

    def text(number: int | None) -> str:
        path = (root / name if number is None else version_dir(root, name, number)) / "SKILL.md"
        try:
            return path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    saved = [v.number for v in found if v.number > 0]
    out = []
    for v in found:
        if v.number == 0:
            diff, restorable = "", False
        else:
            later = [n for n in saved if n > v.number]
            after = later[0] if later else None
            diff = "".join(
                difflib.unified_diff(
                    text(v.number).splitlines(keepends=True),
                    text(after).splitlines(keepends=True),
                    f"v{v.number}/SKILL.md",
                    f"v{after}/SKILL.md" if after else "current/SKILL.md",
                )
            )
            restorable = True
        out.append(VersionView(v.number, v.action, v.actor, v.reason, v.at, redact(diff), restorable))
    return list(reversed(out))


def memory(settings: Settings) -> list[dict[str, Any]]:
    """MEMORY.md and USER.md as `grove memory show` prints them."""
    from grove.config.memory import memory_config
    from grove.memory.files import MemoryFiles

    files = MemoryFiles(settings.home, memory_config(settings))
    return [
        {
            "title": "MEMORY.md (the agent's notes)" if target == "memory" else "USER.md (about you)",
            "header": files.fill(target).header(),
            "path": str(files.path(target)),
            "entries": files.entries(target),
        }
        for target in ("memory", "user")
    ]


def board(settings: Settings) -> dict[str, list[Any]]:
    """The kanban board by status (archived left out), highest priority first, as `grove kanban board`."""
    from grove.kanban.model import STATUSES
    from grove.kanban.open import board_location, open_board

    b = open_board(board_location(None, settings.home))
    try:
        tasks = b.tasks()
    finally:
        close = getattr(b, "close", None)
        if close is not None:
            close()
    columns: dict[str, list[Any]] = {s: [] for s in STATUSES if s != "archived"}
    for t in tasks:
        if t.status in columns:
            columns[t.status].append(t)
    for items in columns.values():
        items.sort(key=lambda t: (-t.priority, t.id))
    return columns


def evolution_runs(settings: Settings) -> list[dict[str, Any]]:
    """Runs in $GROVE_HOME/evolve, newest first, as `grove evolve list`."""
    from grove.evolve.rundir import read_json, runs_root

    root = runs_root(settings.home)
    out = []
    if root.is_dir():
        for folder in sorted((p for p in root.iterdir() if p.is_dir()), reverse=True):
            rep = folder / "report.json"
            try:
                data = read_json(rep) if rep.is_file() else None
            except (OSError, ValueError):
                data = None
            out.append({"id": folder.name, "report": data})
    return out


def evolution_report(settings: Settings, run: str) -> tuple[Path, dict[str, Any], str] | None:
    """A run's folder, report.json and its text table (grove.evolve.report.render, as `grove evolve report`)."""
    from rich.console import Console

    from grove.evolve.report import render
    from grove.evolve.rundir import read_json, runs_root

    folder = runs_root(settings.home) / run
    if os.sep in run or run.startswith(".") or not (folder / "report.json").is_file():
        return None
    data = read_json(folder / "report.json")
    console = Console(record=True, width=130, file=io.StringIO(), color_system=None)
    console.print(render(data))
    return folder, data, console.export_text()


def front_png(folder: Path, data: dict[str, Any]) -> Path | None:
    """The run's front plot: front.png, drawn once with grove.evolve.report.plot when matplotlib is there."""
    path = folder / "front.png"
    if path.is_file():
        return path
    try:
        from grove.evolve.report import plot
    except ImportError:
        return None
    try:
        return plot(data, path)
    except ImportError:  # matplotlib is optional (the plot extra)
        return None


def masked_settings(settings: Settings) -> tuple[str, list[tuple[str, str]]]:
    """The effective settings as YAML (secret-named fields masked, then the whole text redacted), and which API
    key variables are set (masked), as `grove config show`."""
    import yaml

    from grove.config import KEY_ENVS
    from grove.dataclass_io import to_jsonable

    def scrub(value: Any, name: str = "") -> Any:
        if isinstance(value, dict):
            return {k: scrub(v, str(k)) for k, v in value.items()}
        if isinstance(value, list):
            return [scrub(v, name) for v in value]
        # a field named like a secret (api_key, token) is masked; *_env fields only name a variable
        if isinstance(value, str) and value and is_secret_name(name) and not name.endswith("_env"):
            return mask(value)
        return value

    data = scrub(to_jsonable(settings))
    text = redact(yaml.safe_dump(data, sort_keys=False))
    names = sorted({*KEY_ENVS.values(), *(p.key_env for p in settings.providers.values() if p.key_env)})
    keys = [(n, mask(os.environ[n]) if os.environ.get(n) else "(not set)") for n in names]
    return text, keys


def gateway_links(settings: Settings) -> list[dict[str, Any]]:
    """Each platform's connection as its gateway last published it (grove.gateway.link_table), with the state a
    reader should see (a gateway that stopped reporting is down) and what to say about it."""
    from grove.gateway.link_table import read_links

    now = time.time()
    return [{**s.__dict__, "shown": s.shown(now), "why": s.why(now)} for s in read_links(settings.home)]


def gateway_accounts(settings: Settings, store: SessionStore) -> list[Any]:
    """Every gateway account with its own sessions (grove.gateway.accounts): for an admin only."""
    from grove.gateway.accounts import gateway_accounts as accounts

    return accounts(settings, store)
