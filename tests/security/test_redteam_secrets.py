"""The frozen secret red-team corpus: realistic secrets in logs, configs, shell output and chat are
redacted, and
benign look-alikes (hashes, UUIDs, digests, images, identifiers, placeholders) are left as they are."""

from __future__ import annotations

from collections import Counter

from secret_corpus import lookalikes, secrets

from grove.security.secrets.redact import redact

DEV, HELDOUT = secrets(), secrets(heldout=True)
BENIGN, BENIGN_HELDOUT = lookalikes(), lookalikes(heldout=True)


def test_corpus_is_big_and_varied() -> None:
    assert len(DEV) + len(HELDOUT) >= 150 and len(HELDOUT) >= 50
    assert len(BENIGN) + len(BENIGN_HELDOUT) >= 150
    kinds = Counter(s.kind for s in DEV + HELDOUT)
    for kind in ("jwt", "pem_body", "prose_pair", "url_creds", "hex_token", "b64_env", "stripe"):
        assert kinds[kind] >= 2, kind
    ids = [s.id for s in DEV + HELDOUT] + [b.id for b in BENIGN + BENIGN_HELDOUT]
    assert len(ids) == len(set(ids))


def test_every_secret_is_in_its_text() -> None:
    for s in DEV + HELDOUT:
        assert all(p in s.text for p in s.parts()), s.id


def test_development_secrets_recall_at_least_99_percent() -> None:
    leaked = [s.id for s in DEV if s.leaked(redact(s.text, environ={}))]
    assert len(leaked) <= len(DEV) * 0.01, leaked


def test_heldout_secrets_recall_at_least_95_percent() -> None:
    leaked = [s.id for s in HELDOUT if s.leaked(redact(s.text, environ={}))]
    assert len(leaked) <= len(HELDOUT) * 0.05, leaked


def test_no_long_piece_of_a_secret_survives() -> None:
    partial = [s.id for s in DEV if s.leaked_window(redact(s.text, environ={}))]
    assert len(partial) <= len(DEV) * 0.01, partial


def test_lookalikes_mangled_at_most_3_percent() -> None:
    mangled = [b.id for b in BENIGN if redact(b.text, environ={}) != b.text]
    assert len(mangled) <= len(BENIGN) * 0.03, mangled


def test_heldout_lookalikes_mangled_at_most_5_percent() -> None:
    mangled = [b.id for b in BENIGN_HELDOUT if redact(b.text, environ={}) != b.text]
    assert len(mangled) <= len(BENIGN_HELDOUT) * 0.05, mangled


def test_redaction_is_idempotent_on_the_corpus() -> None:
    for text in [s.text for s in DEV] + [b.text for b in BENIGN]:
        once = redact(text, environ={})
        assert redact(once, environ={}) == once, text[:80]
