"""`skill_run` on the session's backend (an SSH host, a container): the skill, the harness and the input files go
to a scratch folder in the backend's workspace through its confined file view, `solve` runs there through the
backend's command runner (no network, memory and file-size caps), and the files it made come back the same way.
The scratch folder is removed afterwards; what the skill changed elsewhere is the backend's sandbox's to stop."""

from __future__ import annotations

import json
import posixpath
import secrets
import shlex
from contextlib import suppress
from pathlib import Path
from typing import Any

from grove.backends.base import Backend, Files
from grove.backends.tree import remove
from grove.codeskills import harness
from grove.codeskills.check import check_args
from grove.codeskills.contract import read_contract
from grove.codeskills.invoke import (
    MAX_FOLDER_FILES,
    MAX_INPUT_BYTES,
    MAX_OUTPUT_BYTES,
    MAX_OUTPUT_FILES,
    RunOutcome,
    map_args,
)
from grove.codeskills.layout import CODE_FILE
from grove.codeskills.output import OutputPathError, encode, summarize
from grove.codeskills.sandboxed import RUN_LIMITS, CallOutcome, outcome_of
from grove.sandbox import Limits
from grove.security.files.confine import Refused

SCRATCH = ".grove-skillrun-"  # + a random part, in the workspace root
SUB = ".grove-skill"  # the skill's own files inside the scratch folder


def run_on_backend(
    backend: Backend,
    folder: Path,
    args: dict[str, Any],
    limits: Limits = RUN_LIMITS,
    output_path: str | None = None,
    edit_inputs: bool = False,
) -> RunOutcome:
    """As grove.codeskills.invoke.run_code_skill, with the workspace and the sandbox those of `backend`."""
    code = (folder / CODE_FILE).read_text(encoding="utf-8")
    check_args(read_contract(code), args)
    scratch = f"{SCRATCH}{secrets.token_hex(6)}"
    with backend.files() as files:
        target = _output_target(files, output_path) if output_path is not None else None
        inputs: dict[str, str] = {}
        named: set[str] = set()
        mapped = map_args(
            args, lambda v: _place(v, files), lambda rel: _folder_files(files, rel), inputs, named
        )
        try:
            before = _copy_in(files, scratch, inputs, named if edit_inputs else set())
            for rel, text in (
                (harness.FILE_NAME, harness.SOURCE),
                (CODE_FILE, code),
                ("args.json", json.dumps(mapped)),
            ):
                _put(files, f"{scratch}/{SUB}/{rel}", text.encode("utf-8"))
            result = backend.run(_command(scratch, limits), timeout=limits.timeout, network=False)
            if result.refused:
                outcome = CallOutcome(False, error=result.stdout.strip())
            else:
                outcome = outcome_of(result, limits, merged=True)
            written = _copy_out(files, scratch, inputs) if outcome.ok else []
            written += _copy_back(files, scratch, before) if outcome.ok else []
        finally:
            remove(backend.tree(), scratch)
        saved = None
        if outcome.ok and target is not None and outcome.result is not None:
            data = encode(outcome.result, target)
            try:
                _put(files, target, data)
            except (Refused, OSError) as e:
                raise OutputPathError(f"could not write the result to {target}: {e}") from e
            saved = summarize(target, data, outcome.result)
    return RunOutcome(outcome, sorted(inputs), written, saved)


def _command(scratch: str, limits: Limits) -> str:
    """python3 in the scratch folder, isolated mode, under ulimits (the shell's, where it has them)."""
    kb = limits.memory_mb * 1024
    blocks = limits.file_size_mb * 1024
    run = f"python3 -I -B {SUB}/{harness.FILE_NAME} call {SUB}/scripts {SUB}/args.json"
    return (
        f"cd {shlex.quote(scratch)} || exit 125; ulimit -v {kb} 2>/dev/null; ulimit -f {blocks} 2>/dev/null; "
        f"exec {run}"
    )


def _put(files: Files, rel: str, data: bytes) -> None:
    spot = files.locate(rel, write=True)
    try:
        files.write(spot, rel, data)
    finally:
        spot.close()


