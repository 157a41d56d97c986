"""Secret redaction: the corpora's targets, masking shape, and the process's own secret env values."""

from __future__ import annotations

import base64
import random

from corpora import jsonl

from grove.security.secrets.redact import env_secrets, mask, redact

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


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _wrapped(blob: str, width: int) -> str:
    return "\n".join(blob[i : i + width] for i in range(0, len(blob), width))


RNG = random.Random(13)
RSA_DER = b"\x30\x82\x04\xa4\x02\x01\x00\x02\x82\x01\x01\x00" + RNG.randbytes(600)
CERT_DER = b"\x30\x82\x03\x77\x30\x82\x02\x5f\xa0\x03\x02\x01\x02\x02\x04" + RNG.randbytes(600)


def test_pem_body_without_its_header_line_is_redacted() -> None:
    body = _wrapped(_b64(RSA_DER), 64)
    out = redact(f"the key lost its header:\n{body}\n-----END RSA PRIVATE KEY-----", environ={})
    assert all(line not in out for line in body.splitlines() if len(line) >= 8)


def test_certificate_body_is_not_a_secret() -> None:
    text = f"-----BEGIN CERTIFICATE-----\n{_wrapped(_b64(CERT_DER), 64)}\n-----END CERTIFICATE-----"
    assert redact(text, environ={}) == text


def test_base64_of_a_secrets_file_is_redacted_but_base64_of_prose_is_not() -> None:
    env = "APP_ENV=production\nDB_PASSWORD=Copper8812!x\nPORT=8080\n"
    blob = _wrapped(_b64(env.encode()), 76)
    out = redact(f"$ base64 .env\n{blob}", environ={})
    assert all(line not in out for line in blob.splitlines() if len(line) >= 8)
    prose = _wrapped(_b64(b"Your order has shipped and will arrive on Tuesday. Thanks for shopping." * 2), 76)
    assert redact(prose, environ={}) == prose


def test_unnamed_hex_token_is_redacted_when_a_word_names_it_but_a_commit_is_not() -> None:
    token = "".join(RNG.choice("0123456789abcdef") for _ in range(40))
    assert token not in redact(f"here is the token: {token}", environ={})
    assert token not in redact(f"$ cat ~/.config/cli/token\n{token}", environ={})
    for benign in (f"commit {token}", f"$ git rev-parse HEAD\n{token}", f"sha256 of key.pem: {token}"):
        assert redact(benign, environ={}) == benign


def test_very_random_token_on_its_own_is_redacted_but_identifiers_are_not() -> None:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    token = "".join(RNG.choice(alphabet) for _ in range(44))
    assert token not in redact(f"ok pasting it here: {token}", environ={})
    for benign in (
        "class AbstractSecretManagerTokenRefreshStrategyFactoryBean(BaseFactory):",
        "test_refresh_token_is_rejected_after_password_change_and_session_revocation",
        "id: 550e8400-e29b-41d4-a716-446655440000",
        "https://www.youtube.com/watch?v=dQw4w9WgXcQ&list=PLx0sYbCqOb8TBPRdmBHs5Iftvv9TPboYG",
    ):
        assert redact(benign, environ={}) == benign


def test_user_slash_password_and_password_is_prose() -> None:
    for text, secret in (
        ("the staging login is deploy / Falcon2231!", "Falcon2231!"),
        ("Credentials: admin / zQ8#mP2vL9", "zQ8#mP2vL9"),
        ("log in as root with password Orbit77$x and restart nginx", "Orbit77$x"),
        ("username: maria password: Tiger4410?", "Tiger4410?"),
        ("| host | user | password |\n|---|---|---|\n| db1 | admin | Maple903! |", "Maple903!"),
    ):
        assert secret not in redact(text, environ={}), text
    for benign in ("Enter your user / password on the next screen.", "src/auth/login.py", "see docs/api/v2"):
        assert redact(benign, environ={}) == benign


def test_jwt_stripe_and_basic_auth() -> None:
    jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlLXNpZ25hdHVyZS1zaWc"
    stripe = "pk_live_" + "".join(RNG.choice("abcdefXYZ0123456789") for _ in range(40))
    basic = _b64(b"ci-bot:Wq83hf!kd9")
    for text, secret in (
        (f"jwt={jwt}", jwt),
        (f"Stripe('{stripe}')", stripe),
        (f"Authorization: Basic {basic}", basic),
        (f'{{"auths": {{"registry": {{"auth": "{basic}"}}}}}}', basic),
    ):
        assert secret not in redact(text, environ={}), text


