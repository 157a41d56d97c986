"""Claims checked against evidence: an answer's claims about its own work ("wrote X", "tests pass") set against the
turn's tool record, each marked supported, contradicted or unverifiable, without a model call."""
