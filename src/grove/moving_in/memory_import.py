"""Memory and instruction files into grove's MEMORY.md / USER.md, entry by entry, through grove's own memory edits
(the safety scan, the character limits, the lock). What does not fit or is refused is reported, not forced."""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

from grove.memory.files import FILES, MemoryEditError, MemoryFiles, MemoryOp, Target, parse_entries
from grove.moving_in.layouts import MemoryFormat
from grove.moving_in.report import Report

MAX_FILE_BYTES = 1 << 20
MAX_ENTRY_CHARS = 600  # a memory entry is a fact or two; longer blocks are cut at a sentence


def markdown_entries(text: str) -> list[str]:
    """A markdown instruction file as memory entries: each bullet or paragraph, prefixed with its heading."""
    entries: list[str] = []
    heading = ""
    block: list[str] = []
    in_fence = False

    def flush() -> None:
        body = " ".join(line.strip() for line in block if line.strip()).strip()
        block.clear()
        if body and not in_fence:
            entries.append(f"{heading}: {body}" if heading else body)

    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            if not in_fence:
                flush()
                in_fence = True
                block.append(line)
            else:
                block.append(line)
                body = "\n".join(block).strip()
                block.clear()
                in_fence = False
                entries.append(f"{heading}: {body}" if heading else body)
            continue
        if in_fence:
            block.append(line)
            continue
        if re.match(r"^#{1,6}\s", stripped):
            flush()
            heading = stripped.lstrip("#").strip()
        elif not stripped or stripped == "§":
            flush()
        elif re.match(r"^([-*+]|\d+[.)])\s", stripped) and not line.startswith((" ", "\t")):
            flush()
            block.append(re.sub(r"^([-*+]|\d+[.)])\s+", "", stripped))
        else:
            block.append(stripped)
    in_fence = False  # an unclosed fence still counts as text
    flush()
    return [_cut(e) for e in entries if e.strip()]


def _cut(entry: str) -> str:
    if len(entry) <= MAX_ENTRY_CHARS:
        return entry
    head = entry[:MAX_ENTRY_CHARS]
    end = max(head.rfind(". "), head.rfind("\n"))
    return (head[: end + 1] if end > MAX_ENTRY_CHARS // 2 else head).rstrip() + " [...]"


def import_memory(
    files: MemoryFiles, sources: list[tuple[Path, Target, MemoryFormat]], report: Report, apply: bool
) -> None:
    """Add each source entry to its target file. A dry run edits a scratch copy, so its verdicts are the real ones."""
    scratch: Path | None = None
    target_files = files
    if not apply:
        scratch = Path(tempfile.mkdtemp(prefix="grove-movein-"))
        if files.dir.is_dir():
            shutil.copytree(files.dir, scratch / "memory", dirs_exist_ok=True)
        target_files = MemoryFiles(scratch, files.config)
    try:
        for path, target, fmt in sources:
            _one(target_files, path, target, fmt, report)
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


def _one(files: MemoryFiles, path: Path, target: Target, fmt: MemoryFormat, report: Report) -> None:
    kind = "user" if target == "user" else "memory"
    dest = f"memory/{FILES[target]}"
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            why = f"{path.stat().st_size} bytes; memory files over {MAX_FILE_BYTES} are not read (grove's hold ~2 KB)"
            report.add(kind, str(path), "skipped", detail=why)
            return
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        report.add(kind, str(path), "skipped", detail=f"cannot read: {e}")
        return
    entries = parse_entries(text) if fmt == "entries" else markdown_entries(text)
    action = "taken" if fmt == "entries" else "converted"
    if not entries:
        report.add(kind, str(path), "skipped", detail="empty")
        return
    for i, entry in enumerate(entries, 1):
        item = f"{path.name} #{i}: {entry[:50]!r}"
        if entry in files.entries(target):
            report.add(kind, item, "skipped", detail=f"already in {FILES[target]}")
            continue
        try:
            # an import never pushes the user's own entries out to the archive: what does not fit is skipped
            files.apply([MemoryOp("add", target, content=entry)], overflow="refuse")
        except MemoryEditError as e:
            why = str(e)
            if "chars" in why and "full" in why:
                fill = files.fill(target)
                why = (
                    f"{FILES[target]} is full ({fill.used}/{fill.limit} chars): raise memory."
                    f"{'user' if target == 'user' else 'memory'}_chars in config.yaml, or consolidate, and run again"
                )
            report.add(kind, item, "skipped", detail=why[:300])
            continue
        how = "" if action == "taken" else f"from {path.name}, as one entry"
        report.add(kind, item, action, dest, how)