def test_documentation_placeholders_are_left_alone() -> None:
    for text in (
        "OPENAI_API_KEY=sk-...",
        "export ANTHROPIC_API_KEY=<YOUR_KEY>",
        "password: changeme",
        "password: ${DB_PASSWORD:?must be set}",
        "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "DATABASE_URL=postgres://USER:PASSWORD@HOST:5432/DB",
    ):
        assert redact(text, environ={}) == text, text


def test_pathological_inputs_come_back_whole() -> None:
    # Long runs that a backtracking pattern would choke on; the output must still be right.
    # (A word of repeated naming words and a column of table headers were quadratic once.)
    for text in (
        "a" * 200_000,
        "password=" * 20_000,
        "a/" * 100_000,
        "key: " + "x-" * 50_000,
        "=" * 100_000,
        "key" * 30_000,
        "| password |\n" * 5_000,
        ("QUJD" * 20 + "\n") * 1_000,
        ("QUJD" * 20 + "-+\n") * 2_000,  # a block that does not decode was re-read from each line once
    ):
        assert len(redact(text, environ={})) > 0
    assert redact("a" * 200_000, environ={}) == "a" * 200_000


def test_self_labelled_digests_and_yaml_tags_are_not_secrets() -> None:
    sri = "sha384-" + _b64(RNG.randbytes(48))
    for text in (sri, f'<script integrity="{sri}">', "password: !vault |", "secret: !Ref DbSecret"):
        assert redact(text, environ={}) == text, text


def test_ordinary_code_and_tables_are_left_alone() -> None:
    # Found by running redact over this repository's own source and README.
    for text in (
        "self.api_key = api_key",
        "CHARS_PER_TOKEN = 3.4  # cl100k",
        "pw = m.group(3)",
        'assert not list(skills_root.glob("shared/.*.tmp"))',
        "| spec | what |\n|---|---|\n| `openai:gpt` | OpenAI (`OPENAI_API_KEY`) |\n"
        "| `local` | the embedded model |",
    ):
        assert redact(text, environ={}) == text, text


def test_password_in_other_languages() -> None:
    for text, secret in (
        ("这是新的服务器。密码是 Tiger123! 好的", "Tiger123"),
        ("Das Passwort ist Sommer2026! für den Server", "Sommer2026"),
        ("contraseña: Gato#4491", "Gato#4491"),
        ("пароль: Zx81!qwe9", "Zx81!qwe9"),
        ("Hasło: Kot!2024abc", "Kot!2024abc"),
    ):
        assert secret not in redact(text, environ={}), text
    for benign in (
        "Kennwort vergessen? Klicken Sie hier.",
        "Le mot de passe est trop court.",
        "密码太短了。",
    ):
        assert redact(benign, environ={}) == benign


def test_real_code_shapes_are_left_alone() -> None:
    # Shapes found by running redact over the standard library and installed packages.
    for text in (
        "pw = pw[:-1]",
        "password = auth[2]",
        "Token = Ignore + PlainToken",
        'toolskey = "VS%0.f0COMNTOOLS" % version',
        '"auth": LOG_AUTH,',
        "private_key: PKCS7PrivateKeyTypes,",
        '"input_token": "next_token",',
        "Pass type_comments=True to get back type comments.",
        "Set-Cookie: oreo=doublestuff; Path=/",
        '_SK_START = b"-----BEGIN OPENSSH PRIVATE KEY-----"\n_SK_END = b"-----END OPENSSH PRIVATE KEY-----"',
        "data = fpin.read(sizeEndCentDir64Locator)",
    ):
        assert redact(text, environ={}) == text, text
    for text, secret in (
        ("POSTGRES_PASSWORD=correct-horse-battery", "correct-horse-battery"),
        ("bind_password: mapleSummer655.", "mapleSummer655"),
        ("aws_secret_access_key = csd76VgW7tbInxaE8ALsuhxvDRIosnxl", "csd76VgW7tbInxaE8ALsuhxvDRIosnxl"),
    ):
        assert secret not in redact(text, environ={}), text


def test_private_key_block_without_end_line_stops_where_its_body_does() -> None:
    body = _wrapped(_b64(RSA_DER), 64)
    out = redact(f"-----BEGIN PRIVATE KEY-----\n{body}\n\nprint('after the key')", environ={})
    assert "print('after the key')" in out and body.splitlines()[0] not in out
