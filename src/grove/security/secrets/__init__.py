"""Secrets: recognised by format, context, prose and randomness, and redacted from all that is shown or stored."""
