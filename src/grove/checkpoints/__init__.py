"""Undo for the workspace: a content-addressed snapshot before each turn's first change, kept under grove's home
(never in the user's .git), restored byte for byte without clobbering what the user changed since."""
