"""Unpacking a skill tarball without trusting it: no absolute paths or `..`, no links, devices or fifos, bounded
member count and total size. Any such member refuses the whole archive (a hub never installs half of one), with
every problem member named; tarball installs never end in a traceback."""

from __future__ import annotations

import io
import os
import tarfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from grove.skills.folder_read import write_new

MAX_MEMBERS = 5_000
MAX_TOTAL_BYTES = 64 << 20  # unpacked
MAX_MEMBER_BYTES = 8 << 20


class UnsafeArchive(ValueError):
    """An archive refused as a whole; the message names the member and why."""


@dataclass(frozen=True)
class ArchiveLimits:
    max_members: int = MAX_MEMBERS
    max_total_bytes: int = MAX_TOTAL_BYTES
    max_member_bytes: int = MAX_MEMBER_BYTES


MAX_LISTED = 20  # problems named in one refusal


def _checked_name(name: str) -> PurePosixPath:
    """A member's path, relative and inside the archive; `.` (the top folder itself) has no parts."""
    if not name or "\0" in name:
        raise UnsafeArchive(f"{name!r} is not a usable name (empty, or with a NUL byte); refused")
    path = PurePosixPath(name)
    if path.is_absolute() or name.startswith(("/", "\\")) or (path.parts and ":" in path.parts[0]):
        raise UnsafeArchive(f"{name!r} is an absolute path; an archive may only hold relative paths")
    if ".." in path.parts or "\\" in name:
        raise UnsafeArchive(f"{name!r} climbs out of the archive ('..'); refused")
    return path


def _check(m: tarfile.TarInfo, root: str, limits: ArchiveLimits) -> tuple[tarfile.TarInfo, PurePosixPath]:
    """One member as it may be unpacked (tarfile's data filter on top: it drops setuid bits and refuses what
    would land outside `root`), or UnsafeArchive naming it and why."""
    path = _checked_name(m.name)
    if m.issym() or m.islnk():
        raise UnsafeArchive(f"{m.name!r} is a link (to {m.linkname!r}); links are refused")
    if not (m.isfile() or m.isdir()):
        raise UnsafeArchive(f"{m.name!r} is a device, fifo or other special file; refused")
    if not path.parts and not m.isdir():
        raise UnsafeArchive(f"{m.name!r} names the archive's top folder itself but is not a folder; refused")
    if m.isfile() and m.size > limits.max_member_bytes:
        raise UnsafeArchive(f"{m.name!r} has {m.size} bytes; at most {limits.max_member_bytes}")
    data_filter = getattr(tarfile, "data_filter", None)  # Python 3.11.4+
    if data_filter is not None:
        try:
            m = data_filter(m, root)
        except tarfile.FilterError as e:
            raise UnsafeArchive(f"{m.name!r}: {e}; refused") from e
    return m, path


def _members(
    tar: tarfile.TarFile, root: str, limits: ArchiveLimits
) -> list[tuple[tarfile.TarInfo, PurePosixPath]]:
    """Every member checked before anything is written; all the problems named in one refusal."""
    members: list[tuple[tarfile.TarInfo, PurePosixPath]] = []
    problems: list[str] = []
    files: set[PurePosixPath] = set()
    seen: set[PurePosixPath] = set()
    total = 0
    for i, m in enumerate(tar):
        if i >= limits.max_members:
            problems.append(f"more than {limits.max_members} members")
            break
        try:
            m, path = _check(m, root, limits)
            if path in seen and not m.isdir():
                raise UnsafeArchive(f"{m.name!r} is given twice; refused (which one would be installed?)")
            inside = next((p for p in path.parents if p in files), None)
            if inside is not None or (m.isdir() and path in files):
                raise UnsafeArchive(
                    f"{m.name!r} would be inside {str(inside or path)!r}, which is a file; refused"
                )
        except UnsafeArchive as e:
            problems.append(str(e))
            continue
        seen.add(path)
        if m.isfile():
            files.add(path)
            total += m.size
            if total > limits.max_total_bytes:
                problems.append(f"unpacks to more than {limits.max_total_bytes} bytes")
                break
        members.append((m, path))
    if problems:
        more = f"; and {len(problems) - MAX_LISTED} more" if len(problems) > MAX_LISTED else ""
        raise UnsafeArchive("; ".join(problems[:MAX_LISTED]) + more)
    return members


def safe_extract(data: bytes, dest: Path, limits: ArchiveLimits | None = None) -> list[str]:
    """Unpack a .tar/.tar.gz given as bytes into `dest` (created); returns the files written (relative).
    Links of any kind are refused, not skipped: a skill that needs one is not portable anyway."""
    limits = limits or ArchiveLimits()
    try:
        tar = tarfile.open(fileobj=io.BytesIO(data), mode="r:*")  # noqa: SIM115 (closed by the `with` below)
    except (tarfile.TarError, EOFError, OSError, zlib.error) as e:
        raise UnsafeArchive(f"not a readable tar archive: {e}") from e
    with tar:
        dest.mkdir(parents=True, exist_ok=True)
        root = dest.resolve()
        try:
            members = _members(tar, str(root), limits)
        except (tarfile.TarError, EOFError, OSError, zlib.error) as e:  # truncated or corrupt past a header
            raise UnsafeArchive(f"not a readable tar archive: {e}") from e
        written: list[str] = []
        for m, path in members:
            try:
                _unpack(tar, m, root, path, limits)
            except (tarfile.TarError, EOFError, OSError, zlib.error) as e:
                raise UnsafeArchive(f"{m.name!r} cannot be unpacked: {e}; refused") from e
            if m.isfile():
                written.append(str(path))
        return written


def _unpack(
    tar: tarfile.TarFile, m: tarfile.TarInfo, root: Path, path: PurePosixPath, limits: ArchiveLimits
) -> None:
    target = root.joinpath(*path.parts) if path.parts else root
    if os.path.commonpath([root, target.resolve()]) != str(root):
        raise UnsafeArchive(f"{m.name!r} resolves outside the folder; refused")
    if m.isdir():
        target.mkdir(parents=True, exist_ok=True)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    src = tar.extractfile(m)
    if src is None:
        return
    # O_EXCL + O_NOFOLLOW: a planted link cannot redirect the write; rwx bits only (no setuid), as imports copy
    write_new(
        str(target),
        src.read(limits.max_member_bytes + 1)[: limits.max_member_bytes],
        0o644 | (m.mode & 0o111),
    )
