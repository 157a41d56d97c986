"""Project folders the user trusted to supply skills (`grove skills trust PATH`), kept in $GROVE_HOME/trusted.yaml."""

from __future__ import annotations

from pathlib import Path

from grove.atomic_files import atomic_write_text

TRUST_FILE = "trusted.yaml"
_KEY = "skill_projects"


def _path(home: Path) -> Path:
    return Path(home) / TRUST_FILE


def trusted_projects(home: Path) -> list[Path]:
    path = _path(home)
    if not path.is_file():
        return []  # the usual case: no yaml import at all
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError:
        return []  # a broken trust file trusts nothing: the safe reading
    items = data.get(_KEY, []) if isinstance(data, dict) else []
    return [Path(p) for p in items if isinstance(p, str)]


def is_trusted(home: Path, project: Path) -> bool:
    target = Path(project).resolve()
    return any(target == p for p in trusted_projects(home))


def trust_project(home: Path, project: Path) -> Path:
    """Trust `project` (a working directory); returns its resolved path. Idempotent."""
    import yaml

    target = Path(project).expanduser().resolve()
    if not target.is_dir():
        raise FileNotFoundError(f"{project} is not a folder; give the project's root folder")
    current = [str(p) for p in trusted_projects(home)]
    if str(target) not in current:
        current.append(str(target))
        path = _path(home)
        data: dict[str, object] = {}
        if path.is_file():
            try:
                loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
                data = loaded if isinstance(loaded, dict) else {}
            except yaml.YAMLError:
                data = {}
        data[_KEY] = sorted(current)
        atomic_write_text(path, yaml.safe_dump(data, sort_keys=True))
    return target
