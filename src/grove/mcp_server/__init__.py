"""grove as an MCP server (`grove mcp serve`): its skills, memory, session search and whole agent turns offered to
other MCP clients, under an unattended policy, over stdio or streamable HTTP on 127.0.0.1."""
