"""Shell commands: parsed, resolved to what really runs, and classified by what they destroy or expose."""
