"""Fetching a SOURCE into a quarantine folder: nothing fetched is read as a skill until the import pipeline has
scanned it. Git repositories are cloned without hooks, symlinks or submodules; tarballs unpacked by archive.py;
.well-known indexes (Agent Skills discovery 0.2.0 archives and SKILL.md entries, or the older `files` lists)
checked entry by entry, digests verified."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grove.skills.folder_read import copy_tree
from grove.skills_hub.archive import _checked_name, safe_extract
from grove.skills_hub.http import FetchError, http_get
from grove.skills_hub.source import Source

NAME_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
DIGEST_RE = re.compile(r"^sha256:[a-f0-9]{64}$")
MAX_INDEX_BYTES = 4 << 20
MAX_SKILL_FILE_BYTES = 4 << 20
MAX_INDEX_FILES = 200  # files one index entry may list (the importer's own per-skill limit)
COMMIT_RE = re.compile(r"^[0-9a-f]{40}$")

__all__ = ["FetchError", "Fetched", "content_hash", "fetch", "remote_commit"]


@dataclass
class Fetched:
    root: Path  # the folder to import (the subpath applied)
    commit: str | None = None  # git: the commit checked out
    notes: list[str] = field(default_factory=list)


def _git_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update({"GIT_TERMINAL_PROMPT": "0", "GIT_CONFIG_NOSYSTEM": "1", "GIT_ASKPASS": "/bin/false"})
    return env


def _git(args: list[str], cwd: Path | None = None, timeout: float = 300) -> str:
    # hooks off and symlinks checked out as plain files: nothing in the repository acts before the scan
    cmd = [
        "git",
        "-c",
        "core.hooksPath=/dev/null",
        "-c",
        "core.symlinks=false",
        "-c",
        "protocol.ext.allow=never",
    ]
    cmd += args
    try:
        done = subprocess.run(
            cmd, cwd=cwd, env=_git_env(), capture_output=True, text=True, timeout=timeout, check=False
        )
    except FileNotFoundError as e:
        raise FetchError("git is not installed; install git to fetch from a repository") from e
    except subprocess.TimeoutExpired as e:
        raise FetchError(f"git {args[0]} took longer than {timeout:.0f} s") from e
    if done.returncode != 0:
        raise FetchError(f"git {args[0]} failed: {done.stderr.strip().splitlines()[-1:] or done.returncode}")
    return done.stdout


def _fetch_git(source: Source, dest: Path) -> str:
    _git(["clone", "--quiet", "--no-recurse-submodules", "--", source.location, str(dest)])
    if source.ref:
        _git(["checkout", "--quiet", "--detach", source.ref], cwd=dest)
    commit = _git(["rev-parse", "HEAD"], cwd=dest).strip()
    shutil.rmtree(dest / ".git", ignore_errors=True)
    return commit


def remote_commit(source: Source) -> str | None:
    """The commit the source's ref (or HEAD) names now, without cloning; a pinned commit names itself."""
    if source.kind != "git":
        return None
    if COMMIT_RE.match(source.ref):
        return source.ref
    out = _git(["ls-remote", "--", source.location, source.ref or "HEAD"], timeout=60)
    wanted = {
        source.ref,
        f"refs/heads/{source.ref}",
        f"refs/tags/{source.ref}^{{}}",
        f"refs/tags/{source.ref}",
    }
    rows = [line.split("\t", 1) for line in out.splitlines() if "\t" in line]
    for sha, name in sorted(rows, key=lambda r: not r[1].endswith("^{}")):  # a peeled tag names its commit
        if not source.ref or name in wanted:
            return sha
    return None


def _index_urls(location: str) -> list[str]:
    if location.endswith(".json"):
        return [location]
    return [f"{location}/.well-known/agent-skills/index.json", f"{location}/.well-known/skills/index.json"]


def _fetch_index(location: str) -> tuple[str, dict[str, Any]]:  # a JSON object, its 'skills' a list
    last: Exception | None = None
    for url in _index_urls(location):
        try:
            data = http_get(url, MAX_INDEX_BYTES)
        except FetchError as e:
            last = e
            continue
        try:
            body = json.loads(data)
        except ValueError as e:
            raise FetchError(f"{url} is not JSON: {e}") from e
        if not isinstance(body, dict) or not isinstance(body.get("skills"), list):
            raise FetchError(f"{url} is not a skills index (no 'skills' list)")
        return url, body
    raise FetchError(f"no skills index found at {location}: {last}")


