"""Context compression (loop 7): keeps long sessions inside the model's window without losing a turn or a fact."""
