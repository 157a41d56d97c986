"""The agent: the turn loop (loop 1), system prompt assembly, and the session that ties them to the store."""
