"""classify_http_error and parse_retry_after: every HTTP failure lands on the right ErrorKind, with its status."""

from __future__ import annotations

import email.utils

import pytest

from grove.llm.errors import ErrorKind
from grove.llm.http_errors import classify_http_error, parse_retry_after


def body(message: str, type_: str = "invalid_request_error", code: str | None = None) -> dict:
    return {"error": {"message": message, "type": type_, "code": code}}


@pytest.mark.parametrize(
    ("status", "error_body", "kind"),
    [
        (429, body("Rate limit reached", "requests", "rate_limit_exceeded"), ErrorKind.RATE_LIMIT),
        (
            429,
            body("You exceeded your current quota", "insufficient_quota", "insufficient_quota"),
            ErrorKind.BILLING,
        ),
        (402, body("Insufficient credits"), ErrorKind.BILLING),
        (400, body("Your credit balance is too low to access the Anthropic API"), ErrorKind.BILLING),
        (
            529,
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
            ErrorKind.OVERLOADED,
        ),
        (503, body("The engine is currently overloaded"), ErrorKind.OVERLOADED),
        (503, "Service Unavailable", ErrorKind.OVERLOADED),
        (500, body("internal"), ErrorKind.SERVER_ERROR),
        (502, "<html>Bad gateway</html>", ErrorKind.SERVER_ERROR),
        (408, None, ErrorKind.TIMEOUT),
        (401, body("Incorrect API key provided"), ErrorKind.AUTH),
        (403, body("not allowed"), ErrorKind.AUTH),
        (404, body("The model `gpt-9` does not exist", code="model_not_found"), ErrorKind.MODEL_NOT_FOUND),
        (413, body("Request too large"), ErrorKind.PAYLOAD_TOO_LARGE),
        (
            400,
            body("maximum context length is 8192 tokens", code="context_length_exceeded"),
            ErrorKind.CONTEXT_OVERFLOW,
        ),
        (400, body("prompt is too long: 210000 tokens > 200000 maximum"), ErrorKind.CONTEXT_OVERFLOW),
        (
            400,
            body("the request exceeds the available context size, try increasing it"),
            ErrorKind.CONTEXT_OVERFLOW,
        ),
        (400, body("filtered", code="content_filter"), ErrorKind.CONTENT_POLICY),
        (400, body("Invalid value for 'tools'"), ErrorKind.BAD_REQUEST),
        (422, {"detail": "validation failed"}, ErrorKind.BAD_REQUEST),
        (418, None, ErrorKind.UNKNOWN),
    ],
)
def test_status_and_body_map_to_a_kind(status: int, error_body: object, kind: ErrorKind) -> None:
    err = classify_http_error(status, error_body, {}, model="m", key_env="OPENAI_API_KEY")
    assert err.kind is kind
    assert err.status == status and err.model == "m"


def test_auth_message_names_the_variable_and_the_fix() -> None:
    err = classify_http_error(401, body("Incorrect API key"), None, model="m", key_env="OPENROUTER_API_KEY")
    assert "OPENROUTER_API_KEY" in err.message and "export OPENROUTER_API_KEY=" in err.message
    assert "Incorrect API key" in err.message


def test_the_server_message_is_kept() -> None:
    err = classify_http_error(400, body("Invalid value for 'tools'"), None, model="m", key_env="K")
    assert err.message == "Invalid value for 'tools'"
    raw = classify_http_error(502, "upstream connect error", None, model="m", key_env="K")
    assert raw.message == "upstream connect error"


def test_rate_limit_carries_retry_after() -> None:
    err = classify_http_error(429, None, {"Retry-After": "12"}, model="m", key_env="K")
    assert err.retry_after == 12.0


def test_retry_after_forms() -> None:
    assert parse_retry_after({"retry-after": "3"}) == 3.0
    assert parse_retry_after({"Retry-After": "1.5"}) == 1.5
    assert parse_retry_after({"retry-after-ms": "800", "retry-after": "5"}) == 0.8
    now = 1_800_000_000.0
    assert parse_retry_after({"retry-after": email.utils.formatdate(now + 30, usegmt=True)}, now=now) == 30.0
    assert parse_retry_after({"retry-after": email.utils.formatdate(now - 30, usegmt=True)}, now=now) == 0.0
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None and parse_retry_after(None) is None
