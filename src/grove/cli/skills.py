"""`grove skills ...`: list, show, validate, create, edit, pin, history, rollback, archive, import, trust; the hub's
install, update, uninstall, outdated (cli/skills_hub.py)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import typer

from grove.cli.common import fail, load
from grove.cli.errors import USAGE

app = typer.Typer(help="Manage the skill library.", no_args_is_help=True, rich_markup_mode=None)


def _root(settings: Any) -> Path:
    from grove.skills.discover import home_skills_dir

    return home_skills_dir(settings.home)


def _db(settings: Any, create: bool = True) -> Any:
    from grove.store.db import Database

    if not create and not settings.db_path.exists():
        return None
    return Database(settings.db_path)


def _manager(settings: Any) -> Any:
    from grove.skills.manage import SkillManager

    return SkillManager(_root(settings), _db(settings), actor="user")


def _run(action: Any) -> None:
    """Run a manager call, turning a refused change into a message and exit code 1."""
    from grove.skills.manage import SkillError

    try:
        print(action())
    except SkillError as e:
        fail(str(e))


@app.command("list")
def list_(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """List every skill grove can see, by category, with where it comes from and how often it was used."""
    from grove.skills import usage
    from grove.skills.discover import discover

    settings = load()
    lib = discover(settings, Path.cwd())
    stats = usage.stats(_db(settings, create=False))
    if as_json:
        rows = [
            {**s.summary(), "usage": stats[s.name].as_dict() if s.name in stats else None}
            for s in lib.sorted()
        ]
        skipped = [{"path": str(k.path), "reason": k.reason} for k in lib.skipped]
        print(json.dumps({"skills": rows, "skipped": skipped, "warnings": lib.warnings}, ensure_ascii=False))
        return
    if not lib.skills:
        print("no skills yet; `grove skills create NAME` or `grove skills import PATH` adds some")
    rows = [
        (
            s.name + (" (pinned)" if s.pinned else ""),
            s.category,
            s.source,
            s.created_by,
            *((str(st.views), str(st.uses), _graded(st), str(st.patches)) if st else _UNUSED),
            s.description[:70],
        )
        for s in sorted(lib.skills.values(), key=lambda s: (s.category, s.name))
        for st in (stats.get(s.name),)
    ]
    if rows:  # plain aligned columns: a table widget takes seconds at ten thousand rows
        head = ("name", "category", "source", "by", "views", "uses", "ok", "patches", "description")
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head[:-1])]
        out = [
            " ".join(c.ljust(w) for c, w in zip((*r[:-1],), widths, strict=True)) + " " + r[-1] for r in rows
        ]
        print(" ".join(h.ljust(w) for h, w in zip(head[:-1], widths, strict=True)) + " " + head[-1])
        print("\n".join(out))
    for k in lib.skipped:
        print(f"skipped {k.path}: {k.reason}", file=sys.stderr)
    for w in lib.warnings:
        print(f"warning: {w}", file=sys.stderr)


_UNUSED = ("0", "0", "-", "0")  # views, uses, graded uses that went well, patches


def _graded(st: Any) -> str:
    return f"{st.succeeded}/{st.graded}" if st is not None and st.graded else "-"


@app.command("show")
def show(name: str = typer.Argument(..., help="Skill name.")) -> None:
    """Print a skill's SKILL.md and the list of its supporting files."""
    from grove.skills.discover import discover

    skill = discover(load(), Path.cwd()).get(name)
    if skill is None:
        fail(f"no skill '{name}'; `grove skills list` shows them", USAGE)
    print(skill.skill_md.read_text(encoding="utf-8", errors="replace"), end="")
    print(f"\n# folder: {skill.path} ({skill.source})")
    for f in skill.supporting_files():
        print(f"# file: {f}")
    for w in skill.warnings:
        print(f"# warning: {w}")


