"""Secret redaction: the corpora's targets, masking shape, and the process's own secret env values."""

from __future__ import annotations

from corpora import jsonl

from grove.security.redact import env_secrets, mask, redact

SECRETS = jsonl("secrets.jsonl")
NON_SECRETS = jsonl("non_secrets.jsonl")


def test_corpora_are_big_enough() -> None:
    assert len(SECRETS) >= 100 and len(NON_SECRETS) >= 100


def test_secret_recall_at_least_98_percent() -> None:
    leaked = [s["text"] for s in SECRETS if s["secret"] in redact(s["text"], environ={})]
    assert len(leaked) <= len(SECRETS) * 0.02, leaked


def test_non_secrets_left_alone() -> None:
    changed = [(t["text"], redact(t["text"], environ={})) for t in NON_SECRETS]
    changed = [c for c in changed if c[0] != c[1]]
    assert len(changed) <= len(NON_SECRETS) * 0.05, changed


def test_mask_short_fully_long_keeps_prefix_and_suffix() -> None:
    assert mask("hunter2") == "***"
    assert mask("sk-proj-abcdefghijklmnopqrstuvwxyz") == "sk-p…wxyz"


def test_exact_values_of_secret_env_vars_are_masked() -> None:
    env = {"MY_SERVICE_TOKEN": "plainvalue-7781-unusual", "HOME": "/root", "EDITOR": "vim"}
    out = redact("the value plainvalue-7781-unusual leaked into a log; editor is vim", environ=env)
    assert "plainvalue-7781-unusual" not in out and "vim" in out
    assert env_secrets(env) == ["plainvalue-7781-unusual"]


def test_redact_is_idempotent() -> None:
    text = "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123 and postgres://u:pw123456@h/db"
    once = redact(text, environ={})
    assert redact(once, environ={}) == once
    assert "pw123456" not in once and "abcdefghijklmnop" not in once


def test_private_key_block_removed_whole() -> None:
    text = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAxyz\nabc\n-----END RSA PRIVATE KEY-----"
    out = redact(text, environ={})
    assert "MIIEow" not in out and "abc" not in out and "BEGIN RSA PRIVATE KEY" in out
