"""Weights of the injection score (logistic), written by `python -m grove.security.injection_fit` from
grove's own corpora only (the tuning files; no held-out file, no public corpus)."""

BIAS = -1.454
WEIGHTS: dict[str, float] = {
    "addressed_attack": 0.865,
    "addressee": 1.871,
    "authority": 1.611,
    "bidi": 0.534,
    "boundary": 1.282,
    "dangerous_command": 0.379,
    "encoded": 0.523,
    "exfil": 2.65,
    "fetch_run": 0.891,
    "flood": 1.075,
    "harm": 0.968,
    "hidden": 0.265,
    "invisible": 0.352,
    "leak": 2.521,
    "marker_orders": 1.16,
    "mixed_script": 0.12,
    "new_orders": 1.145,
    "override": 2.993,
    "override_orders": 0.486,
    "role_marker": 1.392,
    "roleplay_unbound": 1.904,
    "safety_off": 1.475,
    "secrecy": 1.118,
    "tag_chars": 0.058,
    "unbound": 1.139,
    "url_template": 1.828,
}
