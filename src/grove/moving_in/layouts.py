"""Where each agent keeps what grove can take: skills, memory and instruction files, MCP servers, sessions.

Hermes Agent (~/.hermes): skills/<category>/<name>/SKILL.md, memories/MEMORY.md and USER.md (entries split by
`§`), config.yaml `mcp_servers`, state.db (sessions + messages), SOUL.md (persona).
Claude Code (~ holding .claude/ and .claude.json): .claude/skills/<name>/SKILL.md, .claude/CLAUDE.md,
.claude.json `mcpServers` (and per project under `projects`), .claude/projects/<slug>/<session>.jsonl.
Codex (~/.codex): skills/, AGENTS.md, config.toml `[mcp_servers.<name>]`, sessions/YYYY/MM/DD/rollout-*.jsonl.
OpenClaw (~/.openclaw): skills/, workspace/{skills/, MEMORY.md, USER.md, AGENTS.md, SOUL.md, ...}, openclaw.json.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from grove.memory.files import Target

AGENTS = ("hermes", "claude", "codex", "openclaw")
MemoryFormat = Literal["entries", "markdown"]


class LayoutError(ValueError):
    """The folder given is not that agent's home; the message says what was looked for."""


@dataclass
class Layout:
    agent: str
    root: Path
    skills: list[Path] = field(default_factory=list)
    # (file, grove target 'memory' | 'user', how it is written)
    memory: list[tuple[Path, Target, MemoryFormat]] = field(default_factory=list)
    mcp: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (where it was found, servers)
    mcp_skipped: list[tuple[str, str]] = field(default_factory=list)  # (item, why)
    sessions: list[Path] = field(default_factory=list)  # a SQLite file (hermes) or .jsonl files
    sessions_format: str = ""
    skipped_files: list[tuple[Path, str]] = field(default_factory=list)


def default_path(agent: str) -> Path:
    home = Path.home()
    if agent == "hermes":
        return Path(os.environ.get("HERMES_HOME") or home / ".hermes")
    if agent == "codex":
        return Path(os.environ.get("CODEX_HOME") or home / ".codex")
    if agent == "openclaw":
        return Path(os.environ.get("OPENCLAW_STATE_DIR") or home / ".openclaw")
    return home


def _read_yaml(path: Path) -> Any:
    import yaml

    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _servers(data: Any, *keys: str) -> dict[str, Any] | None:
    for key in keys:
        node = data
        for part in key.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict):
            return node
    return None


def _config(layout: Layout, path: Path, reader: Any, *keys: str) -> None:
    if not path.is_file():
        return
    try:
        data = reader(path)
    except Exception as e:
        layout.mcp_skipped.append((path.name, f"cannot read {path.name}: {str(e).splitlines()[0][:120]}"))
        return
    servers = _servers(data, *keys)
    if servers:
        layout.mcp.append((path.name, servers))


def _persona(layout: Layout, *paths: Path) -> None:
    for p in paths:
        if p.is_file():
            layout.skipped_files.append(
                (p, "a persona/identity file: grove has no persona slot; its prompt is its own")
            )


def hermes(root: Path) -> Layout:
    if (
        not (root / "skills").is_dir()
        and not (root / "memories").is_dir()
        and not (root / "config.yaml").is_file()
    ):
        raise LayoutError(f"{root} holds no skills/, memories/ or config.yaml: not a Hermes home (~/.hermes)")
    layout = Layout("hermes", root)
    if (root / "skills").is_dir():
        layout.skills.append(root / "skills")
    files: tuple[tuple[str, Target], ...] = (("MEMORY.md", "memory"), ("USER.md", "user"))
    for name, target in files:
        if (root / "memories" / name).is_file():
            layout.memory.append((root / "memories" / name, target, "entries"))
    _config(layout, root / "config.yaml", _read_yaml, "mcp_servers", "mcp.servers")
    if (root / "state.db").is_file():
        layout.sessions, layout.sessions_format = [root / "state.db"], "hermes-sqlite"
    _persona(layout, root / "SOUL.md")
    return layout


