"""What `grove skills install SOURCE` names: a folder, a git repository, a tarball or a .well-known skills index,
with an optional `#subpath` (a folder inside it) and `@ref` (a git branch, tag or commit)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Kind = Literal["folder", "git", "tarball", "wellknown"]
TARBALL_SUFFIXES = (".tar.gz", ".tgz", ".tar")


class SourceError(ValueError):
    """A SOURCE that cannot be read; the message says what was expected."""


@dataclass(frozen=True)
class Source:
    kind: Kind
    location: str  # a path or URL, without #subpath and @ref
    subpath: str = ""
    ref: str = ""

    def spec(self) -> str:
        """The SOURCE string that names this again (stored, so `update` fetches the same thing)."""
        prefix = "git:" if self.kind == "git" and not _looks_git_url(self.location) else ""
        out = prefix + self.location
        if self.ref:
            out += "@" + self.ref
        if self.subpath:
            out += "#" + self.subpath
        return out


def _looks_git_url(text: str) -> bool:
    return text.endswith(".git") or text.startswith(("git@", "ssh://", "git://")) or text.startswith("git+")


def _split_ref(text: str) -> tuple[str, str]:
    """`repo@ref` -> (repo, ref); an '@' before the last '/' or ':' belongs to the URL (git@host:o/r)."""
    at = text.rfind("@")
    if at <= 0 or at < max(text.rfind("/"), text.rfind(":")):
        return text, ""
    return text[:at], text[at + 1 :]


def parse_source(text: str, cwd: Path | None = None) -> Source:
    """Read a SOURCE string. Local paths are made absolute so a stored source works from any folder."""
    raw = text.strip()
    if not raw:
        raise SourceError("give a SOURCE: a folder, a git repository, a .tar.gz, or a .well-known index URL")
    body, _, subpath = raw.partition("#")
    subpath = subpath.strip("/")
    if subpath and any(part in ("..", "") for part in subpath.split("/")):
        raise SourceError(f"#{subpath}: a subpath is a folder inside the source, without '..'")
    forced_git = body.startswith(("git:", "git+"))
    if body.startswith("git:") or body.startswith("git+"):
        body = body[4:]
    if body.startswith(("http://", "https://")):
        if "/.well-known/" in body or body.endswith("/index.json"):
            return Source("wellknown", body, subpath)
        if not forced_git and body.split("?", 1)[0].endswith(TARBALL_SUFFIXES):
            return Source("tarball", body, subpath)
        location, ref = _split_ref(body)
        if forced_git or location.endswith(".git"):
            return Source("git", location, subpath, ref)
        return Source("wellknown", body.rstrip("/"), subpath)  # a site: its .well-known index is looked up
    if body.startswith(("ssh://", "git://", "git@")):
        location, ref = _split_ref(body)
        return Source("git", location, subpath, ref)
    if body.startswith("file://"):
        body = body[len("file://") :]
    location, ref = _split_ref(body)
    path = Path(location).expanduser()
    if not path.is_absolute():
        path = (cwd or Path.cwd()) / path
    if not path.exists():
        if ref and Path(body).expanduser().exists():  # a folder whose name holds '@'
            path, ref = Path(body).expanduser().absolute(), ""
        else:
            raise SourceError(f"{location} does not exist (give a folder, a git repository, or a .tar.gz)")
    if path.is_file():
        if not path.name.endswith(TARBALL_SUFFIXES):
            raise SourceError(f"{path} is a file but not a .tar.gz/.tgz/.tar archive")
        return Source("tarball", str(path.absolute()), subpath)
    if forced_git or (path / ".git").exists():
        return Source("git", str(path.absolute()), subpath, ref)
    if ref:
        raise SourceError(f"@{ref}: only a git repository has refs; {path} is a plain folder")
    return Source("folder", str(path.absolute()), subpath)
