"""What an MCP server sends is outside text: scanned like any, and an untrusted server's always quoted."""

from __future__ import annotations

from grove.config.mcp import McpServerConfig


def screened(text: str, server: McpServerConfig, what: str) -> str:
    """`text` as a model may see it: unchanged when safe, else quoted as data under a warning."""
    from grove.security.injection.scan import ScanFinding, quarantine, scan_text

    source = f"mcp {server.name}/{what}"
    result = scan_text(text, source)
    if server.trust == "untrusted" and not result.flagged:
        result.verdict = "caution"
        result.findings.append(
            ScanFinding("untrusted-source", "caution", "the server is configured untrusted")
        )
    return quarantine(text, result)
