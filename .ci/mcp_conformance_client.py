"""grove's MCP client as the conformance suite's client under test (`conformance client --command ...`): the suite
appends its test server's URL and names the scenario in MCP_CONFORMANCE_SCENARIO. grove connects as it does to a
configured HTTP server, lists the tools and calls each, for a session attended on a terminal whose user presses
Enter at every question (so an elicitation is answered with the schema's defaults, as a person keeping them
would), then disconnects."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

SAMPLE_VALUES = {"number": 1, "integer": 1, "boolean": True, "string": "grove"}


def arguments(schema: dict[str, Any]) -> dict[str, Any]:
    """Arguments for a tool from its input schema: a plain value of each required property's type."""
    props = schema.get("properties") or {}
    return {
        name: SAMPLE_VALUES.get(str((props.get(name) or {}).get("type")), "grove")
        for name in schema.get("required") or []
    }


def main(url: str) -> int:
    home = Path(tempfile.mkdtemp(prefix="grove-mcp-client-conformance-"))
    from grove.config.mcp import McpServerConfig
    from grove.mcp_client.caller import Caller
    from grove.mcp_client.manager import McpManager
    from grove.security.approval.policy import SafetyPolicy
    from grove.security.approval.prompt import tty_approver
    from grove.tools.context import ToolContext

    read, write = os.pipe()
    os.write(write, b"\n" * 200)  # the user presses Enter at every question
    os.close(write)
    approver = tty_approver(os.fdopen(read, "r"), sys.stderr)
    ctx = ToolContext(workspace=home, policy=SafetyPolicy(approver=approver))
    server = McpServerConfig(name="suite", url=url, trust="trusted", timeout=20)
    manager = McpManager([server], home)
    failed = 0
    try:
        for tool in manager.list_tools("suite", Caller(ctx)):
            result = manager.call_tool("suite", tool["name"], arguments(tool["input_schema"]), Caller(ctx))
            print(f"{tool['name']}: {'error' if result.is_error else 'ok'}", file=sys.stderr)
    except Exception as e:  # the scenario's checks say what went wrong; this says where
        print(f"grove's client failed: {type(e).__name__}: {e}", file=sys.stderr)
        failed = 1
    finally:
        manager.close()
    return failed


if __name__ == "__main__":
    sys.exit(main(sys.argv[-1]))
