"""Weights of the injection score (logistic), written by `python -m grove.security.injection.fit` from
grove's own corpora only (the tuning files; no held-out file, no public corpus)."""

BIAS = -1.494
WEIGHTS: dict[str, float] = {
    "addressed_attack": 1.631,
    "addressee": 1.22,
    "authority": 1.624,
    "bidi": 0.54,
    "boundary": 1.287,
    "dangerous_command": 0.47,
    "encoded": 0.495,
    "exfil": 2.684,
    "fetch_run": 0.922,
    "flood": 1.076,
    "harm": 0.986,
    "hidden": 0.234,
    "invisible": 0.325,
    "leak": 2.61,
    "marker_orders": 1.363,
    "mixed_script": 0.008,
    "new_orders": 0.93,
    "override": 2.955,
    "override_orders": 0.507,
    "persona": 0.173,
    "role_marker": 1.041,
    "roleplay_unbound": 1.905,
    "safety_off": 1.607,
    "secrecy": 1.139,
    "tag_chars": 0.003,
    "unbound": 1.133,
    "url_template": 1.849,
}
