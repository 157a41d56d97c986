"""Changing skills in $GROVE_HOME/skills: validate, scan, snapshot the previous version, write atomically, count.

Every change runs under the skill's lock, so writers in several processes queue instead of tearing files or
losing versions. Deleting archives (restorable); nothing here removes a skill for good.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from grove.atomic_files import atomic_write_bytes, atomic_write_text
from grove.skills import usage
from grove.skills.frontmatter import (
    MAX_NAME,
    SkillFormatError,
    name_ok,
    render_skill_md,
    split_frontmatter,
    strict_problems,
)
from grove.skills.history import restore_files, skill_lock, snapshot, version_dir, versions
from grove.skills.paths import UnsafePathError, support_path
from grove.store.db import Database
from grove.textmatch import closest_hint

ARCHIVE_DIR = ".archive"
MAX_SUPPORT_FILE_BYTES = 1024 * 1024


class SkillError(Exception):
    """A refused skill change; the message says what is wrong and how to fix it."""


@dataclass
class ChangeResult:
    message: str
    warnings: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return self.message + "".join(f"\nwarning: {w}" for w in self.warnings)


def check_name(name: str) -> None:
    if not name or not name_ok(name):
        raise SkillError(
            f"invalid skill name {name!r}: use 1-{MAX_NAME} lowercase letters, digits and single hyphens, "
            "not starting or ending with a hyphen (e.g. 'deploy-staging')"
        )


class SkillManager:
    def __init__(
        self,
        skills_root: Path,
        db: Database | None = None,
        *,
        actor: str = "agent",
        session_id: str | None = None,
    ) -> None:
        self.root = Path(skills_root)
        self.db = db
        self.actor = actor
        self.session_id = session_id

    # -- helpers ------------------------------------------------------------------------------------------------
    def skill_dir(self, name: str) -> Path:
        check_name(name)
        return self.root / name

    def exists(self, name: str) -> bool:
        return (self.skill_dir(name) / "SKILL.md").is_file()

    def _require(self, name: str) -> Path:
        folder = self.skill_dir(name)
        if not (folder / "SKILL.md").is_file():
            raise SkillError(
                f"no skill '{name}' in {self.root}; `skills_search` or `grove skills list` shows them"
            )
        return folder

    def _scan(self, text: str, what: str) -> list[str]:
        # Imported here: the scanner costs ~50 ms of start-up that a run writing no skill never needs.
        from grove.skills.guard import scan_skill_text

        result = scan_skill_text(text, path=what)  # the file's kind (markdown, script, code) from its name
        if result.blocked:
            raise SkillError(f"{what} refused by the content scan: " + result.why("dangerous"))
        return list(result.reasons)

    def _validated(self, name: str, text: str, before: str | None = None) -> list[str]:
        """Strict validation; with `before` (a patch), only problems the change introduces are refused, so
        imported skills that bend the rules (e.g. nested metadata) can still be patched."""
        problems = strict_problems(text, name)
        warnings: list[str] = []
        if before is not None and problems:
            old = set(strict_problems(before, name))
            warnings = [f"left as it was: {p}" for p in problems if p in old]
            problems = [p for p in problems if p not in old]
        if problems:
            raise SkillError(f"SKILL.md for '{name}' would be invalid: " + "; ".join(problems))
        return warnings + self._scan(text, "SKILL.md")

    def _keep(self, name: str, action: str, reason: str) -> None:
        snapshot(self.root, name, action, self.actor, reason, self.session_id)

    def _count(self, name: str, kind: str, detail: str | None = None) -> None:
        usage.record(self.db, name, kind, self.session_id, detail, actor=self.actor)

    # -- actions ------------------------------------------------------------------------------------------------
    def create(self, name: str, content: str, reason: str = "") -> ChangeResult:
        folder = self.skill_dir(name)
        content = _with_created_by(content, self.actor)
        warnings = self._validated(name, content)
        with skill_lock(self.root, name):
            if (folder / "SKILL.md").exists():
                raise SkillError(f"skill '{name}' already exists; use action 'edit' or 'patch' to change it")
            if (self.root / ARCHIVE_DIR / name).exists():
                warnings.append(
                    f"an archived skill '{name}' exists; `grove skills restore {name}` would replace this"
                )
            atomic_write_text(folder / "SKILL.md", content)
        self._count(name, "create", reason)
        return ChangeResult(f"created skill '{name}' ({len(content)} chars)", warnings)

    def edit(self, name: str, content: str, reason: str = "") -> ChangeResult:
        warnings = self._validated(name, content)
        with skill_lock(self.root, name):
            folder = self._require(name)
            self._keep(name, "edit", reason)
            atomic_write_text(folder / "SKILL.md", content)
        self._count(name, "edit", reason)
        return ChangeResult(f"rewrote SKILL.md of '{name}' ({len(content)} chars)", warnings)

    def patch(
        self, name: str, old_string: str, new_string: str, file_path: str | None = None, reason: str = ""
    ) -> ChangeResult:
        if not old_string:
            raise SkillError("old_string is empty; give the exact text to replace (read the skill first)")
        with skill_lock(self.root, name):
            folder = self._require(name)
            target = (
                folder / "SKILL.md"
                if not file_path or file_path == "SKILL.md"
                else self._support(folder, file_path)
            )
            if not target.is_file():
                raise SkillError(f"'{file_path}' does not exist in skill '{name}'")
            text = target.read_text(encoding="utf-8")
            count = text.count(old_string)
            where = file_path or "SKILL.md"
            if count == 0:
                raise SkillError(
                    f"old_string not found in {where} of '{name}'{closest_hint(text, old_string)}"
                )
            if count > 1:
                raise SkillError(
                    f"old_string occurs {count} times in {where} of '{name}'; include more surrounding text"
                )
            new_text = text.replace(old_string, new_string, 1)
            is_skill_md = target == folder / "SKILL.md"
            warnings = self._validated(name, new_text, text) if is_skill_md else self._scan(new_text, where)
            self._keep(name, "patch", reason)
            atomic_write_text(target, new_text)
        self._count(name, "patch", reason)
        return ChangeResult(f"patched {where} of '{name}'", warnings)

    def write_file(self, name: str, file_path: str, file_content: str, reason: str = "") -> ChangeResult:
        data = file_content.encode("utf-8")
        if len(data) > MAX_SUPPORT_FILE_BYTES:
            raise SkillError(f"file_content is {len(data)} bytes; supporting files may be at most 1 MiB")
        warnings = self._scan(file_content, file_path)
        with skill_lock(self.root, name):
            folder = self._require(name)
            target = self._support(folder, file_path)
            if target.is_dir():
                raise SkillError(f"'{file_path}' is a folder; give a file path such as references/notes.md")
            self._keep(name, "write_file", reason or f"write {file_path}")
            atomic_write_bytes(target, data)
        self._count(name, "write_file", file_path)
        return ChangeResult(f"wrote {file_path} in '{name}' ({len(data)} bytes)", warnings)

    def remove_file(self, name: str, file_path: str, reason: str = "") -> ChangeResult:
        with skill_lock(self.root, name):
            folder = self._require(name)
            target = self._support(folder, file_path)
            if not target.is_file():
                raise SkillError(f"'{file_path}' is not a file in skill '{name}'")
            self._keep(name, "remove_file", reason or f"remove {file_path}")
            target.unlink()
            parent = target.parent
            while parent != folder and not any(parent.iterdir()):
                parent.rmdir()
                parent = parent.parent
        self._count(name, "remove_file", file_path)
        return ChangeResult(f"removed {file_path} from '{name}' (kept in history)")

    def archive(self, name: str, reason: str = "", force: bool = False) -> ChangeResult:
        """The 'delete' action: refused for pinned skills; moves the folder to skills/.archive/ (restorable)."""
        from grove.skills.skill import load_skill

        with skill_lock(self.root, name):
            folder = self._require(name)
            if not force and load_skill(folder, "home").pinned:
                raise SkillError(f"skill '{name}' is pinned; unpin it first (`grove skills unpin {name}`)")
            self._keep(name, "archive", reason)
            dest = self.root / ARCHIVE_DIR / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            if (
                dest.exists()
            ):  # an older archived copy: set aside under a name no skill can have, never deleted
                os.rename(dest, dest.with_name(f"{name}~{time.time_ns()}"))
            os.rename(folder, dest)
        self._count(name, "archive", reason)
        return ChangeResult(f"archived '{name}' to {dest}; `grove skills restore {name}` brings it back")

    def restore(self, name: str) -> ChangeResult:
        src = self.root / ARCHIVE_DIR / self.skill_dir(name).name
        with skill_lock(self.root, name):
            if not (src / "SKILL.md").is_file():
                raise SkillError(f"no archived skill '{name}' in {self.root / ARCHIVE_DIR}")
            if (self.root / name).exists():
                raise SkillError(f"a skill '{name}' exists already; archive or rename it before restoring")
            os.rename(src, self.root / name)
        self._count(name, "restore")
        return ChangeResult(f"restored '{name}' from the archive")

    def archived(self) -> list[str]:
        folder = self.root / ARCHIVE_DIR
        return (
            sorted(p.name for p in folder.iterdir() if (p / "SKILL.md").is_file()) if folder.is_dir() else []
        )

    def set_pinned(self, name: str, pinned: bool) -> ChangeResult:
        import yaml

        with skill_lock(self.root, name):
            folder = self._require(name)
            text = (folder / "SKILL.md").read_text(encoding="utf-8")
            yaml_text, body = split_frontmatter(text)
            fm = yaml.safe_load(yaml_text) or {}
            raw_meta = fm.get("metadata")
            meta = raw_meta if isinstance(raw_meta, dict) else {}
            if pinned:
                meta["grove.pinned"] = "true"
            else:
                meta.pop("grove.pinned", None)
            fm["metadata"] = meta
            if not meta:
                fm.pop("metadata")
            new_text = render_skill_md(fm, body)
            self._validated(name, new_text, text)
            self._keep(name, "pin" if pinned else "unpin", "")
            atomic_write_text(folder / "SKILL.md", new_text)
        return ChangeResult(f"{'pinned' if pinned else 'unpinned'} '{name}'")

    def rollback(self, name: str, version: int | None = None, reason: str = "") -> ChangeResult:
        """Restore the files as they were before change `version` (default: undo the latest change)."""
        with skill_lock(self.root, name):
            folder = self._require(name)
            known = versions(self.root, name)
            if not known:
                raise SkillError(f"skill '{name}' has no history to roll back to")
            number = version if version is not None else known[-1].number
            snap = version_dir(self.root, name, number)
            if not (snap / "SKILL.md").is_file():
                numbers = ", ".join(str(v.number) for v in known)
                raise SkillError(f"skill '{name}' has no version {number}; known versions: {numbers}")
            self._keep(name, "rollback", reason or f"rollback to version {number}")
            restore_files(snap, folder)
        self._count(name, "rollback", str(number))
        return ChangeResult(f"rolled '{name}' back to version {number} (the state before it is kept too)")

    def _support(self, folder: Path, file_path: str) -> Path:
        try:
            return support_path(folder, file_path)
        except UnsafePathError as e:
            raise SkillError(str(e)) from e


def _with_created_by(content: str, actor: str) -> str:
    """Stamp `metadata.grove.created_by` on a new skill when the author did not; other content stays as written."""
    import yaml

    try:
        yaml_text, body = split_frontmatter(content)
        fm = yaml.safe_load(yaml_text)
    except (SkillFormatError, yaml.YAMLError):
        return content  # validation reports it properly
    if not isinstance(fm, dict):
        return content
    meta = fm.get("metadata")
    if meta is None:
        meta = {}
    if not isinstance(meta, dict) or "grove.created_by" in meta:
        return content
    meta["grove.created_by"] = actor
    meta.setdefault("grove.created_at", time.strftime("%Y-%m-%d", time.gmtime()))
    fm["metadata"] = meta
    return render_skill_md(fm, body)
