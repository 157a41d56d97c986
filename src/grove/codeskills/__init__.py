"""Code skills: Python functions the agent writes for itself, tested in the sandbox before they are kept.

layout (the folder), contract (signature), sandboxed (tests and calls in the sandbox), create, invoke, plan, act.
"""
