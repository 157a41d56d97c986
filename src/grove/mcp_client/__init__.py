"""grove as an MCP client: configured servers (stdio or streamable HTTP) reached from a sync agent through one
background event loop, their tools in the session's registry, their output scanned like any tool output."""
