"""Approvals: the session's safety policy, the approval flow and its question, the decision log, and taint."""
