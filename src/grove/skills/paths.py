"""Supporting-file paths inside a skill: only under scripts/ references/ templates/ assets/, no escapes, no symlinks."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from grove.skills.skill import SUPPORT_DIRS


class UnsafePathError(ValueError):
    """A supporting-file path that points outside the allowed folders of its skill."""


def support_path(skill_dir: Path, file_path: str) -> Path:
    """The absolute path for `file_path` inside `skill_dir`, or UnsafePathError saying why not."""
    raw = file_path.strip().replace("\\", "/")
    rel = PurePosixPath(raw)
    allowed = ", ".join(f"{d}/" for d in SUPPORT_DIRS)
    if not raw or rel.is_absolute() or raw.startswith("~"):
        raise UnsafePathError(
            f"file_path {file_path!r} must be relative to the skill folder, under {allowed}"
        )
    parts = rel.parts
    if any(p in ("..", ".") for p in raw.split("/")) or "\0" in raw:
        raise UnsafePathError(f"file_path {file_path!r} may not contain '..' or '.' segments")
    if len(parts) < 2 or parts[0] not in SUPPORT_DIRS:
        raise UnsafePathError(
            f"file_path {file_path!r} must be a file under {allowed} (e.g. references/api.md)"
        )
    target = skill_dir.joinpath(*parts)
    node = skill_dir
    for part in parts:
        node = node / part
        if node.is_symlink():
            raise UnsafePathError(
                f"file_path {file_path!r} goes through a symbolic link ({node.name}); refused"
            )
    root = skill_dir.resolve()
    if not target.resolve().is_relative_to(root):
        raise UnsafePathError(f"file_path {file_path!r} resolves outside the skill folder")
    return target


def inside_path(skill_dir: Path, file_path: str) -> Path:
    """For reading: any file inside the skill folder (other clients keep references at the top level too)."""
    raw = file_path.strip().replace("\\", "/")
    rel = PurePosixPath(raw)
    if not raw or rel.is_absolute() or raw.startswith("~") or ".." in rel.parts:
        raise UnsafePathError(f"file_path {file_path!r} must be a relative path inside the skill folder")
    target = skill_dir.joinpath(*rel.parts)
    if not target.resolve().is_relative_to(skill_dir.resolve()):
        raise UnsafePathError(f"file_path {file_path!r} resolves outside the skill folder")
    return target
