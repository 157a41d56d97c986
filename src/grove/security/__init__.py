"""Safety: the per-session policy object (and, later, approvals, redaction and scanning)."""
