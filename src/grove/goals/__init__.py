"""Goals (loop 2): keep working turn after turn until a judge model finds the acceptance criteria met."""
