"""The base of errors a user can fix: the CLI prints their message (what is wrong, how to fix) and exits 2."""


class GroveError(Exception):
    pass
