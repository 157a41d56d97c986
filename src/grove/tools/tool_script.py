"""The `scripts` toolset: `run_tool_script` runs one short Python script in the sandbox that calls the session's
tools (a loop over 20 files is one model call, not 20). Each call inside goes through the registry, with the same
policy, approvals and taint as a direct call.

The RPC is a folder in the workspace (the one place every sandbox backend shares with grove, and no socket: the
sandbox's seccomp filter refuses AF_UNIX): the script writes req-N.json, grove answers with resp-N.json."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import threading
import time
from pathlib import Path
from typing import Any

from grove.tools.context import ToolContext
from grove.tools.registry import Tool, ToolError, make_tool

TOOLSET = "scripts"
MAX_CALLS = 200  # tool calls one script may make
MAX_OUTPUT_CHARS = 20_000
NOT_CALLABLE = {"run_tool_script", "delegate"}  # no recursion; children are the delegate tool's business

PRELUDE = r'''
import json as _json, os as _os, time as _time
_RPC = {rpc!r}
_n = [0]
class _ToolError(Exception):
    pass
def call(name, **arguments):
    """Call a grove tool by name; its text result, or _ToolError with the error the tool gave."""
    _n[0] += 1
    req, resp = _os.path.join(_RPC, f"req-{{_n[0]}}.json"), _os.path.join(_RPC, f"resp-{{_n[0]}}.json")
    with open(req + ".tmp", "w") as f:
        _json.dump({{"name": name, "arguments": arguments}}, f)
    _os.rename(req + ".tmp", req)
    wait = 0.001
    while not _os.path.exists(resp):
        _time.sleep(wait)
        wait = min(wait * 2, 0.05)
    with open(resp) as f:
        answer = _json.load(f)
    if not answer["ok"]:
        raise _ToolError(answer["content"])
    return answer["content"]
class _Tools:
    def __getattr__(self, name):
        return lambda **arguments: call(name, **arguments)
tools = _Tools()
ToolError = _ToolError
del _Tools
'''


def _share_with_sandbox(path: Path) -> None:
    """As root the sandbox runs as its own group: the RPC folder and answers are shared with that group only, never
    with other users (an answer holds what a tool read). Otherwise the sandbox is this same user: owner only."""
    from grove.sandbox.users import SANDBOX_GID, is_root

    if is_root():
        os.chown(path, -1, SANDBOX_GID)
        os.chmod(path, 0o2770 if path.is_dir() else 0o640)


class _Server:
    """Answers the script's requests through the registry until stopped; counts the calls."""

    def __init__(self, ctx: ToolContext, registry: Any, rpc: Path) -> None:
        self.ctx, self.registry, self.rpc = ctx, registry, rpc
        self.calls: list[str] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True, name="grove-tool-script")

    def _serve(self) -> None:
        n = 1
        while not self.stop.is_set():
            req = self.rpc / f"req-{n}.json"
            if not req.exists():
                time.sleep(0.002)
                continue
            self._answer(req, self.rpc / f"resp-{n}.json")
            n += 1

    def _answer(self, req: Path, resp: Path) -> None:
        from grove.security.approval.taint import result_source

        try:
            data = json.loads(req.read_text(encoding="utf-8"))
            name, args = str(data["name"]), data.get("arguments") or {}
        except (OSError, ValueError, KeyError, TypeError) as e:
            out = {"ok": False, "content": f"bad request from the script: {e}"}
        else:
            tool = self.registry.get(name)
            if len(self.calls) >= MAX_CALLS:
                out = {"ok": False, "content": f"a script may make at most {MAX_CALLS} tool calls"}
            elif tool is None or name in NOT_CALLABLE:
                known = ", ".join(n for n in self.registry.names() if n not in NOT_CALLABLE)
                out = {"ok": False, "content": f"no tool {name!r} for scripts; known: {known}"}
            else:
                self.calls.append(name)
                result = self.registry.call(self.ctx, name, args)  # the same gate as a direct call
                source = result_source(name, tool.toolset, tool.untrusted_output, args, self.ctx.workspace)
                if source:  # what the script read reaches the model in its output: it taints as directly
                    self.ctx.policy.taint.mark(source)
                out = {"ok": result.ok, "content": result.content}
        tmp = resp.with_suffix(".tmp")
        tmp.write_text(json.dumps(out), encoding="utf-8")
        _share_with_sandbox(tmp)
        tmp.rename(resp)


def run_tool_script(ctx: ToolContext, code: str, timeout: int = 120) -> str:
    """Run a short Python script (in the sandbox) that calls grove's tools, for loops and batches of calls that
    would otherwise take one model call each. In the script, `tools.read_file(path="a.txt")` or
    `call("read_file", path="a.txt")` returns the tool's text (ToolError on a tool error); print what you need back.

    Args:
        code: the Python script
        timeout: seconds before it is stopped (max 600)
    """
    refusal = ctx.policy.check_terminal()  # running code is running code: allowed where commands are
    if refusal:
        raise ToolError(refusal)
    registry = ctx.registry
    if registry is None:
        raise ToolError("tool scripts need a session's tools (none here)")
    from grove.sandbox import Limits, run
    from grove.security.files.protected import existing_protected
    from grove.security.injection.scan import screen
    from grove.security.secrets.redact import redact

    rpc = ctx.workspace / f".grove-rpc-{secrets.token_hex(4)}"
    rpc.mkdir(mode=0o700)
    _share_with_sandbox(rpc)
    script = rpc / "script.py"
    script.write_text(PRELUDE.format(rpc=str(rpc)) + "\n" + code, encoding="utf-8")
    _share_with_sandbox(script)
    server = _Server(ctx, registry, rpc)
    server.thread.start()
    policy = ctx.policy
    try:
        result = run(
            ["python3", "-I", str(script)],
            ctx.workspace,
            Limits(timeout=max(1, min(timeout, 600))),
            network=policy.network,
            merge_stderr=True,
            backend=None if policy.sandbox == "auto" else policy.sandbox,
            unattended=policy.unattended,
            allow_unisolated=policy.allow_unisolated,
            protect_home=ctx.settings.home if ctx.settings else None,
            read_only=existing_protected(ctx.workspace),
        )
    finally:
        server.stop.set()
        server.thread.join(timeout=5)
        shutil.rmtree(rpc, ignore_errors=True)
    text = redact(result.stdout)
    if len(text) > MAX_OUTPUT_CHARS:
        text = text[:MAX_OUTPUT_CHARS] + f"\n[... {len(text) - MAX_OUTPUT_CHARS} chars cut ...]"
    notes = "".join(f"\n[{n}]" for n in result.notes)
    calls = f"{len(server.calls)} tool call(s)" + (
        f": {', '.join(sorted(set(server.calls)))}" if server.calls else ""
    )
    return f"exit={result.exit_code}, {calls}{notes}\n{screen(text, source='tool script output')}"


def tools() -> list[Tool]:
    return [
        make_tool(
            run_tool_script,
            toolset=TOOLSET,
            mutating=True,
            subagent_ok=False,
            untrusted_output=True,  # code's output, as the terminal's: it taints (its calls also mark their own)
        )
    ]
