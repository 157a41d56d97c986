"""What a base64 blob decodes to: a private key (DER or OpenSSH, so a PEM body without its header line is
caught), `user:password`, or text that itself holds a secret (`base64 .env`). Benign blobs (images, public
keys, certificates, plain text) decode to none of these."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable

from grove.lazy_regex import later

_B64_CHARS = later(r"^[A-Za-z0-9+/_-]+={0,2}$")
_USER_PASS = later(r"^[\w.@+-]{1,64}:(?P<pw>[^\s:]{6,200})$")
# A decoded blob longer than this that is binary (an image, a font, a compressed file) is not key material.
MAX_BINARY = 4096


def decode(blob: str) -> bytes | None:
    """The bytes a standard or URL-safe base64 string stands for, or None when it is not base64."""
    if not _B64_CHARS.match(blob) or len(blob) % 4 == 1:
        return None
    padded = blob + "=" * (-len(blob) % 4)
    try:
        if "-" in blob or "_" in blob:
            return base64.urlsafe_b64decode(padded)
        return base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return None


def is_private_key(data: bytes) -> bool:
    """DER of a private key (PKCS#1, PKCS#8, SEC1: a SEQUENCE whose first element is a small version INTEGER),
    or an OpenSSH private key. Certificates and public keys start with a nested SEQUENCE instead."""
    if data.startswith(b"openssh-key-v1\x00"):
        return True
    if len(data) < 8 or data[0] != 0x30:
        return False
    i = 2 + (data[1] & 0x7F if data[1] & 0x80 else 0)
    return data[i : i + 3] in (b"\x02\x01\x00", b"\x02\x01\x01")


def _as_text(data: bytes) -> str | None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text if text and text.replace("\n", "").replace("\r", "").replace("\t", "").isprintable() else None


def is_asn1(data: bytes) -> bool:
    """DER that is not a private key: a certificate, a public key, a signature (a SEQUENCE with a long
    length)."""
    return len(data) >= 4 and data[0] == 0x30 and data[1] in (0x81, 0x82, 0x83) and not is_private_key(data)


def is_text(data: bytes) -> bool:
    """Do these bytes read as text (UTF-8, printable)?"""
    return _as_text(data) is not None


def holds_secret(
    data: bytes, redact_text: Callable[[str], str], password_like: Callable[[str], bool]
) -> bool:
    """Do these decoded bytes carry a secret: key material, `user:password`, or text with a secret in it?"""
    if is_private_key(data):
        return True
    text = _as_text(data)
    if text is None:
        return False
    m = _USER_PASS.match(text.strip())
    if m and password_like(m.group("pw")):
        return True
    return redact_text(text) != text
