"""grove: a self-improving AI agent runtime — the agent that grows with you."""

__version__ = "0.1.0"