def _get(files: Files, rel: str) -> bytes:
    spot = files.locate(rel, write=False)
    try:
        return files.read(spot, rel)
    finally:
        spot.close()


def _output_target(files: Files, output_path: str) -> str:
    """The output path relative to the workspace, checked before the run as the local one is."""
    if not output_path or "\0" in output_path:
        raise OutputPathError(
            "output_path is empty; give a file path relative to the workspace, e.g. out/result.json"
        )
    try:
        spot = files.locate(output_path, write=True)
    except Refused as e:
        raise OutputPathError(f"output_path {output_path}: {e}") from None
    try:
        if spot.exists and not spot.name:
            raise OutputPathError(f"output_path {output_path} is a folder; give a file path")
        rel = files.shown(spot.real)
    finally:
        spot.close()
    if rel.startswith("/"):
        raise OutputPathError(f"output_path {output_path} is outside the workspace; give a path inside it")
    return rel


def _place(value: str, files: Files) -> tuple[str, bool] | None:
    """(path relative to the workspace, is a folder) when `value` names a file or folder in it, else None."""
    if not value or len(value) > 4096 or "\0" in value or value.startswith("~"):
        return None
    try:
        spot = files.locate(value, write=False)
    except (Refused, OSError):
        return None
    try:
        if not spot.exists:
            return None
        rel = files.shown(spot.real)
        is_dir = not spot.name
    finally:
        spot.close()
    if rel.startswith("/") or any(p.startswith(".") for p in rel.split("/")):
        return None
    return rel, is_dir


def _folder_files(files: Files, rel: str) -> list[str]:
    found: list[str] = []
    spot = files.locate(rel, write=False)
    try:
        for real, _opener in files.walk(spot):
            name = files.shown(real)
            if name.startswith("/") or any(p.startswith(".") for p in name.split("/")):
                continue
            found.append(name)
            if len(found) >= MAX_FOLDER_FILES:
                break
    finally:
        spot.close()
    return sorted(found)


def _copy_in(files: Files, scratch: str, inputs: dict[str, str], editable: set[str]) -> dict[str, bytes]:
    total = 0
    before: dict[str, bytes] = {}
    for rel in list(inputs):
        try:
            data = _get(files, rel)
        except (Refused, OSError):
            del inputs[rel]  # not readable by the file tools either: the skill gets the name, not the file
            continue
        total += len(data)
        if total > MAX_INPUT_BYTES:
            del inputs[rel]
            continue
        _put(files, f"{scratch}/{rel}", data)
        if rel in editable:
            before[rel] = data
    return before


def _copy_out(files: Files, scratch: str, inputs: dict[str, str]) -> list[str]:
    """Regular files the skill wrote (never links, never the inputs, never its own), bounded, into the workspace."""
    written: list[str] = []
    total = 0
    spot = files.locate(scratch, write=False)
    try:
        made = [posixpath.relpath(files.shown(real), scratch) for real, _opener in files.walk(spot)]
    finally:
        spot.close()
    for rel in sorted(made):
        if rel in inputs or rel.startswith(("..", f"{SUB}/")):
            continue
        try:
            data = _get(files, f"{scratch}/{rel}")
        except (Refused, OSError):
            continue  # a link, a hard link, a FIFO: not copied
        total += len(data)
        if len(written) >= MAX_OUTPUT_FILES or total > MAX_OUTPUT_BYTES:
            break
        with suppress(Refused, OSError):
            _put(files, rel, data)
            written.append(rel)
    return written


def _copy_back(files: Files, scratch: str, before: dict[str, bytes]) -> list[str]:
    changed: list[str] = []
    for rel, data in sorted(before.items()):
        try:
            now = _get(files, f"{scratch}/{rel}")
        except (Refused, OSError):
            continue
        if now == data or len(now) > MAX_OUTPUT_BYTES:
            continue
        with suppress(Refused, OSError):
            _put(files, rel, now)
            changed.append(rel)
    return changed
