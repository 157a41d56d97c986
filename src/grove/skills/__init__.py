"""The skill library: Agent Skills folders (SKILL.md + supporting files), discovered, indexed, searched and managed."""
