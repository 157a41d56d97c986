"""Where the file tools may act. A path is walked one name at a time from a held folder fd (O_NOFOLLOW; symlinks
are read and spliced in by hand), so the place that is checked is the place that is used. The workspace and the
declared roots are free; anything else needs approval; grove's home, process files in /proc and devices never."""

from __future__ import annotations

import os
import re
import stat
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

from grove.config.workspaces import FOLDER as WORKSPACES
from grove.lazy_regex import later
from grove.security.approval.base import PolicyView
from grove.security.commands.base import CommandVerdict, Finding
from grove.security.files.identity import FsIdentity, acting_as, beneath, identity_for, root_owned
from grove.security.files.protected import existing_protected, protected_rel

MAX_PATH = 4096
MAX_NAME = 255
MAX_LINKS = 40
_DIR_FLAGS = os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
# grove's home: what the model may read (with approval) — the rest (settings, state.db, history, cache) never
HOME_READABLE = ("skills", "memory")
_PROC_PRIVATE = later(r"^/proc/(?:\d+|self|thread-self|kcore|kmsg|kpage\w*|sysrq-trigger|kallsyms)(?:/|$)")


class Refused(Exception):
    """The act is not allowed; the message is for the model (what was refused, why, what to do instead)."""


@dataclass(frozen=True)
class Roots:
    """Where file tools act without asking, and whose rights they use."""

    workspace: Path
    home: Path | None = None  # grove's home ($GROVE_HOME)
    read_only: tuple[Path, ...] = ()
    read_write: tuple[Path, ...] = ()
    identity: FsIdentity | None = None
    # grove is root and the workspace is root's (the usual container): inside the workspace and the read-write
    # roots the acts keep root's rights, confined by the held-fd walk and re-checked by the kernel (openat2)
    root_inside: bool = False

    @classmethod
    def make(
        cls,
        workspace: Path,
        home: Path | None,
        read_only: tuple[Path, ...] = (),
        read_write: tuple[Path, ...] = (),
    ) -> Roots:
        return cls(workspace, home, read_only, read_write, identity_for(workspace), root_owned(workspace))


@dataclass
class Place:
    """A checked location: the open folder that holds it, its name there ('' = that folder itself), its real
    path, and the folders still to create before it (writes into new folders)."""

    dir_fd: int
    name: str
    real: str
    missing: list[str] = field(default_factory=list)
    exists: bool = True
    inside: bool = False  # acted on with grove's own (root) rights: see Roots.root_inside

    def close(self) -> None:
        os.close(self.dir_fd)


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _real(p: Path) -> str:
    return os.path.realpath(os.path.expanduser(str(p)))


