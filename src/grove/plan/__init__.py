"""Plan then act (a loop of its own): perceive, plan under a schema, act one step with the agent's tools, re-plan."""
