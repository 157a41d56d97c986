"""Weights of the injection score (logistic), written by `python -m grove.security.injection_fit` from
grove's own corpora only (the tuning files; no held-out file, no public corpus)."""

BIAS = -1.458
WEIGHTS: dict[str, float] = {
    "addressed_attack": 1.626,
    "addressee": 1.199,
    "authority": 1.646,
    "bidi": 0.535,
    "boundary": 1.283,
    "dangerous_command": 0.375,
    "encoded": 0.524,
    "exfil": 2.656,
    "fetch_run": 0.893,
    "flood": 1.075,
    "harm": 0.966,
    "hidden": 0.218,
    "invisible": 0.353,
    "leak": 2.523,
    "marker_orders": 1.154,
    "mixed_script": 0.12,
    "new_orders": 1.16,
    "override": 2.995,
    "override_orders": 0.474,
    "persona": 0.168,
    "role_marker": 1.406,
    "roleplay_unbound": 1.894,
    "safety_off": 1.488,
    "secrecy": 1.119,
    "tag_chars": 0.058,
    "unbound": 1.101,
    "url_template": 1.83,
}
