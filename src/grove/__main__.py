"""`python -m grove` runs the CLI."""

from grove.cli.main import main

main()
