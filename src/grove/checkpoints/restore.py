"""Undo: put back the tree a checkpoint saw, touching only what the agent changed in the turns undone, and
refusing (unless forced) where someone else changed a path since; the state replaced is kept as a checkpoint."""

from __future__ import annotations

import contextlib
import hashlib
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from grove.backends.tree import WorkspaceTree, make_writable, parent_of, remove
from grove.checkpoints.store import Checkpoint, CheckpointStore, diff
from grove.checkpoints.tree import Entry


class UndoError(Exception):
    """An undo that cannot go ahead; the message says why and what to do."""


@dataclass
class UndoPlan:
    target: dict[str, Entry]
    current: dict[str, Entry]
    paths: list[str]  # what the undo changes, sorted
    conflicts: list[str] = field(default_factory=list)  # changed by someone other than the agent since
    skipped: list[str] = field(default_factory=list)  # too big to have been kept
    undone: list[Checkpoint] = field(default_factory=list)
    saved: Checkpoint | None = None  # the replaced state, for an undo of the undo


def plan_undo(store: CheckpointStore, undone: list[Checkpoint]) -> UndoPlan:
    """`undone`: consecutive checkpoints, oldest first; the tree goes back to the first one's `before`."""
    if not undone:
        raise UndoError("no checkpoint to undo in this workspace")
    name, _ = store.snapshot()
    current = store.manifest(name)
    (store.manifests / f"{name}.json").unlink()
    befores = [store.manifest(c.before) for c in undone]
    afters = [store.manifest(c.after) if c.after else None for c in undone]
    touched: set[str] = set()
    for i, before in enumerate(befores):
        after = afters[i]
        touched |= diff(before, after if after is not None else current)
    target = befores[0]
    conflicts: set[str] = set()
    for p in touched:
        # the agent's chain for this path: each turn starts where the previous one left it, and the tree now
        # is what the last turn left; a break in the chain is someone else's change
        for i in range(1, len(undone)):
            prev = afters[i - 1]
            # an undo's checkpoint starts from the turns it dropped (and already checked): no break there
            if prev is not None and undone[i].kind != "undo" and prev.get(p) != befores[i].get(p):
                conflicts.add(p)
        last = afters[-1]
        if last is not None and last.get(p) != current.get(p):
            conflicts.add(p)
    paths = sorted(p for p in touched if target.get(p) != current.get(p))
    skipped = [p for p in paths if (e := target.get(p)) is not None and e.kind == "file" and e.digest is None]
    return UndoPlan(
        target, current, [p for p in paths if p not in skipped], sorted(conflicts), skipped, undone
    )


def undo(
    store: CheckpointStore, undone: list[Checkpoint], *, force: bool = False, session: str = ""
) -> UndoPlan:
    plan = plan_undo(store, undone)
    if plan.conflicts and not force:
        raise UndoError(
            "changed since the agent's turn (by you or another program), so undo would overwrite it: "
            + ", ".join(plan.conflicts[:20])
            + (" …" if len(plan.conflicts) > 20 else "")
            + " — keep your change and leave it, or run again with --force (your version is kept as a checkpoint)"
        )
    for p in plan.paths:  # everything needed is there before anything changes
        e = plan.target.get(p)
        if e is not None and e.kind == "file" and e.digest and not store.blob_path(e.digest).exists():
            raise UndoError(f"the checkpoint lost the content of {p} (pruned); nothing was changed")
    if plan.paths:  # the state being replaced, as a checkpoint whose "turn" is this undo: undo it to go back
        plan.saved = store.take(session, f"undo of {', '.join(c.id for c in undone)}", kind="undo")
    try:
        apply(store, plan)
    except OSError as e:  # every step is idempotent: the same target again finishes the job
        kept = f"; the state before is checkpoint {plan.saved.id}" if plan.saved else ""
        raise UndoError(
            f"undo stopped part way ({e}); fix the cause and run `grove undo --to {undone[0].id} --force` "
            f"to finish{kept}"
        ) from e
    store.drop({c.id for c in undone})
    if plan.saved is not None:
        store.seal(plan.saved)
    return plan


