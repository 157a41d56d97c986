"""The `code_skills` toolset: the agent writes its own tested tools (skill_code_create, skill_code_patch) and
runs them (skill_run), always in the sandbox."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from grove.tools.context import ToolContext
from grove.tools.registry import Tool, ToolError, make_tool

MAX_RESULT_CHARS = 50_000


def _settings(ctx: ToolContext) -> Any:
    if ctx.settings is not None:
        return ctx.settings
    from grove.config import load_settings

    return load_settings()


def _manager(ctx: ToolContext) -> Any:
    from grove.skills.discover import home_skills_dir
    from grove.skills.manage import SkillManager

    db = ctx.store.db if ctx.store is not None else None
    return SkillManager(home_skills_dir(_settings(ctx).home), db, actor="agent", session_id=ctx.session_id)


def _backend(ctx: ToolContext) -> str | None:
    """The sandbox backend for this session's code; refuses (ToolError) when nobody can be asked and the
    backend does not isolate, unless the user accepted that risk (security.allow_unisolated)."""
    from grove.sandbox.gate import refusal_for_policy

    backend = None if ctx.policy.sandbox == "auto" else ctx.policy.sandbox
    refusal = refusal_for_policy(backend, ctx.policy.unattended, ctx.policy.allow_unisolated)
    if refusal:
        raise ToolError(refusal)
    return backend


def skill_code_create(ctx: ToolContext, name: str, description: str, code: str, tests: str) -> str:
    """Write a new tool for yourself: a Python function kept as a code skill only if its tests pass.

    The code must define `solve(...)` with typed, named arguments and a JSON-serialisable result (its
    signature becomes the skill's contract). Tests are plain functions `test_*()` doing
    `from skill import solve` and asserting on results (a `tmp_path` argument gives a scratch folder).
    Both run in the sandbox (no network, time and memory limits, only a scratch dir writable). On failure
    nothing is stored and the failing output comes back: fix and call again. Use it when no existing skill
    does the sub-task; then call it with skill_run.

    Args:
        name: skill name: lowercase a-z, 0-9 and single hyphens, e.g. 'csv-column'
        description: what it does and when to use it, one or two sentences
        code: the whole of scripts/skill.py, defining solve(...) (standard library only)
        tests: the whole of scripts/test_skill.py: test_* functions that call solve and assert
    """
    from grove.codeskills.create import create_code_skill

    outcome = create_code_skill(_manager(ctx), name, description, code, tests, backend=_backend(ctx))
    if not outcome.stored:
        raise ToolError(outcome.message)
    return outcome.message


def skill_code_patch(
    ctx: ToolContext,
    name: str,
    old_string: str,
    new_string: str,
    file_path: str = "scripts/skill.py",
    reason: str | None = None,
) -> str:
    """Change a code skill's code or tests; its tests re-run in the sandbox and a change that breaks them is refused.

    Args:
        name: the code skill's name
        old_string: exact text to replace, occurring once in the file
        new_string: the replacement text
        file_path: scripts/skill.py (the code) or scripts/test_skill.py (the tests)
        reason: one line saying why, kept in the skill's history
    """
    from grove.codeskills.create import patch_code_skill

    outcome = patch_code_skill(
        _manager(ctx), name, old_string, new_string, file_path, reason or "", backend=_backend(ctx)
    )
    if not outcome.stored:
        raise ToolError(outcome.message)
    return outcome.message


def skill_run(ctx: ToolContext, name: str, args: dict[str, Any], output_path: str | None = None) -> str:
    """Run a code skill's solve(**args) in the sandbox and return its JSON result.

    Workspace files named in args (relative paths) are readable by the skill; files it writes (relative
    paths) land in the workspace. No network. The skills index shows each code skill's signature; arguments
    of the wrong type are refused before anything runs. With output_path the result is written to that
    workspace file (text as is, .jsonl one list item a line, else JSON) and only its size and shape come back:
    use it for large results that belong in a file.

    Args:
        name: the code skill's name
        args: the arguments of solve, as a JSON object, e.g. {"path": "sales.csv", "column": "revenue"}
        output_path: optional workspace file to write the result to instead of returning it
    """
    return cut(json.dumps(run_named(ctx, name, args, output_path), ensure_ascii=False))


def run_named(
    ctx: ToolContext, name: str, args: dict[str, Any], output_path: str | None = None
) -> dict[str, Any]:
    """skill_run's work: find the code skill `name` in the library, then run it (`run_folder`)."""
    from grove.codeskills.layout import CODE_FILE
    from grove.skills.code_meta import is_code_skill
    from grove.skills.discover import discover

    lib = discover(_settings(ctx), ctx.workspace)
    skill = lib.get(name)
    if skill is None or not is_code_skill(skill.metadata) or not (skill.path / CODE_FILE).is_file():
        known = sorted(n for n, s in lib.skills.items() if is_code_skill(s.metadata))
        raise ToolError(f"no code skill named '{name}'; code skills: {', '.join(known) or 'none yet'}")
    return run_folder(ctx, name, skill.path, args, output_path)


def run_folder(
    ctx: ToolContext,
    name: str,
    folder: Path,
    args: dict[str, Any],
    output_path: str | None = None,
    edit_inputs: bool = False,
) -> dict[str, Any]:
    """Run the code skill in `folder` in the sandbox (the session's backend's, when it has one), record the use, and return what came back: `result`, or
    `output` (where it was written), and `files_written`. skill_run and learned tools (tools/learned.py) share it."""
    from grove.backends.base import BackendError
    from grove.codeskills.invoke import run_code_skill
    from grove.security.files.confine import Refused
    from grove.skills import usage
    from grove.tools.context import backend_of

    on = backend_of(ctx)  # an SSH host or a container: the skill runs there, on that workspace's files
    try:
        if on.kind != "local":
            from grove.codeskills.on_backend import run_on_backend

            outcome = run_on_backend(on, folder, args, output_path=output_path, edit_inputs=edit_inputs)
        else:
            outcome = run_code_skill(
                folder,
                args,
                ctx.workspace,
                backend=_backend(ctx),
                output_path=output_path,
                edit_inputs=edit_inputs,
            )
    except (OSError, ValueError, BackendError, Refused) as e:
        raise ToolError(f"could not run '{name}': {e}") from e
    usage.record(ctx.store.db if ctx.store else None, name, "run", ctx.session_id, json.dumps(args)[:200])
    if not outcome.call.ok:
        printed = f"\noutput:\n{outcome.call.output.strip()}" if outcome.call.output.strip() else ""
        raise ToolError(f"skill '{name}' failed: {outcome.call.error}{printed}")
    payload: dict[str, Any] = (
        {"output": outcome.output} if outcome.output is not None else {"result": outcome.call.result}
    )
    if outcome.written:
        payload["files_written"] = outcome.written
    return payload


def cut(text: str) -> str:
    if len(text) > MAX_RESULT_CHARS:
        return text[:MAX_RESULT_CHARS] + f"... [cut at {MAX_RESULT_CHARS} of {len(text)} characters]"
    return text


def tools() -> list[Tool]:
    return [
        make_tool(skill_code_create, toolset="code_skills", mutating=True, subagent_ok=False),
        make_tool(skill_code_patch, toolset="code_skills", mutating=True, subagent_ok=False),
        make_tool(skill_run, toolset="code_skills", mutating=True),
    ]