class Confinement:
    """One tool call's view of the filesystem: the roots opened as grove (so the workspace is reachable whatever
    its parents' modes), every walk and act done with `roots.identity`'s rights."""

    def __init__(self, roots: Roots, policy: PolicyView, session_id: str | None = None) -> None:
        self.roots, self.policy, self.session_id = roots, policy, session_id
        self.ws_real = _real(roots.workspace)
        self.home_real = _real(roots.home) if roots.home is not None else None
        self.read_only = [_real(p) for p in roots.read_only]
        self.read_write = [_real(p) for p in roots.read_write]
        spellings: dict[str, str] = {}  # how a root may be written -> where it really is
        for p in (roots.workspace, *roots.read_write, *roots.read_only, Path("/")):
            real = _real(p)
            spellings[os.path.normpath(os.path.expanduser(str(p)))] = real
            spellings[real] = real
        self._anchors: list[tuple[str, int]] = []
        self._anchor_real: dict[str, str] = {}
        opened: dict[str, int] = {}
        for spelled, real in spellings.items():
            if real not in opened:
                try:
                    opened[real] = os.open(real, _DIR_FLAGS)
                except OSError:
                    continue
            self._anchors.append((spelled, os.dup(opened[real])))
            self._anchor_real[spelled] = real
        for fd in opened.values():
            os.close(fd)
        self._anchors.sort(key=lambda a: len(a[0]), reverse=True)
        self._home_inodes = self._sensitive_inodes()
        self._runs_later = _runs_later(self.ws_real, roots.home)

    def close(self) -> None:
        for _spelled, fd in self._anchors:
            os.close(fd)
        self._anchors = []

    def __enter__(self) -> Confinement:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    @contextmanager
    def acting(self, place: Place | None = None) -> Iterator[None]:
        """The block with the rights acts at `place` use: root's inside a root-owned workspace, else identity's."""
        if place is not None and place.inside:
            yield
            return
        with acting_as(self.roots.identity):
            yield

    # --- where a path leads

    def locate(self, path: str, *, write: bool) -> Place:
        """Walk `path` (relative to the workspace, absolute, or ~) and check the place it leads to; ask when it is
        outside the roots. Raises Refused."""
        text = _validate(path)
        try:
            with self.acting():
                place = self._walk(text)
        except PermissionError:
            # the acting uid cannot get there; walk as grove only to say why it is refused (or needs approval),
            # then report the permission error: nothing is done with grove's rights (but in a root-owned
            # workspace, where grove's rights are the workspace's owner's)
            place = self._walk(text)
            try:
                self.check(place, write=write, spelled=path)
                if not self._root_inside(place):
                    raise
            except BaseException:
                place.close()
                raise
            return place
        try:
            self.check(place, write=write, spelled=path)
            self._root_inside(place)
        except BaseException:
            place.close()
            raise
        return place

    def _root_inside(self, place: Place) -> bool:
        """Mark a place in the workspace (or a read-write root) of a root-owned project to be acted on as root,
        after the kernel confirms its folder lies beneath that root without a link (openat2 RESOLVE_BENEATH)."""
        if not self.roots.root_inside or self.zone(place.real) != "rw":
            return False
        folder = place.real if not place.name else os.path.dirname(place.real)
        for _ in place.missing:
            folder = os.path.dirname(folder)
        root = next(r for r in (self.ws_real, *self.read_write) if _under(folder, r))
        anchor = next((fd for spelled, fd in self._anchors if spelled == root), None)
        if anchor is None:
            return False
        rel = os.path.relpath(folder, root)
        try:
            checked = beneath(anchor, rel)
        except OSError as e:
            raise Refused(f"{place.real} changed while it was being checked, or leads out; try again") from e
        if checked is not None:
            try:
                a, b = os.fstat(checked), os.fstat(place.dir_fd)
            finally:
                os.close(checked)
            if (a.st_dev, a.st_ino) != (b.st_dev, b.st_ino):
                raise Refused(f"{place.real} changed while it was being checked; try again")
        place.inside = True
        return True

    def _start(self, absolute: str) -> tuple[int, str, list[str]]:
        """The deepest held root that spells a prefix of `absolute`, and the names left to walk from it."""
        norm = "/" + absolute.lstrip("/")
        for spelled, fd in self._anchors:
            if _under(norm, spelled):
                rest = norm[len(spelled.rstrip("/")) :].split("/")
                return os.dup(fd), self._anchor_real[spelled], rest
        raise Refused("cannot open the filesystem root")

    def _walk(self, text: str) -> Place:
        if text.startswith("~"):
            text = os.path.expanduser(text)
        if text.startswith("/"):
            fd, real, parts = self._start(text)
        else:
            fd, real, parts = self._start(self.ws_real)
            parts = [*parts, *text.split("/")]
        pending, links, missing = deque(parts), 0, []
        try:
            while pending:
                name = pending.popleft()
                if name in ("", "."):
                    continue
                if missing:
                    if name == "..":
                        raise Refused(f"{'/'.join(missing)} does not exist, so '..' after it leads nowhere")
                    missing.append(name)
                    continue
                if name == "..":
                    if real != "/":
                        fd = _swap(fd, os.open("..", _DIR_FLAGS, dir_fd=fd))
                        real = os.path.dirname(real)
                    continue
                try:
                    st = os.stat(name, dir_fd=fd, follow_symlinks=False)
                except FileNotFoundError:
                    missing.append(name)
                    continue
                if stat.S_ISLNK(st.st_mode):
                    links += 1
                    if links > MAX_LINKS:
                        raise Refused("too many symbolic links (a loop?)")
                    target = os.readlink(name, dir_fd=fd)
                    if target.startswith("/"):
                        os.close(fd)
                        fd, real, parts = self._start(target)
                        pending.extendleft(reversed(parts))
                    else:
                        pending.extendleft(reversed(target.split("/")))
                    continue
                if not pending:
                    return Place(fd, name, os.path.join(real, name))
                if not stat.S_ISDIR(st.st_mode):
                    raise Refused(f"{name} is not a folder")
                try:
                    fd = _swap(fd, os.open(name, _DIR_FLAGS, dir_fd=fd))
                except OSError as e:  # swapped for a link between the look and the open
                    raise Refused(f"{name} changed while it was being checked; try again") from e
                real = os.path.join(real, name)
        except BaseException:
            os.close(fd)
            raise
        if missing:
            return Place(fd, missing[-1], os.path.join(real, *missing), missing[:-1], exists=False)
        return Place(fd, "", real)

    # --- what may be done there

    def check(self, place: Place, *, write: bool, spelled: str) -> None:
        verb = "write" if write else "read"
        hard = self.hard_reason(place.real, write=write)
        if hard:
            self._decide(
                f"{verb} {place.real}", [Finding("file-protected", hard, hard=True, effect="system")]
            )
            raise Refused(hard)  # the flow refuses hard findings; this is never reached unless it changes
        zone = self.zone(place.real)
        later = self.runs_later(place.real) if write else None
        if later is not None:
            finding = Finding(
                f"file-protected-path:{later}",
                f"write {place.real}: this is {later}, which a program runs later, outside any sandbox, with the "
                f"user's rights (git on the next `git status`/commit, direnv on `cd`, the editor on open); asked "
                f"for as {spelled!r}",
                effect="system",
            )
            self._decide(f"write {place.real}", [finding])
            return
        if zone == "rw" or (zone == "ro" and not write):
            return
        where = "a read-only root" if zone == "ro" else "outside the workspace"
        folder = place.real if not place.name else os.path.dirname(place.real)
        finding = Finding(
            f"file-{verb}-outside:{folder}",
            f"{verb} {place.real} ({where}; asked for as {spelled!r})",
            effect="overwrite" if write else "expose",
        )
        self._decide(f"{verb} {place.real}", [finding])

    def hard_reason(self, real: str, *, write: bool) -> str:
        """Why `real` is never reachable by file tools, or ''."""
        if self.home_real and _under(real, self.home_real):
            top = os.path.relpath(real, self.home_real).split("/")[0]
            if top == WORKSPACES:
                pass  # the entrances' workspaces: each one a workspace like any folder outside the home
            elif write or top not in HOME_READABLE:
                return (
                    f"{real} is inside grove's own home ({self.home_real}: settings, state.db, skills, memory, "
                    "history); file tools never change it and never read its settings or database. Use the "
                    "skill and memory tools, or ask the user to run `grove config`"
                )
        if self.home_real and write and _under(self.home_real, real):
            return f"{real} holds grove's own home ({self.home_real}); file tools never replace it"
        if _under(real, "/proc") and (write or _PROC_PRIVATE.match(real)):
            return f"{real} is process or kernel state in /proc; file tools never touch it"
        if _under(real, "/sys") and write:
            return f"{real} is kernel state in /sys; file tools never write it"
        if _under(real, "/dev") and not _under(real, "/dev/shm"):
            return f"{real} is in /dev (devices); file tools never touch it"
        return ""

    def runs_later(self, real: str) -> str | None:
        """The protected path (protected.py) a real place is, by where it lies, whatever it was spelled like."""
        for prefix, alias in self._runs_later:
            if not _under(real, prefix):
                continue
            rest = real[len(prefix.rstrip("/")) + 1 :] if real != prefix else ""
            parts = [_plain(p) for p in f"{alias}/{rest}".split("/") if p]
            if parts and parts[-1] == ".git":
                return ".git (the pointer to the repository's folder)"
            for i in range(len(parts)):  # a nested repository or .envrc is run the same way as the top one
                hit = protected_rel("/".join(parts[i:]))
                if hit is not None:
                    return hit
        return None

    def zone(self, real: str) -> str:
        """rw (workspace or a read-write root), ro (a read-only root) or out."""
        if _under(real, self.ws_real) or any(_under(real, r) for r in self.read_write):
            return "rw"
        return "ro" if any(_under(real, r) for r in self.read_only) else "out"

    def check_opened(self, place: Place, st: os.stat_result) -> None:
        """After opening: only regular files; never one of grove's protected files under another name; a file with
        other names (a hard link, maybe to something outside) needs approval."""
        if not stat.S_ISREG(st.st_mode):
            raise Refused(f"{place.real} is not a regular file (a folder, FIFO, device or socket)")
        if self.is_protected(st):
            hard = f"{place.real} is another name (a hard link) of one of grove's own files; never read"
            self._decide(f"read {place.real}", [Finding("file-protected", hard, hard=True, effect="system")])
            raise Refused(hard)
        if st.st_nlink > 1 and self.zone(place.real) != "out":
            finding = Finding(
                "file-hardlinked",
                f"read {place.real}: it has {st.st_nlink} names (hard links), one may be outside the workspace",
                effect="expose",
            )
            self._decide(f"read {place.real}", [finding])

    def is_protected(self, st: os.stat_result) -> bool:
        """Whether an opened file is one of grove's own protected files, whatever name it was reached by."""
        return (st.st_dev, st.st_ino) in self._home_inodes

    def _decide(self, command: str, findings: list[Finding]) -> None:
        from grove.security.approval import flow as approval

        verdict = CommandVerdict(command=command, findings=findings)
        decide = getattr(approval, "decide_verdict", None)
        if decide is not None:
            decision = decide(self.policy, verdict, session_id=self.session_id)
        else:  # older approval module: same flow, logged here
            decision = approval._decide(self.policy, verdict, self.session_id)
            if self.policy.decisions is not None:
                self.policy.decisions.record(decision, self.session_id)
        if not decision.allowed:
            raise Refused(decision.reason)

    def _sensitive_inodes(self) -> set[tuple[int, int]]:
        """grove's own files the model must never read under any name (settings, state.db, history, cache)."""
        out: set[tuple[int, int]] = set()
        if not self.home_real or not os.path.isdir(self.home_real):
            return out
        for dirpath, dirnames, filenames in os.walk(self.home_real):
            if dirpath == self.home_real:
                dirnames[:] = [d for d in dirnames if d not in (*HOME_READABLE, WORKSPACES)]
            elif dirpath.count("/") - self.home_real.count("/") >= 2:
                dirnames[
                    :
                ] = []  # settings, state.db and history sit at the top; caches one or two levels down
            for name in filenames:
                try:
                    st = os.lstat(os.path.join(dirpath, name))
                except OSError:
                    continue
                if stat.S_ISREG(st.st_mode):
                    out.add((st.st_dev, st.st_ino))
            if len(out) > 10_000:
                break
        return out