def apply(store: CheckpointStore, plan: UndoPlan) -> None:
    """Make each planned path what the target says, through the store's tree (this machine's or a backend's).
    Idempotent: a run cut short can be run again."""
    tree = store.tree
    target, current = plan.target, plan.current
    # 1. remove what the target lacks or has as another kind, deepest first (a link is removed, never followed)
    for p in sorted(plan.paths, key=lambda x: x.count("/"), reverse=True):
        now, want = current.get(p), target.get(p)
        if now is not None and (want is None or want.kind != now.kind):
            remove(tree, p)
    # 2. directories, shallowest first (writable while we work; final modes at the end)
    for p in sorted(plan.paths, key=lambda x: x.count("/")):
        want = target.get(p)
        if want is not None and want.kind == "dir":
            st = tree.lstat(p)
            if st is None or st.kind != "dir":
                remove(tree, p)
                tree.mkdir(p)
    # 3. files and links, each written beside its place then renamed over it
    for p in plan.paths:
        want = target.get(p)
        if want is None or want.kind == "dir":
            continue
        parent = parent_of(p)
        _inside(tree, parent)
        make_writable(tree, parent)
        tmp = f"{parent}/" if parent else ""
        tmp += f".grove-undo-{uuid.uuid4().hex[:8]}"
        if want.kind == "link":
            tree.symlink(str(want.digest), tmp)
        else:
            _copy_blob(store.blob_path(str(want.digest)), tree, tmp, str(want.digest))
            tree.chmod(tmp, want.mode)
        st = tree.lstat(p)
        if st is not None and st.kind == "dir":
            remove(tree, p)
        tree.replace(tmp, p)
    # 4. directory modes, deepest first, for planned dirs and the parents we made writable
    dirs = {p for p in plan.paths if (e := target.get(p)) is not None and e.kind == "dir"}
    dirs |= {parent_of(p) for p in plan.paths if "/" in p}
    for p in sorted(dirs, key=lambda x: x.count("/"), reverse=True):
        e = target.get(p)
        st = tree.lstat(p)
        if e is not None and e.kind == "dir" and st is not None and st.kind == "dir":
            tree.chmod(p, (st.mode & ~0o777) | e.mode)  # a setgid dir (shared group) stays so


def _inside(tree: WorkspaceTree, directory: str) -> None:
    real, root = tree.realpath(directory), tree.real_root()
    if real != root and not real.startswith(root.rstrip("/") + "/"):
        raise UndoError(f"{directory} leads outside the workspace (a link); nothing is written there")


def _copy_blob(blob: Path, tree: WorkspaceTree, dest: str, digest: str) -> None:
    h = hashlib.sha256()
    try:
        with open(blob, "rb") as src, tree.create(dest) as out:
            for chunk in iter(lambda: src.read(1 << 20), b""):
                h.update(chunk)
                out.write(chunk)
            if h.hexdigest() != digest:
                raise _Damaged  # inside the block: a buffered (remote) file is then never sent
    except _Damaged:
        with contextlib.suppress(FileNotFoundError):
            tree.unlink(dest)
        raise UndoError(f"the stored content {digest[:12]} is damaged; nothing more was changed") from None


class _Damaged(Exception):
    pass


def last_turns(store: CheckpointStore, n: int = 1, to: str | None = None) -> list[Checkpoint]:
    """The checkpoints an undo of the last `n` turns (or back to checkpoint `to`) covers, oldest first."""
    items = store.list()
    if to is not None:
        cp = store.get(to)
        if cp is None:
            raise UndoError(f"no checkpoint {to!r} in this workspace; `grove checkpoints` lists them")
        return items[items.index(cp) :]
    if n < 1:
        raise UndoError("N must be 1 or more")
    if n > len(items):
        raise UndoError(f"only {len(items)} checkpoint(s) in this workspace; `grove checkpoints` lists them")
    return items[-n:]