def _fetch_wellknown(source: Source, dest: Path) -> list[str]:
    from urllib.parse import urljoin, urlsplit

    index_url, body = _fetch_index(source.location)
    notes: list[str] = []
    origin = urlsplit(index_url)[:2]
    base = index_url.rsplit("/", 1)[0] + "/"
    entries = [e for e in body["skills"] if isinstance(e, dict)]
    if source.subpath:
        entries = [e for e in entries if e.get("name") == source.subpath]
        if not entries:
            raise FetchError(f"{index_url} lists no skill named '{source.subpath}'")
    for entry in entries:
        name = entry.get("name")
        if not isinstance(name, str) or len(name) > 64 or not NAME_RE.match(name):
            notes.append(f"skipped an index entry with an invalid name: {str(name)[:64]!r}")
            continue
        folder = dest / name
        if "url" in entry:  # discovery 0.2.0: one artifact per skill, with its digest
            url = urljoin(index_url, str(entry["url"]))
            if urlsplit(url)[:2] != origin:
                notes.append(f"skipped {name}: its url points to another origin ({url})")
                continue
            digest = str(entry.get("digest", ""))
            if not DIGEST_RE.match(digest):
                notes.append(f"skipped {name}: no valid sha256 digest in the index")
                continue
            data = http_get(url)
            if "sha256:" + hashlib.sha256(data).hexdigest() != digest:
                raise FetchError(f"{name}: {url} does not match the index's sha256 digest; refused")
            if entry.get("type", "archive") == "archive":
                safe_extract(data, folder)
                inner = [p for p in folder.iterdir()] if folder.is_dir() else []
                if not (folder / "SKILL.md").is_file() and len(inner) == 1 and inner[0].is_dir():
                    for child in inner[0].iterdir():  # an archive holding <name>/SKILL.md: lift it
                        child.rename(folder / child.name)
                    inner[0].rmdir()
            else:
                folder.mkdir(parents=True, exist_ok=True)
                (folder / "SKILL.md").write_bytes(data)
            continue
        files = entry.get("files") or ["SKILL.md"]
        if not isinstance(files, list) or len(files) > MAX_INDEX_FILES:
            notes.append(f"skipped {name}: 'files' is not a list of at most {MAX_INDEX_FILES} paths")
            continue
        for rel in files:
            path = _checked_name(str(rel))
            data = http_get(urljoin(base, f"{name}/{path}"), MAX_SKILL_FILE_BYTES)
            target = folder.joinpath(*path.parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    return notes


def fetch(source: Source, dest: Path) -> Fetched:
    """Fetch `source` into the empty folder `dest` (the quarantine); the caller removes it."""
    notes: list[str] = []
    commit: str | None = None
    if source.kind == "git":
        commit = _fetch_git(source, dest)
    elif source.kind == "folder":
        # read as an import reads (no link followed, rwx bits only): the quarantine holds no link and no setuid
        left_out = copy_tree(source.location, str(dest), skip=frozenset({".git"}))
        notes += [f"left out {what}" for what in left_out]
    elif source.kind == "tarball":
        loc = source.location
        data = http_get(loc) if loc.startswith(("http://", "https://")) else Path(loc).read_bytes()
        safe_extract(data, dest)
    else:
        dest.mkdir(parents=True, exist_ok=True)
        notes = _fetch_wellknown(source, dest)
    root = dest
    if source.subpath and source.kind != "wellknown":
        root = dest.joinpath(*source.subpath.split("/"))
        if not root.resolve().is_relative_to(dest.resolve()) or not root.is_dir():
            raise FetchError(f"#{source.subpath} is not a folder in {source.location}")
    elif source.kind == "tarball":
        inner = [p for p in dest.iterdir() if not p.name.startswith(".")]
        if not (dest / "SKILL.md").exists() and len(inner) == 1 and inner[0].is_dir():
            root = inner[0]  # the usual `name/...` top folder of a tarball
    return Fetched(root, commit, notes)


def content_hash(folder: Path) -> str:
    """sha256 over every regular, non-hidden file of a skill folder (path and bytes), in path order."""
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for fname in sorted(filenames):
            full = Path(dirpath) / fname
            if fname.startswith(".") or full.is_symlink() or not full.is_file():
                continue
            h.update(str(full.relative_to(folder)).encode() + b"\0" + full.read_bytes() + b"\0")
    return h.hexdigest()