def claude(root: Path) -> Layout:
    if root.name == ".claude" or ((root / "projects").is_dir() and not (root / ".claude").is_dir()):
        claude_dir, home = root, root.parent
    else:
        claude_dir, home = root / ".claude", root
    if not claude_dir.is_dir() and not (home / ".claude.json").is_file():
        raise LayoutError(f"{root} holds no .claude/ or .claude.json: give your home folder or ~/.claude")
    layout = Layout("claude", claude_dir)
    if (claude_dir / "skills").is_dir():
        layout.skills.append(claude_dir / "skills")
    if (claude_dir / "CLAUDE.md").is_file():
        layout.memory.append((claude_dir / "CLAUDE.md", "memory", "markdown"))
    import json

    config = home / ".claude.json"
    _config(layout, config, lambda p: json.loads(p.read_text(encoding="utf-8")), "mcpServers")
    if config.is_file():
        try:
            projects = json.loads(config.read_text(encoding="utf-8")).get("projects") or {}
        except (ValueError, AttributeError):
            projects = {}
        for project, data in projects.items() if isinstance(projects, dict) else []:
            for name in (data or {}).get("mcpServers") or {}:
                why = f"scoped to the project {project}; grove's servers are global: `grove mcp add` it if wanted"
                layout.mcp_skipped.append((name, why))
    layout.sessions = (
        sorted((claude_dir / "projects").glob("*/*.jsonl")) if (claude_dir / "projects").is_dir() else []
    )
    layout.sessions_format = "claude-jsonl"
    return layout


def codex(root: Path) -> Layout:
    if (
        not (root / "config.toml").is_file()
        and not (root / "AGENTS.md").is_file()
        and not (root / "skills").is_dir()
    ):
        raise LayoutError(f"{root} holds no config.toml, AGENTS.md or skills/: not a Codex home (~/.codex)")
    import tomllib

    layout = Layout("codex", root)
    if (root / "skills").is_dir():
        layout.skills.append(root / "skills")
    if (root / "AGENTS.md").is_file():
        layout.memory.append((root / "AGENTS.md", "memory", "markdown"))
    _config(
        layout, root / "config.toml", lambda p: tomllib.loads(p.read_text(encoding="utf-8")), "mcp_servers"
    )
    layout.sessions = (
        sorted((root / "sessions").rglob("rollout-*.jsonl")) if (root / "sessions").is_dir() else []
    )
    layout.sessions_format = "codex-jsonl"
    return layout


def openclaw(root: Path) -> Layout:
    ws = root / "workspace"
    if not ws.is_dir() and not (root / "openclaw.json").is_file() and not (root / "skills").is_dir():
        raise LayoutError(
            f"{root} holds no workspace/, skills/ or openclaw.json: not an OpenClaw home (~/.openclaw)"
        )
    import json

    layout = Layout("openclaw", root)
    layout.skills = [d for d in (root / "skills", ws / "skills") if d.is_dir()]
    files: tuple[tuple[str, Target], ...] = (
        ("MEMORY.md", "memory"),
        ("USER.md", "user"),
        ("AGENTS.md", "memory"),
    )
    for name, target in files:
        if (ws / name).is_file():
            layout.memory.append((ws / name, target, "markdown"))
    _config(
        layout,
        root / "openclaw.json",
        lambda p: json.loads(p.read_text(encoding="utf-8")),
        "mcp.servers",
        "mcpServers",
    )
    _persona(layout, ws / "SOUL.md", ws / "IDENTITY.md")
    for extra in ("TOOLS.md", "HEARTBEAT.md"):
        if (ws / extra).is_file():
            layout.skipped_files.append((ws / extra, "OpenClaw-specific; nothing in grove reads it"))
    layout.sessions = (
        sorted((root / "agents").glob("*/sessions/*.jsonl")) if (root / "agents").is_dir() else []
    )
    layout.sessions_format = "openclaw-jsonl"
    return layout


def locate(agent: str, path: Path | None) -> Layout:
    if agent not in AGENTS:
        raise LayoutError(f"unknown agent '{agent}'; use one of: {', '.join(AGENTS)}")
    root = Path(path).expanduser() if path else default_path(agent)
    if not root.is_dir():
        raise LayoutError(f"{root} is not a folder; give {agent}'s home folder as PATH")
    return {"hermes": hermes, "claude": claude, "codex": codex, "openclaw": openclaw}[agent](root.absolute())