@app.command("validate")
def validate(
    path: Path | None = typer.Argument(None, help="A skill name, a skill folder or a folder of skills."),
) -> None:
    """Check skills strictly against the Agent Skills rules; exit 1 with the reasons when any is invalid."""
    from grove.skills.frontmatter import strict_problems
    from grove.skills.importer import find_skill_dirs
    from grove.skills.skill import skill_file

    target = path or _root(load())
    if not target.exists() and path is not None and len(path.parts) == 1:  # a name, as other subcommands take
        from grove.skills.discover import discover

        skill = discover(load(), Path.cwd()).get(str(path))
        target = skill.path if skill is not None else target
    if not target.exists():
        fail(f"no skill or folder '{target}'; give a skill name (`grove skills list`) or a path", USAGE)
    found = find_skill_dirs(target)
    if not found:
        fail(f"no SKILL.md found in {target}", USAGE)
    bad = 0
    for folder, _cat in found:
        try:
            problems = strict_problems(skill_file(folder).read_text(encoding="utf-8"), folder.name)
        except (OSError, UnicodeDecodeError) as e:
            problems = [f"cannot read SKILL.md: {e}"]
        if problems:
            bad += 1
            print(f"invalid  {folder}")
            for p in problems:
                print(f"  - {p}")
        else:
            print(f"ok       {folder}")
    print(f"{len(found) - bad} valid, {bad} invalid")
    if bad:
        raise typer.Exit(1)


@app.command("create")
def create(
    name: str = typer.Argument(..., help="Skill name: a-z, 0-9 and single hyphens."),
    description: str = typer.Option(..., "--description", "-d", help="What it does and when to use it."),
    category: str | None = typer.Option(None, "--category", "-c", help="Category for the index."),
    body_file: Path | None = typer.Option(None, "--body", help="Markdown file holding the instructions."),
) -> None:
    """Create a skill in $GROVE_HOME/skills."""
    from grove.skills.frontmatter import render_skill_md

    body = body_file.read_text(encoding="utf-8") if body_file else f"# {name}\n\nSteps:\n1. \n"
    meta = {"grove.created_by": "user", "grove.created_at": time.strftime("%Y-%m-%d", time.gmtime())}
    if category:
        meta["grove.category"] = category
    text = render_skill_md({"name": name, "description": description, "metadata": meta}, body)
    _run(lambda: _manager(load()).create(name, text, "created with grove skills create"))


@app.command("edit")
def edit(
    name: str = typer.Argument(..., help="Skill name."),
    reason: str = typer.Option("edited by hand", "--reason", "-m", help="Why, for the history."),
) -> None:
    """Open SKILL.md in $EDITOR; the result is validated and scanned before it replaces the old one."""
    settings = load()
    skill_md = _root(settings) / name / "SKILL.md"
    if not skill_md.is_file():
        fail(f"no skill '{name}' in {_root(settings)}", USAGE)
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    fd, tmp = tempfile.mkstemp(suffix=".md", prefix=f"{name}-")
    try:
        original = skill_md.read_text(encoding="utf-8")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(original)
        if subprocess.call([*shlex.split(editor), tmp]) != 0:
            fail(f"the editor ({editor}) failed; nothing changed")
        new = Path(tmp).read_text(encoding="utf-8")
        if new == original:
            print("no change")
        else:
            from grove.skills.manage import SkillError

            try:
                print(_manager(settings).edit(name, new, reason))
            except SkillError as e:
                keep = Path(tmp).with_name(f"{name}-rejected.md")
                os.replace(tmp, keep)
                fail(f"{e}\nyour text is kept in {keep}; fix it and edit again")
    finally:
        Path(tmp).unlink(missing_ok=True)


@app.command("pin")
def pin(name: str = typer.Argument(..., help="Skill name.")) -> None:
    """Pin a skill: shown first in the index, never archived by delete or the curator."""
    _run(lambda: _manager(load()).set_pinned(name, True))


@app.command("unpin")
def unpin(name: str = typer.Argument(..., help="Skill name.")) -> None:
    """Unpin a skill."""
    _run(lambda: _manager(load()).set_pinned(name, False))


