"""Weights of the injection score (logistic), written by `python -m grove.security.injection_fit` from
grove's own corpora only (the tuning files; no held-out file, no public corpus)."""

BIAS = -1.456
WEIGHTS: dict[str, float] = {
    "addressed_attack": 0.865,
    "addressee": 1.872,
    "authority": 1.613,
    "bidi": 0.535,
    "boundary": 1.282,
    "dangerous_command": 0.379,
    "encoded": 0.523,
    "exfil": 2.651,
    "fetch_run": 0.891,
    "flood": 1.075,
    "harm": 0.968,
    "hidden": 0.266,
    "invisible": 0.353,
    "leak": 2.522,
    "marker_orders": 1.163,
    "mixed_script": 0.12,
    "new_orders": 1.146,
    "override": 2.993,
    "override_orders": 0.486,
    "persona": 0.171,
    "role_marker": 1.393,
    "roleplay_unbound": 1.887,
    "safety_off": 1.475,
    "secrecy": 1.12,
    "tag_chars": 0.058,
    "unbound": 1.098,
    "url_template": 1.829,
}
