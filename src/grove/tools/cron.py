"""The `cron` toolset: the `cronjob` tool creates, lists and removes scheduled jobs (run by `grove cron daemon`
or `grove serve`). Creating or removing one needs approval: a job runs later, unattended, on its own authority."""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any, Literal

from grove.security.commands.base import CommandVerdict, Finding
from grove.tools.context import ToolContext
from grove.tools.registry import Tool, ToolError, make_tool


def _jobs(ctx: ToolContext) -> Any:
    from grove.store.cron_jobs import CronJobs
    from grove.store.db import Database

    if ctx.settings is None:
        raise ToolError("cron jobs need grove's settings; this session has none")
    return CronJobs(Database(ctx.settings.db_path))


def _when(ts: float | None) -> str:
    return "never again" if ts is None else time.strftime("%Y-%m-%d %H:%M %Z", time.localtime(ts))


def cronjob(
    ctx: ToolContext,
    action: Literal["create", "list", "remove", "pause", "resume"],
    schedule: str | None = None,
    prompt: str | None = None,
    name: str | None = None,
    deliver: str | None = None,
    job: str | None = None,
) -> str:
    """Schedule prompts that grove runs later on its own, unattended: create, list, pause, resume or remove cron jobs.

    Args:
        action: create a job, list the jobs, pause or resume one, or remove one
        schedule: for create: '30m', 'every 2h', a 5-field cron expression ('0 9 * * 1-5') or an ISO time (one run);
            a 'TZ=Europe/Paris ' prefix reads it in that time zone
        prompt: for create: what the agent should do on each run (self-contained: the run starts a fresh session)
        name: for create: a short name for the job
        deliver: for create: send each result to a chat, '<platform>:<chat id>' (e.g. telegram:12345)
        job: for remove, pause, resume: the job's id or name
    """
    from grove.errors import GroveError

    jobs = _jobs(ctx)
    try:
        if action == "list":
            rows = jobs.list()
            if not rows:
                return "no cron jobs"
            return "\n".join(
                f"{j.id}  {j.name!r}  schedule={j.schedule!r}  "
                f"next={_when(j.next_run_at) if j.enabled else 'paused'}  runs={j.run_count}"
                + (f"  deliver={j.deliver}" if j.deliver else "")
                for j in rows
            )
        if action in ("remove", "pause", "resume"):
            if not job:
                raise ToolError(f"give `job`: the id or name of the job to {action} (action=list shows them)")
            if action == "remove":
                gone = jobs.remove(job)
                return f"removed cron job {gone.id} ({gone.name!r})"
            changed = jobs.set_enabled(job, action == "resume", time.time())
            state = f"resumed, next run {_when(changed.next_run_at)}" if changed.enabled else "paused"
            return f"cron job {changed.id} ({changed.name!r}) {state}"
        if not schedule or not prompt:
            raise ToolError("create needs `schedule` and `prompt`")
        new = jobs.add(
            schedule=schedule,
            prompt=prompt,
            now=time.time(),
            name=name,
            deliver=deliver,
            workspace=str(ctx.workspace),
            created_by=f"session {ctx.session_id}" if ctx.session_id else "tool",
        )
        return f"created cron job {new.id} ({new.name!r}), first run {_when(new.next_run_at)}"
    except GroveError as e:
        raise ToolError(str(e)) from e
    finally:
        jobs.db.close()


def _approve(ctx: ToolContext, name: str, args: dict[str, Any]) -> str | None:
    """Listing is free; creating or changing a job asks the session's policy (unattended: denied). The user sees
    the whole job however long (schedule, prompt, name, delivery, workspace), and the rule id is a hash of it, so
    an "always" answer covers that exact job only, never the next one."""
    from grove.security.approval.flow import decide_verdict

    if args.get("action") == "list":
        return None
    job = {k: v for k, v in sorted(args.items()) if v is not None}
    job["workspace"] = str(ctx.workspace)
    shown = "\n".join(f"  {k}: {v}" for k, v in job.items())
    digest = hashlib.sha256(json.dumps(job, ensure_ascii=False, sort_keys=True).encode()).hexdigest()[:16]
    verdict = CommandVerdict(
        f"{name} {args.get('action')}\n{shown}",
        [Finding(f"tool:{name}:{digest}", "the cron job runs later, unattended, on its own authority")],
    )
    decision = decide_verdict(ctx.policy, verdict, session_id=ctx.session_id)
    return None if decision.allowed else decision.reason


def tools() -> list[Tool]:
    return [
        make_tool(
            cronjob, toolset="cron", mutating=True, needs_approval=True, approve=_approve, subagent_ok=False
        )
    ]