@app.command("history")
def history(
    name: str = typer.Argument(..., help="Skill name."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """List the saved versions of a skill: each is the skill as it was before the change named beside it."""
    from grove.skills.history import timeline

    settings = load()
    found = timeline(_root(settings), name, _db(settings, create=False))  # v0: the creation
    if as_json:
        print(json.dumps([v.as_dict() for v in found], ensure_ascii=False))
        return
    if not found:
        print(f"no history for '{name}' yet")
        return
    for v in found:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(v.at))
        print(f"v{v.number:<4} {when}  {v.actor:<8} {v.action:<11} {v.reason}")


@app.command("rollback")
def rollback(
    name: str = typer.Argument(..., help="Skill name."),
    version: int | None = typer.Argument(None, help="Version number from `history` (default: the latest)."),
) -> None:
    """Restore a skill's files exactly as they were in VERSION (the current state is kept as a version too)."""
    _run(lambda: _manager(load()).rollback(name, version))


@app.command("archive")
def archive(
    name: str = typer.Argument(..., help="Skill name."),
    reason: str = typer.Option("", "--reason", "-m", help="Why, for the history."),
) -> None:
    """Move a skill to skills/.archive/ (refused when pinned); `restore` brings it back."""
    _run(lambda: _manager(load()).archive(name, reason))


@app.command("restore")
def restore(name: str = typer.Argument(..., help="Archived skill name.")) -> None:
    """Bring an archived skill back."""
    _run(lambda: _manager(load()).restore(name))


@app.command("import")
def import_(
    path: Path = typer.Argument(
        ..., help="A skill folder, or a folder of skills in any layout (e.g. a checkout)."
    ),
    on_conflict: str = typer.Option(
        "skip",
        "--on-conflict",
        help="A name already taken: skip it, rename it name-<author>, or replace the library's (old kept).",
    ),
    force: bool = typer.Option(False, "--force", help="Same as --on-conflict replace."),
    allow_flagged: bool = typer.Option(
        False,
        "--allow-flagged",
        help="Also import skills the scan flags as caution (read the reasons first); dangerous ones never import.",
    ),
    report: Path | None = typer.Option(
        None, "--report", help="Write every verdict, with a way forward, as JSON."
    ),
    max_depth: int | None = typer.Option(
        None, "--max-depth", min=1, help="Folders deep to look for SKILL.md (setting skills.max_depth, 6)."
    ),
    max_skills: int | None = typer.Option(
        None, "--max-skills", min=1, help="Import at most this many (setting skills.max_skills, none)."
    ),
    max_files: int | None = typer.Option(
        None, "--max-files", min=1, help="Files a skill may hold (setting skills.max_files, 200)."
    ),
    max_file_bytes: int | None = typer.Option(
        None,
        "--max-file-bytes",
        min=1,
        help="Bytes one file may hold (setting skills.max_file_bytes, 1 MiB).",
    ),
    max_skill_bytes: int | None = typer.Option(
        None,
        "--max-skill-bytes",
        min=1,
        help="Bytes a skill's files may hold (skills.max_skill_bytes, 16 MiB).",
    ),
    progress: bool | None = typer.Option(
        None, "--progress/--no-progress", help="Show a progress bar (default: on a terminal, for 50+ skills)."
    ),
) -> None:
    """Import skills written for another agent: each is read, scanned, copied, and given a verdict."""
    from grove.cli.skills_import import run_import

    if on_conflict not in ("skip", "rename", "replace"):
        fail(f"--on-conflict {on_conflict!r} is not known; use skip, rename or replace", code=2)
    settings = load()
    code = run_import(
        settings,
        path,
        _root(settings),
        _db(settings),
        on_conflict="replace" if force else on_conflict,
        allow_flagged=allow_flagged,
        report=report,
        limits=(max_depth, max_skills, max_files, max_file_bytes, max_skill_bytes),
        progress=progress,
    )
    if code:
        raise typer.Exit(code)


@app.command("trust")
def trust(
    path: Path = typer.Argument(Path("."), help="The project folder to trust (default: here)."),
) -> None:
    """Trust a project folder: its .grove/skills and .agents/skills are loaded from then on."""
    from grove.skills.trust import trust_project

    settings = load()
    try:
        target = trust_project(settings.home, path)
    except FileNotFoundError as e:
        fail(str(e))
    print(f"trusted {target}: skills in .grove/skills and .agents/skills there are now loaded")


def _register_hub() -> None:
    from grove.cli.skills_hub import register  # the hub's install / update / uninstall / outdated

    register(app)


_register_hub()
