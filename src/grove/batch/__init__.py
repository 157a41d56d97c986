"""Batch runs: a JSONL dataset of tasks worked as cards on the kanban board, each labelled by its verifier, and
the workers' trajectories exported as ShareGPT-style or OpenAI fine-tuning JSONL."""
