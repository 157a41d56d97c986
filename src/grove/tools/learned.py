"""Code skills grove wrote and tested itself, offered as tools of their own: `csv-column-total(path, column,
output_path)` is one flat call a small model gets right, where skill_run nests the arguments. Only grove's own
(state.db says who made them); like patch, such a tool may change the files its call names, nothing else."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from grove.tools.context import ToolContext
from grove.tools.registry import Param, Tool, ToolRegistry

if TYPE_CHECKING:
    from grove.config import Settings
    from grove.store.db import Database

TOOLSET = "learned"
MAX_LEARNED_TOOLS = 8  # each costs prompt tokens on every call; the most recently created come first
# who may have made a skill that becomes a tool: grove's own sessions and reviewer, never an import or a hub install
MAKERS = frozenset({"session", "reviewer", "agent"})
OUTPUT = "output_path"
SHOWN_CHARS = 600  # of a file the tool changed, shown in its result
_TYPES: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "array": list,
    "object": dict,
}


# an argument solve left untyped: a scalar (a small model given "any JSON" wraps a number in an object)
SCALAR = str | int | float | bool


def _param(schema: dict[str, Any], required: bool) -> Param:
    kind = _TYPES.get(str(schema.get("type")), SCALAR if not schema else Any)
    if required:
        return Param(kind, ..., None)
    return Param(Any if kind is Any else kind | None, None, "optional")


def as_tool(name: str, description: str, contract: dict[str, Any], folder: Path) -> Tool:
    """The tool that calls the code skill in `folder` with its contract's arguments, plus `output_path`."""
    args = contract.get("args") or {}
    props: dict[str, Any] = args.get("properties") or {}
    needed = set(args.get("required") or [])
    params = {p: _param(s if isinstance(s, dict) else {}, p in needed) for p, s in props.items()}
    if OUTPUT not in params:
        params[OUTPUT] = Param(str | None, None, "the file to write the result to (text as is, else JSON)")

    def handler(ctx: ToolContext, **kw: Any) -> str:
        from grove.tools.code_skills import run_folder

        output_path = kw.pop(OUTPUT, None) if OUTPUT not in props else None
        call = {k: v for k, v in kw.items() if v is not None or k in needed}  # absent: solve's own default
        # grove's own folder, never a workspace skill of the same name that discovery would rank first
        return said(run_folder(ctx, name, folder, call, output_path, edit_inputs=True), ctx.workspace)

    handler.__name__ = name.replace("-", "_")
    summary = " ".join(description.split())
    returns = (contract.get("result") or {}).get("type")
    if returns == "null":
        use = "it changes the named file itself"
    elif returns == "string":
        use = "it returns text: output_path=FILE saves it in FILE"
    else:
        use = "output_path=FILE saves its result in FILE"
    return Tool(
        name=name,
        description=f"{summary} (grove's own tested tool; {use})",
        handler=handler,
        params=params,
        toolset=TOOLSET,
        mutating=True,  # it may write the workspace
    )


def said(payload: dict[str, Any], workspace: Path) -> str:
    """A learned tool's outcome in words, with the files it wrote as they now read: told only "files_written",
    a small model wrote the file again by hand (and wrong)."""
    from grove.codeskills.output import encode
    from grove.llm.local_turns import SAVED_NOTE
    from grove.tools.code_skills import cut

    parts: list[str] = []
    output = payload.get("output")
    if isinstance(output, dict):
        parts.append(f"wrote the result to {output.get('path')}: {output.get('preview', '')}")
    elif payload.get("result") is not None:
        parts.append("result: " + cut(encode(payload["result"], "result.txt").decode("utf-8").strip()))
    for rel in payload.get("files_written") or []:
        try:
            text = (workspace / rel).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        shown = text[:SHOWN_CHARS] + ("\n[...]" if len(text) > SHOWN_CHARS else "")
        parts.append(f"changed {rel}; it now reads:\n{shown}")
    if output or payload.get("files_written"):
        parts.append(SAVED_NOTE)
    return "\n".join(parts) or "done (no result)"


def learned_tools(settings: Settings, db: Database | None, taken: set[str]) -> list[Tool]:
    """Tools for the code skills in grove's home library that grove made itself (state.db), newest first, at most
    MAX_LEARNED_TOOLS, not stale, not clashing with a tool of `taken`. Read from state.db and those folders only:
    every session start runs this, and walking a large library for it would cost what the index already does."""
    from grove.skills import usage

    names = [n for n in usage.made_by(db, MAKERS) if n not in taken]
    if not names:
        return []  # before the skill and code-skill modules: a home without learned skills never loads them
    from grove.codeskills.layout import CODE_FILE
    from grove.skills.code_meta import is_code_skill
    from grove.skills.discover import home_skills_dir
    from grove.skills.frontmatter import SkillFormatError
    from grove.skills.manage import SkillError, check_name
    from grove.skills.skill import load_skill
    from grove.skills.stale import stale_names

    home, hidden, found = home_skills_dir(settings.home), stale_names(settings), []
    for name in names:
        try:
            check_name(name)
            skill = load_skill(home / name, "home")
        except (SkillError, SkillFormatError):
            continue  # made once, since archived or broken: no tool
        contract = _contract(skill.path / CODE_FILE) if is_code_skill(skill.metadata) else None
        if contract is not None and name not in hidden:
            found.append(as_tool(name, skill.description, contract, skill.path))
        if len(found) >= MAX_LEARNED_TOOLS:
            break
    return found


def _contract(code_file: Path) -> dict[str, Any] | None:
    """The arguments in solve's own order (SKILL.md stores them sorted; a small model fills them in order)."""
    from grove.codeskills.contract import ContractError, read_contract

    try:
        contract = read_contract(code_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ContractError):
        return None  # not callable as it stands: no tool
    return {"args": contract.args, "result": contract.result}


def with_learned(tools: ToolRegistry, settings: Settings, db: Database | None) -> int:
    """Add the learned tools to `tools` in place; returns how many."""
    added = learned_tools(settings, db, set(tools.names()))
    for tool in added:
        tools.add(tool)
    return len(added)
