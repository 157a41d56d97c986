"""Prompt-injection scanning: normalised text, weighed signals and a small learned model."""
