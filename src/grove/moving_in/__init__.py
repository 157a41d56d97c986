"""Moving in: `grove import hermes | claude | codex | openclaw` brings another agent's skills, memory, MCP servers
and past sessions into $GROVE_HOME, with a report of what was taken, converted and skipped (a dry run by default)."""
