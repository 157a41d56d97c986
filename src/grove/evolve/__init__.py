"""Offline skill evolution: GEPA over a skill's sections, a true accuracy/tokens/robustness Pareto front, a gate."""
