"""The skills hub: install skills from a folder, a git repository, a tarball or a `.well-known` skills index,
keep where each came from (state.db installed_skills), and update, uninstall or check them for news."""