def _plain(name: str) -> str:
    """A name as case-insensitive, dot-trimming filesystems (macOS, NTFS, vfat) read it: `.GIT.` is `.git`."""
    return name.casefold().rstrip(". ")


def _runs_later(ws_real: str, home: Path | None) -> list[tuple[str, str]]:
    """(real folder, the workspace-relative name it stands for): the workspace itself, the repository folder a
    `.git` link or `gitdir:` file leads to, and whatever a protected path links to or its config names (hooksPath,
    include.path), so a place is protected by where it really is."""
    out = [(ws_real, "")]
    dot_git = os.path.join(ws_real, ".git")
    gitdirs: list[str] = []
    try:
        if os.path.isfile(dot_git) and not os.path.islink(dot_git):
            with open(dot_git, encoding="utf-8", errors="replace") as f:
                line = f.read(4096).strip()
            if line.startswith("gitdir:"):
                gitdirs.append(os.path.realpath(os.path.join(ws_real, line[7:].strip())))
        elif os.path.isdir(dot_git):
            gitdirs.append(os.path.realpath(dot_git))
        for g in list(gitdirs):
            common = os.path.join(g, "commondir")
            if os.path.isfile(common):
                with open(common, encoding="utf-8", errors="replace") as f:
                    gitdirs.append(os.path.realpath(os.path.join(g, f.read(4096).strip())))
    except OSError:
        pass
    out += [(g, ".git") for g in gitdirs]
    for g in gitdirs:
        for key, value in _config_paths(os.path.join(g, "config")):
            alias = ".git/hooks" if key == "hookspath" else ".git/config"
            base = ws_real if key == "hookspath" else g
            out.append((os.path.realpath(os.path.join(base, os.path.expanduser(value))), alias))
    for rel in existing_protected(Path(ws_real), home):
        p = os.path.join(ws_real, rel)
        entries = [p]
        if os.path.isdir(p) and not os.path.islink(p):
            with suppress(OSError):
                entries += [os.path.join(p, n) for n in os.listdir(p)][:1000]
        for e in entries:
            if os.path.islink(e):  # a hook that is a link to a workspace file: that file runs later
                out.append((os.path.realpath(e), os.path.relpath(e, ws_real)))
    return out


_CONFIG_PATH = later(r"^\s*(hookspath|path)\s*=\s*\"?([^\"\n]+?)\"?\s*$", re.IGNORECASE | re.MULTILINE)


def _config_paths(config: str) -> list[tuple[str, str]]:
    """(key, value) of a git config's hooksPath and include/includeIf paths: files git runs or reads as config."""
    try:
        with open(config, encoding="utf-8", errors="replace") as f:
            text = f.read(1 << 20)
    except OSError:
        return []
    return [(m.group(1).lower(), m.group(2)) for m in _CONFIG_PATH.finditer(text)]


def _swap(old: int, new: int) -> int:
    os.close(old)
    return new


def _validate(path: str) -> str:
    if not isinstance(path, str) or not path.strip():
        raise Refused("give a file path (relative to the workspace)")
    if "\0" in path:
        raise Refused("the path contains a NUL byte; file names cannot")
    if len(path.encode("utf-8", "surrogateescape")) > MAX_PATH:
        raise Refused(f"the path is longer than {MAX_PATH} bytes")
    for part in path.split("/"):
        if len(part.encode("utf-8", "surrogateescape")) > MAX_NAME:
            raise Refused(f"a name in the path is longer than {MAX_NAME} bytes: {part[:40]}...")
    return path
