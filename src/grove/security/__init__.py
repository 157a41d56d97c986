"""Safety, by concern: approval, commands, files, secrets, injection, skill_scan, and fast (the scan's shortcuts)."""
