"""The checkpoint store of one workspace under $GROVE_HOME/checkpoints/<key>/: content-addressed blobs, one
manifest per snapshot and an index of checkpoints, pruned oldest first to stay within the configured bounds."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from grove.backends.tree import LocalTree, WorkspaceTree
from grove.checkpoints.tree import Entry, Scanned, StatKey, scan
from grove.config.checkpoints import CheckpointsConfig

if TYPE_CHECKING:
    from grove.config import Settings


@dataclass
class Checkpoint:
    """One turn's checkpoint: `before` is the tree just before its first change, `after` the tree the turn left
    (None while the turn runs, or if it died): what differs between them is what the agent did."""

    id: str
    time: float
    session: str
    prompt: str
    before: str  # manifest name
    after: str | None = None
    changed: list[str] = field(default_factory=list)
    too_big: list[str] = field(default_factory=list)
    kind: str = "turn"  # "turn", or "undo" for the state kept before an undo replaced it


def workspace_key(workspace: Path | str) -> str:
    """The store's folder name: a local folder's real path, or a remote tree's ident ('ssh:host:/srv/w')."""
    ident = str(workspace.resolve()) if isinstance(workspace, Path) else workspace
    return f"{PurePosixPath(ident).name[:40] or 'root'}-{hashlib.sha256(ident.encode()).hexdigest()[:12]}"


class CheckpointStore:
    """Kept on this machine under grove's home, whichever backend's workspace it is of: `workspace` is a local
    folder, or a backend's tree (grove.backends.tree), read and restored through that backend."""

    def __init__(
        self, home: Path, workspace: Path | WorkspaceTree, config: CheckpointsConfig | None = None
    ) -> None:
        self.tree: WorkspaceTree = LocalTree(workspace) if isinstance(workspace, Path) else workspace
        self.where = self.tree.ident  # how the workspace is named to the user
        # the local folder (None for a remote one)
        self.workspace: Path | None = self.tree.local
        self.config = config or CheckpointsConfig()
        self.home = home.resolve()
        self.root = self.home / "checkpoints" / workspace_key(self.tree.ident)
        self.objects = self.root / "objects"
        self.manifests = self.root / "manifests"

    # -- reading -------------------------------------------------------------------------------------------
    def list(self) -> list[Checkpoint]:
        """Oldest first."""
        try:
            raw = json.loads((self.root / "index.json").read_text())
        except FileNotFoundError:
            return []
        return [Checkpoint(**item) for item in raw]

    def get(self, checkpoint_id: str) -> Checkpoint | None:
        matches = [c for c in self.list() if c.id == checkpoint_id or c.id.startswith(checkpoint_id)]
        return matches[0] if len(matches) == 1 else None

    def manifest(self, name: str) -> dict[str, Entry]:
        raw = json.loads((self.manifests / f"{name}.json").read_text())
        return {path: Entry.from_list(e) for path, e in raw.items()}

    def blob_path(self, digest: str) -> Path:
        return self.objects / digest[:2] / digest[2:]

    # -- writing -------------------------------------------------------------------------------------------
    def snapshot(self) -> tuple[str, Scanned]:
        """Scan the workspace, keep every content not yet stored, write the manifest; returns its name."""
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(self.root.parent, 0o700)  # the workspace's contents, secrets included: for grove's user only
        scanned = scan(
            self.tree,
            skip=self._skip,
            cache=self._load_cache(),
            store_blob=self._store_blob,
            has_blob=lambda d: self.blob_path(d).exists(),
            max_file_bytes=self.config.max_file_bytes,
            max_files=self.config.max_files,
        )
        name = uuid.uuid4().hex
        self.manifests.mkdir(exist_ok=True)
        _write_json(self.manifests / f"{name}.json", {p: e.as_list() for p, e in scanned.entries.items()})
        _write_json(self.root / "cache.json", {p: [list(k), d] for p, (k, d) in scanned.stats.items()})
        (self.root / "workspace").write_text(self.where)
        return name, scanned

    def take(self, session: str, prompt: str, kind: str = "turn") -> Checkpoint:
        name, scanned = self.snapshot()
        cp = Checkpoint(
            id=name[:12],
            time=time.time(),
            session=session,
            prompt=" ".join(prompt.split())[:200],
            before=name,
            too_big=scanned.too_big,
            kind=kind,
        )
        self._save([*self.list(), cp])
        return cp

    def seal(self, checkpoint: Checkpoint) -> Checkpoint:
        """Record what the turn left, so a later undo can tell the agent's changes from the user's."""
        name, _ = self.snapshot()
        checkpoint.after = name
        checkpoint.changed = sorted(diff(self.manifest(checkpoint.before), self.manifest(name)))
        self._save([checkpoint if c.id == checkpoint.id else c for c in self.list()])
        self.prune()
        return checkpoint

    def drop(self, checkpoint_ids: set[str]) -> None:
        self._save([c for c in self.list() if c.id not in checkpoint_ids])
        self._collect()

    def prune(self) -> None:
        """Oldest checkpoints go until at most `keep` remain and the stored contents fit `max_bytes`."""
        items = self.list()
        while len(items) > self.config.keep:
            items.pop(0)
        while len(items) > 1 and self._referenced_bytes(items) > self.config.max_bytes:
            items.pop(0)
        self._save(items)
        self._collect()

    # -- internals -----------------------------------------------------------------------------------------
    def _skip(self, rel: str) -> bool:
        # grove's own home inside the workspace (grove started in $HOME) is not the workspace's content
        if self.workspace is None:
            return False
        path = self.workspace / rel
        return path == self.home or path == self.home.parent / "checkpoints" or self.home in path.parents

    def _store_blob(self, rel: str, size: int) -> str:
        self.objects.mkdir(parents=True, exist_ok=True)
        h = hashlib.sha256()
        fd, tmp = tempfile.mkstemp(dir=self.objects, prefix=".in-")
        try:
            # never through a link: a file swapped for one between the walk and the read is not followed out
            with self.tree.open_read(rel) as f, os.fdopen(fd, "wb") as out:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
                    out.write(chunk)
            digest = h.hexdigest()
            target = self.blob_path(digest)
            if target.exists():
                os.unlink(tmp)
            else:
                target.parent.mkdir(exist_ok=True)
                os.chmod(tmp, 0o600)
                os.replace(tmp, target)
            return digest
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise

    def _load_cache(self) -> dict[str, tuple[StatKey, str]]:
        try:
            raw = json.loads((self.root / "cache.json").read_text())
        except (FileNotFoundError, ValueError):
            return {}
        out: dict[str, tuple[StatKey, str]] = {}
        for path, (key, digest) in raw.items():
            if self.blob_path(digest).exists():  # a pruned blob must be read again
                out[path] = ((int(key[0]), int(key[1]), int(key[2]), int(key[3])), digest)
        return out

    def _names(self, items: list[Checkpoint]) -> set[str]:
        return {n for c in items for n in (c.before, c.after) if n}

    def _referenced(self, items: list[Checkpoint]) -> set[str]:
        digests: set[str] = set()
        for name in self._names(items):
            try:
                entries = self.manifest(name)
            except FileNotFoundError:
                continue
            digests |= {e.digest for e in entries.values() if e.kind == "file" and e.digest}
        return digests

    def _referenced_bytes(self, items: list[Checkpoint]) -> int:
        total = 0
        for d in self._referenced(items):
            with contextlib.suppress(FileNotFoundError):
                total += self.blob_path(d).stat().st_size
        return total

    def _collect(self) -> None:
        """Delete manifests and blobs no checkpoint refers to."""
        items = self.list()
        keep_names = self._names(items)
        if self.manifests.is_dir():
            for m in self.manifests.iterdir():
                if m.stem not in keep_names:
                    m.unlink()
        keep = self._referenced(items)
        if self.objects.is_dir():
            for sub in self.objects.iterdir():
                if sub.is_dir():
                    for blob in sub.iterdir():
                        if sub.name + blob.name not in keep:
                            blob.unlink()

    def _save(self, items: list[Checkpoint]) -> None:
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        _write_json(self.root / "index.json", [asdict(c) for c in items])


