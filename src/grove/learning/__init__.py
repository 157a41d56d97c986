"""Learning loops: background self-review after a task (loop 3) and the curator of the skill library (loop 4)."""
