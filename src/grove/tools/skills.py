"""The `skills` toolset: skill_view (levels 1 and 2 of progressive disclosure), skills_search, skill_manage."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any, Literal

from grove.tools.context import ToolContext
from grove.tools.registry import Tool, ToolError, make_tool

MAX_VIEW_CHARS = 100_000

Action = Literal["create", "edit", "patch", "write_file", "remove_file", "delete"]


def _settings(ctx: ToolContext) -> Any:
    if ctx.settings is not None:
        return ctx.settings
    from grove.config import load_settings

    return load_settings()


def _db(ctx: ToolContext) -> Any:
    return ctx.store.db if ctx.store is not None else None


def _library(ctx: ToolContext) -> Any:
    from grove.skills.discover import discover

    return discover(_settings(ctx), ctx.workspace)


def _unknown(name: str, known: list[str]) -> ToolError:
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    hint = f" Did you mean: {', '.join(close)}?" if close else " Use skills_search(query) to find one."
    return ToolError(f"no skill named '{name}'.{hint}")


def skill_view(ctx: ToolContext, name: str, file_path: str | None = None) -> str:
    """Load a skill: its SKILL.md instructions and the list of its supporting files; or one of those files.

    Args:
        name: the skill's name, as listed in the skills index or found by skills_search
        file_path: a supporting file to read instead, relative to the skill folder (e.g. references/api.md)
    """
    from grove.skills import usage
    from grove.skills.paths import UnsafePathError, inside_path

    lib = _library(ctx)
    skill = lib.get(name)
    if skill is None:
        raise _unknown(name, list(lib.skills))
    if file_path:
        try:
            target = inside_path(skill.path, file_path)
        except UnsafePathError as e:
            raise ToolError(str(e)) from e
        if not target.is_file():
            files = ", ".join(skill.supporting_files()) or "none"
            raise ToolError(f"'{file_path}' is not a file of skill '{name}'; its files: {files}")
        data = target.read_bytes()
        if b"\0" in data[:8192]:
            return f"[{file_path} is binary, {len(data)} bytes; path: {target}]"
        usage.record(_db(ctx), name, "view", ctx.session_id, detail=file_path)
        text = data.decode("utf-8", errors="replace")
        if len(text) > MAX_VIEW_CHARS:
            text = text[:MAX_VIEW_CHARS] + f"\n[cut at {MAX_VIEW_CHARS} of {len(text)} characters]"
        return _screened(text, target, f"skill {name}: {file_path}")
    text = skill.skill_md.read_text(encoding="utf-8", errors="replace")
    files = skill.supporting_files()
    usage.record(_db(ctx), name, "view", ctx.session_id)
    listing = "\n".join(f"- {f}{_flag(skill.path / f)}" for f in files) if files else "(none)"
    footer = f"\n\n[skill folder: {skill.path}]\n[supporting files, read with skill_view(name, file_path):\n{listing}]"
    return (
        _screened(text[:MAX_VIEW_CHARS], skill.skill_md, f"skill {name} ({skill.source}): SKILL.md") + footer
    )


def _screened(text: str, path: Path, source: str) -> str:
    """Skill content as the model may see it: the skill scan for this file's kind, then as is, quoted as untrusted
    data (caution) or withheld (dangerous): skills in project or external folders were never scanned on import."""
    from grove.security.skill_scan.scan import scan_skill_file, view_text

    return view_text(text, scan_skill_file(path.name, text, source), source)


def _flag(path: Path) -> str:
    """' (flagged ...)' for a bundled script the scan flags, so the model knows before it asks for it (prose is
    scanned when it is viewed)."""
    from grove.security.skill_scan.scan import file_kind, scan_skill_file

    if file_kind(path) in ("markdown", "text") and path.suffix:
        return ""
    try:
        data = path.read_bytes()
    except OSError:
        return ""
    if b"\0" in data[:8192]:
        return ""
    result = scan_skill_file(path.name, data.decode("utf-8", errors="replace"))
    if result.blocked:
        return " (flagged DANGEROUS by the skill scan: withheld on view)"
    return " (flagged caution by the skill scan: shown as untrusted data)" if result.flagged else ""


def skills_search(ctx: ToolContext, query: str, limit: int = 5) -> str:
    """Find skills for a task by keywords (ranked by relevance over names, descriptions and bodies).

    Args:
        query: what the task is about, in a few words
        limit: how many results to return (at most 20)
    """
    from grove.skills.search import search_skills
    from grove.skills.search_fts import library_view

    if not library_view(_settings(ctx), ctx.workspace).skills:
        return "no skills installed yet"
    hits = search_skills(_settings(ctx), ctx.workspace, query, max(1, min(limit, 20)))
    if not hits:
        return f"no skill matches '{query}'; try other words"
    return "\n".join(f"{i}. {h.name} [{h.category}] {h.description}" for i, h in enumerate(hits, 1))


def skill_manage(
    ctx: ToolContext,
    action: Action,
    name: str,
    content: str | None = None,
    old_string: str | None = None,
    new_string: str | None = None,
    file_path: str | None = None,
    file_content: str | None = None,
    reason: str | None = None,
) -> str:
    """Create or change a skill in the user's library; every change keeps the previous version (reversible).

    Actions: create (content = whole SKILL.md with name/description frontmatter), edit (replace SKILL.md with
    content), patch (replace the unique old_string with new_string in SKILL.md, or in file_path), write_file /
    remove_file (a supporting file under scripts/, references/, templates/ or assets/), delete (archive it).
    Read the skill with skill_view before changing it.

    Args:
        action: create | edit | patch | write_file | remove_file | delete
        name: skill name: lowercase a-z, 0-9 and single hyphens, equal to its folder name
        content: the whole SKILL.md (create, edit)
        old_string: exact text to replace, occurring once (patch)
        new_string: replacement text (patch)
        file_path: supporting file path, e.g. references/api.md (write_file, remove_file; patch of that file)
        file_content: the supporting file's whole content (write_file)
        reason: one line saying why, kept in the skill's history
    """
    from grove.skills.discover import discover, home_skills_dir
    from grove.skills.manage import SkillError, SkillManager

    settings = _settings(ctx)
    mgr = SkillManager(home_skills_dir(settings.home), _db(ctx), actor="agent", session_id=ctx.session_id)
    why = reason or ""

    def need(value: str | None, arg: str) -> str:
        if value is None:
            raise ToolError(f"action '{action}' needs '{arg}'")
        return value

    try:
        if action != "create" and not mgr.exists(name):
            other = discover(settings, ctx.workspace).get(name)
            if other is not None and other.source == "home":
                raise ToolError(
                    f"skill '{name}' sits in a sub-folder ({other.path}); grove changes only skills kept directly "
                    f"in {mgr.root}; ask the user to move it there"
                )
            if other is not None:
                raise ToolError(
                    f"skill '{name}' comes from a read-only {other.source} folder ({other.path}); "
                    "create a skill of your own instead, or ask the user to `grove skills import` it"
                )
        if action in ("edit", "patch", "write_file", "remove_file") and mgr.exists(name):
            _refuse_untested_code_change(mgr.root / name, action, file_path)
        if action == "create":
            result = mgr.create(name, need(content, "content"), why)
        elif action == "edit":
            result = mgr.edit(name, need(content, "content"), why)
        elif action == "patch":
            result = mgr.patch(
                name, need(old_string, "old_string"), need(new_string, "new_string"), file_path, why
            )
        elif action == "write_file":
            result = mgr.write_file(
                name, need(file_path, "file_path"), need(file_content, "file_content"), why
            )
        elif action == "remove_file":
            result = mgr.remove_file(name, need(file_path, "file_path"), why)
        else:
            result = mgr.archive(name, why)
    except SkillError as e:
        raise ToolError(str(e)) from e
    return str(result)


def tools() -> list[Tool]:
    return [
        make_tool(skill_view, toolset="skills"),
        make_tool(skills_search, toolset="skills"),
        make_tool(skill_manage, toolset="skills", mutating=True, subagent_ok=False),  # children: allow_tools
    ]


def _refuse_untested_code_change(folder: Path, action: str, file_path: str | None) -> None:
    """A code skill's code and tests change only through skill_code_patch, which re-runs the tests."""
    from grove.codeskills.layout import CODE_FILE, TEST_FILE
    from grove.skills.code_meta import is_code_skill
    from grove.skills.skill import load_skill

    if not is_code_skill(load_skill(folder, "home").metadata):
        return
    if action == "edit" or (file_path or "").removeprefix("./") in (CODE_FILE, TEST_FILE):
        raise ToolError(
            "this is a code skill: change its code or tests with skill_code_patch, which re-runs the tests "
            "and refuses a change that breaks them"
        )