def diff(a: dict[str, Entry], b: dict[str, Entry]) -> set[str]:
    """Paths whose entry (kind, mode, content) differs between two trees, or that only one has."""
    return {p for p in a.keys() | b.keys() if a.get(p) != b.get(p)}


def _write_json(path: Path, data: object) -> None:
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}")
    tmp.write_text(json.dumps(data))
    os.replace(tmp, path)


def remove_store(store: CheckpointStore) -> None:
    shutil.rmtree(store.root, ignore_errors=True)


def stores_of(
    home: Path, config: CheckpointsConfig | None = None, settings: Settings | None = None
) -> list[CheckpointStore]:
    """Every workspace with checkpoints under this grove home (each store notes its workspace: a local path, or
    the backend spec of a remote one, connected only when its files are touched)."""
    found = []
    base = home / "checkpoints"
    for root in sorted(base.iterdir()) if base.is_dir() else []:
        try:
            where = (root / "workspace").read_text().strip()
        except OSError:
            continue
        tree = Path(where) if where.startswith("/") else backend_tree(where, settings)
        found.append(CheckpointStore(home, tree, config))
    return found


def backend_tree(spec: str, settings: Settings | None) -> WorkspaceTree:
    """The tree of the backend `spec` names, opened on its first act (listing checkpoints needs no connection)."""
    # a proxy: each act opens the backend's tree (once) and forwards to it through __getattr__
    return _OpenedLater(spec, settings)  # pyright: ignore[reportReturnType]


class _OpenedLater:
    def __init__(self, spec: str, settings: Settings | None) -> None:
        self.ident, self.local, self._settings = spec, None, settings
        self._tree: WorkspaceTree | None = None

    def __getattr__(self, name: str) -> object:  # only for what the tree itself has: opened on first use
        if self._tree is None:
            from grove.backends.base import BackendError
            from grove.backends.open import open_backend

            backend = open_backend(self.ident, self._settings)
            if backend is None:
                raise BackendError(f"{self.ident!r} names this machine, not a remote workspace")
            self._tree = backend.tree()
        return getattr(self._tree, name)
