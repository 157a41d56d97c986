"""Building skill sources for the hub tests: skill folders, git repositories, tarballs."""

from __future__ import annotations

import io
import subprocess
import tarfile
from pathlib import Path

GIT_ID = ["-c", "user.email=t@example.org", "-c", "user.name=t", "-c", "commit.gpgsign=false"]


def skill_md(name: str, body: str = "Run `ls` and read the output.\n", description: str = "") -> str:
    description = description or f"Use {name} when the user asks for {name.replace('-', ' ')}."
    return f"---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\n{body}"


def write(folder: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *GIT_ID, *args], cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def git_repo(repo: Path, files: dict[str, str]) -> str:
    """A repository holding `files`, committed; returns the commit."""
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q", "-b", "main")
    return commit(repo, files, "first")


def commit(repo: Path, files: dict[str, str], message: str) -> str:
    write(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def tarball(members: dict[str, str | bytes], links: dict[str, str] | None = None) -> bytes:
    """A .tar.gz built member by member, so tests can plant names no folder could hold ('../x', '/etc/x')."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, content in members.items():
            data = content.encode() if isinstance(content, str) else content
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type = tarfile.SYMTYPE
            info.linkname = target
            tar.addfile(info)
    return buf.getvalue()
