"""Loop 5, memory: MEMORY.md (the agent's notes) and USER.md (the user's profile), frozen into each new session."""
