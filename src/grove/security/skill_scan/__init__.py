"""The skill scan: every file of a skill read by its kind (markdown, shell, Python, JavaScript) for what it does."""
