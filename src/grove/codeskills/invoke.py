"""`skill_run`: call a stored code skill in the sandbox; input files (a named folder's too) go in read-only, new
files come back out. The arguments are checked against the contract before anything runs; the result may go
straight to a file."""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grove.codeskills.check import check_args
from grove.codeskills.contract import read_contract
from grove.codeskills.layout import CODE_FILE
from grove.codeskills.output import check_output_path, write_result
from grove.codeskills.sandboxed import RUN_LIMITS, CallOutcome, call_solve
from grove.config import grove_home
from grove.sandbox import Limits, make_scratch
from grove.sandbox.users import SANDBOX_GID, is_root
from grove.security.approval.policy import SafetyPolicy
from grove.security.files.acts import read_place, write_place
from grove.security.files.confine import Confinement, Refused, Roots

MAX_INPUT_BYTES = 64 * 1024 * 1024
MAX_OUTPUT_FILES = 100
MAX_FOLDER_FILES = 1_000  # files a folder argument maps in
MAX_OUTPUT_BYTES = 256 * 1024 * 1024


@dataclass
class RunOutcome:
    call: CallOutcome
    inputs: list[str] = field(default_factory=list)  # workspace files mapped in (read-only)
    written: list[str] = field(default_factory=list)  # files the skill wrote, copied to the workspace
    output: dict[str, Any] | None = (
        None  # where the result was written (output_path), instead of returning it
    )


def _relative_place(value: str, workspace: Path) -> str | None:
    """`value` as a path relative to the workspace when it names a file or folder inside it, else None."""
    if not value or len(value) > 4096 or "\0" in value:
        return None
    try:
        path = (workspace / value).resolve()
        rel = path.relative_to(workspace)
    except (OSError, ValueError):
        return None
    if any(p.startswith(".") for p in rel.parts) or not (path.is_file() or path.is_dir()):
        return None
    return str(rel)


def _folder_files(workspace: Path, rel: str) -> list[str]:
    """The regular files under a workspace folder, hidden ones and links left out, at most MAX_FOLDER_FILES."""
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(workspace / rel):
        dirnames[:] = sorted(
            d for d in dirnames if not d.startswith(".") and not os.path.islink(os.path.join(dirpath, d))
        )
        for fname in sorted(filenames):
            full = os.path.join(dirpath, fname)
            if fname.startswith(".") or os.path.islink(full) or not os.path.isfile(full):
                continue
            found.append(os.path.relpath(full, workspace))
            if len(found) >= MAX_FOLDER_FILES:
                return found
    return found


def map_args(
    value: Any,
    place: Callable[[str], tuple[str, bool] | None],
    folder_files: Callable[[str], list[str]],
    inputs: dict[str, str],
    named: set[str],
) -> Any:
    """Rewrite string arguments naming workspace files or folders to relative paths, noting the files (a
    folder's files) in `inputs` and the files named themselves in `named`. `place` gives a string's
    (relative path, is a folder) or None; `folder_files` a folder's files: this machine's or a backend's."""
    if isinstance(value, str):
        found = place(value)
        if found is None:
            return value
        rel, is_dir = found
        if is_dir:
            inputs.update((name, name) for name in folder_files(rel))
        else:
            inputs[rel] = rel
            named.add(rel)
        return rel
    if isinstance(value, list):
        return [map_args(v, place, folder_files, inputs, named) for v in value]
    if isinstance(value, dict):
        return {k: map_args(v, place, folder_files, inputs, named) for k, v in value.items()}
    return value


def _local_place(value: str, workspace: Path) -> tuple[str, bool] | None:
    rel = _relative_place(value, workspace)
    return None if rel is None else (rel, (workspace / rel).is_dir())


def _confined(workspace: Path) -> Confinement:
    """The file tools' confinement, with nobody to ask: links out, hard links, grove's home are skipped."""
    return Confinement(Roots.make(workspace, grove_home()), SafetyPolicy(unattended=True))


