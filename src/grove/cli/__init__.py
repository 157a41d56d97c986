"""The `grove` command line: one module per command group, thin (parse, call a service, print)."""
