"""Unpacking a skill tarball without trusting it: no absolute paths or `..`, no links, devices or fifos, bounded
member count and total size. Any such member refuses the whole archive (a hub never installs half of one)."""

from __future__ import annotations

import io
import os
import tarfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

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


def _checked_name(name: str) -> PurePosixPath:
    path = PurePosixPath(name)
    if path.is_absolute() or name.startswith(("/", "\\")) or ":" in path.parts[0]:
        raise UnsafeArchive(f"{name!r} is an absolute path; an archive may only hold relative paths")
    if ".." in path.parts or "\\" in name:
        raise UnsafeArchive(f"{name!r} climbs out of the archive ('..'); refused")
    return path


def safe_extract(data: bytes, dest: Path, limits: ArchiveLimits | None = None) -> list[str]:
    """Unpack a .tar/.tar.gz given as bytes into `dest` (created); returns the files written (relative).
    Links of any kind are refused, not skipped: a skill that needs one is not portable anyway."""
    limits = limits or ArchiveLimits()
    try:
        tar = tarfile.open(fileobj=io.BytesIO(data), mode="r:*")  # noqa: SIM115 (closed by the `with` below)
    except (tarfile.TarError, EOFError, OSError) as e:
        raise UnsafeArchive(f"not a readable tar archive: {e}") from e
    with tar:
        members = []
        total = 0
        for i, m in enumerate(tar):
            if i >= limits.max_members:
                raise UnsafeArchive(f"more than {limits.max_members} members; refused")
            path = _checked_name(m.name)
            if m.issym() or m.islnk():
                raise UnsafeArchive(f"{m.name!r} is a link (to {m.linkname!r}); links are refused")
            if not (m.isfile() or m.isdir()):
                raise UnsafeArchive(f"{m.name!r} is a device, fifo or other special file; refused")
            if m.isfile():
                if m.size > limits.max_member_bytes:
                    raise UnsafeArchive(f"{m.name!r} has {m.size} bytes; at most {limits.max_member_bytes}")
                total += m.size
                if total > limits.max_total_bytes:
                    raise UnsafeArchive(f"unpacks to more than {limits.max_total_bytes} bytes; refused")
            members.append((m, path))
        dest.mkdir(parents=True, exist_ok=True)
        root = dest.resolve()
        written: list[str] = []
        for m, path in members:
            target = root.joinpath(*path.parts) if path.parts else root
            if os.path.commonpath([root, target.resolve()]) != str(root):
                raise UnsafeArchive(f"{m.name!r} resolves outside the folder; refused")
            if m.isdir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            src = tar.extractfile(m)
            if src is None:
                continue
            # O_EXCL + O_NOFOLLOW: a name given twice, or a planted link, cannot redirect the write
            fd = os.open(
                target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644 | (m.mode & 0o100)
            )
            with os.fdopen(fd, "wb") as out:
                out.write(src.read(limits.max_member_bytes + 1)[: limits.max_member_bytes])
            written.append(str(path))
        return written
