"""A code skill's result written straight to a workspace file (`skill_run(..., output_path=...)`), so a large
result reaches the file without passing through the model's context: text results as they are, `.jsonl` with a
list one item a line, anything else as JSON. Written as write_file would (confined, never through a link)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from grove.config import grove_home
from grove.security.approval.policy import SafetyPolicy
from grove.security.files.acts import write_place
from grove.security.files.confine import Confinement, Refused, Roots

PREVIEW_CHARS = 200


class OutputPathError(ValueError):
    """The output path is not a file the skill's result may be written to; the message says why."""


def check_output_path(workspace: Path, output_path: str) -> str:
    """The path relative to the workspace, or OutputPathError: checked before the skill runs, so a bad path costs
    no run. Inside the workspace only (links followed), and not an existing folder."""
    root = os.path.realpath(workspace)
    if not output_path or "\0" in output_path:
        raise OutputPathError(
            "output_path is empty; give a file path relative to the workspace, e.g. out/result.json"
        )
    real = os.path.realpath(os.path.join(root, os.path.expanduser(output_path)))
    if not real.startswith(root.rstrip("/") + "/"):
        raise OutputPathError(f"output_path {output_path} is outside the workspace; give a path inside it")
    if os.path.isdir(real):
        raise OutputPathError(f"output_path {output_path} is a folder; give a file path")
    return os.path.relpath(real, root)


def encode(result: Any, rel: str) -> bytes:
    if isinstance(result, str):
        text = result
    elif isinstance(result, float) and result.is_integer() and not rel.endswith((".json", ".jsonl")):
        text = f"{int(result)}\n"  # a whole number in a text file as people write it: 4355, not 4355.0
    elif rel.endswith(".jsonl") and isinstance(result, list):
        text = "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in result)
    else:
        text = json.dumps(result, ensure_ascii=False, indent=2) + "\n"
    return text.encode("utf-8")


def write_result(workspace: Path, rel: str, result: Any) -> dict[str, Any]:
    """Write `result` to workspace/rel; returns what the model is told instead of the result: the path, its
    size, the result's shape and a short preview."""
    data = encode(result, rel)
    try:
        roots = Roots.make(workspace, grove_home())
        with Confinement(roots, SafetyPolicy(unattended=True)) as conf:
            place = conf.locate(rel, write=True)
            try:
                write_place(conf, place, rel, data)
            finally:
                place.close()
    except (Refused, OSError) as e:
        raise OutputPathError(f"could not write the result to {rel}: {e}") from e
    return summarize(rel, data, result)


def summarize(rel: str, data: bytes, result: Any) -> dict[str, Any]:
    """What the model is told of a result written to `rel`: the path, its size, its shape, a short preview."""
    summary: dict[str, Any] = {"path": rel, "bytes": len(data), "type": type(result).__name__}
    if isinstance(result, list | dict | str):
        summary["length"] = len(result)
    preview = data[: PREVIEW_CHARS * 2].decode("utf-8", errors="ignore")[:PREVIEW_CHARS]
    summary["preview"] = preview + ("…" if len(data) > len(preview.encode("utf-8")) else "")
    return summary