def _copy_in(workspace: Path, scratch: Path, inputs: dict[str, str], editable: set[str]) -> dict[str, bytes]:
    """Copy the inputs into the scratch dir, read-only but for `editable`; returns the editable ones' bytes."""
    total = 0
    before: dict[str, bytes] = {}
    for rel in list(inputs):
        dst = scratch / rel
        try:
            with _confined(workspace) as conf:
                place = conf.locate(rel, write=False)
                try:
                    data = read_place(conf, place, rel, MAX_INPUT_BYTES - total)
                finally:
                    place.close()
        except (Refused, OSError):
            del inputs[rel]  # not readable by the file tools either: the skill gets the name, not the file
            continue
        total += len(data)
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes(data)
        if rel in editable:
            before[rel] = data
            if is_root():
                os.chown(dst, -1, SANDBOX_GID)
            os.chmod(dst, 0o664)
        else:
            os.chmod(dst, 0o444)  # read-only: as root, owned by root, the sandbox uid cannot change that
        parent = dst.parent
        while is_root() and parent != scratch:  # folders the sandbox may still add outputs to
            os.chown(parent, -1, SANDBOX_GID)
            os.chmod(parent, 0o2770)
            parent = parent.parent
    return before


def _copy_back(scratch: Path, workspace: Path, before: dict[str, bytes]) -> list[str]:
    """The editable inputs the skill changed (still regular files), written back as write_file would."""
    changed: list[str] = []
    for rel, data in sorted(before.items()):
        try:
            fd = os.open(scratch / rel, os.O_RDONLY | os.O_NOFOLLOW)
            with os.fdopen(fd, "rb") as f:
                if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                    continue
                now = f.read(MAX_OUTPUT_BYTES + 1)
            if now == data or len(now) > MAX_OUTPUT_BYTES:
                continue
            _write(workspace, rel, now)
        except (Refused, OSError):
            continue
        changed.append(rel)
    return changed


def _write(workspace: Path, rel: str, data: bytes) -> None:
    """As write_file would: never through a link, never outside, never grove's home, no setuid."""
    with _confined(workspace) as conf:
        place = conf.locate(rel, write=True)
        try:
            write_place(conf, place, rel, data)
        finally:
            place.close()


def _copy_out(scratch: Path, workspace: Path, inputs: dict[str, str]) -> list[str]:
    """Regular files the skill wrote (never symlinks, never the inputs), bounded, copied into the workspace."""
    written: list[str] = []
    total = 0
    for dirpath, dirnames, filenames in os.walk(scratch):
        dirnames[:] = sorted(d for d in dirnames if not os.path.islink(os.path.join(dirpath, d)))
        for fname in sorted(filenames):
            src = Path(dirpath) / fname
            rel = str(src.relative_to(scratch))
            st = os.lstat(src)
            if rel in inputs or not stat.S_ISREG(st.st_mode):
                continue
            total += st.st_size
            if len(written) >= MAX_OUTPUT_FILES or total > MAX_OUTPUT_BYTES:
                return written
            fd = os.open(src, os.O_RDONLY | os.O_NOFOLLOW)
            with os.fdopen(fd, "rb") as f_in:
                data = f_in.read(MAX_OUTPUT_BYTES + 1)
            try:
                _write(workspace, rel, data)
            except (Refused, OSError):
                continue
            written.append(rel)
    return written


def run_code_skill(
    folder: Path,
    args: dict[str, Any],
    workspace: Path,
    limits: Limits = RUN_LIMITS,
    backend: str | None = None,
    output_path: str | None = None,
    edit_inputs: bool = False,
) -> RunOutcome:
    """Call the skill in `folder` with `args`; files of `workspace` named in the args are its read-only inputs
    (with `edit_inputs`, the files named themselves, not a folder's, may be changed and are written back).
    Arguments that do not fit `solve`'s signature raise ArgumentsError (a ValueError) before the sandbox starts;
    with `output_path` the result is written to that workspace file and `output` says so."""
    workspace = workspace.resolve()
    code = (folder / CODE_FILE).read_text(encoding="utf-8")
    check_args(read_contract(code), args)  # the signature is the contract: typed, required, nothing unknown
    target = check_output_path(workspace, output_path) if output_path is not None else None
    inputs: dict[str, str] = {}
    named: set[str] = set()
    mapped = map_args(
        args, lambda v: _local_place(v, workspace), lambda rel: _folder_files(workspace, rel), inputs, named
    )
    scratch = make_scratch(prefix="grove-skillrun-")
    try:
        before = _copy_in(workspace, scratch, inputs, named if edit_inputs else set())
        outcome = call_solve(code, mapped, scratch, limits, backend)
        written = _copy_out(scratch, workspace, inputs) if outcome.ok else []
        written += _copy_back(scratch, workspace, before) if outcome.ok else []
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    # a skill that changed its file in place returns None: writing "null" over that file would undo it
    saved = (
        write_result(workspace, target, outcome.result)
        if outcome.ok and target is not None and outcome.result is not None
        else None
    )
    return RunOutcome(outcome, sorted(inputs), written, saved)
