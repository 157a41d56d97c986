"""HTTP status and body -> grove's ErrorKind, shared by every remote provider (OpenAI-compatible, Anthropic):
Retry-After parsing, context-overflow / billing / content-policy wording, and transport failures."""

from __future__ import annotations

import email.utils
import time
from collections.abc import Iterable, Mapping
from typing import Any

from grove.llm.errors import ErrorKind, ModelError

CONTEXT_OVERFLOW_TEXT = (
    "context_length_exceeded",
    "maximum context length",
    "context length",
    "context window",
    "context size",  # llama.cpp server: "exceeds the available context size"
    "exceed_context_size",
    "prompt too long",
    "too many tokens",
    "prompt is too long",
    "input is too long",
    "reduce the length",
    "exceeds the context",
)
BILLING_TEXT = (
    "insufficient_quota",
    "exceeded your current quota",
    "billing",
    "credit balance",
    "insufficient credits",
    "payment required",
)
CONTENT_POLICY_TEXT = ("content_filter", "content_policy", "content management policy", "safety system")


def parse_retry_after(headers: Mapping[str, str] | None, now: float | None = None) -> float | None:
    """Seconds to wait from `retry-after-ms`, or `retry-after` as seconds or an HTTP date; None when absent."""
    if not headers:
        return None
    lower = {k.lower(): v for k, v in headers.items()}
    try:
        if lower.get("retry-after-ms"):
            return max(float(lower["retry-after-ms"]) / 1000, 0.0)
    except ValueError:
        pass
    value = lower.get("retry-after")
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, IndexError):
        return None
    return max(when - (time.time() if now is None else now), 0.0)


def error_text(body: object, fallback: str) -> str:
    """The human part of an error body: `{"error": {"message": ...}}`, `{"message": ...}` or raw text."""
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            msg = inner.get("message")
            if isinstance(msg, str) and msg:
                return msg
        elif isinstance(inner, str) and inner:
            return inner
    if isinstance(body, str) and body.strip():
        return body.strip()[:500]
    return fallback


def _body_codes(body: object) -> str:
    """Error type/code fields, lower-cased, to match on alongside the message."""
    if not isinstance(body, dict):
        return ""
    inner = body.get("error", body)
    if not isinstance(inner, dict):
        return ""
    return " ".join(str(inner.get(k) or "") for k in ("type", "code")).lower()


def _has(text: str, needles: Iterable[str]) -> bool:
    return any(n in text for n in needles)


def classify_http_error(
    status: int,
    body: object,
    headers: Mapping[str, str] | None,
    *,
    model: str,
    key_env: str,
    fallback_message: str = "",
) -> ModelError:
    """Map one HTTP error answer of any provider onto grove's ErrorKind taxonomy."""
    message = error_text(body, fallback_message or f"HTTP {status}")
    haystack = f"{message} {_body_codes(body)}".lower()
    retry_after = parse_retry_after(headers)

    def err(kind: ErrorKind, text: str = message) -> ModelError:
        return ModelError(kind, text, status=status, retry_after=retry_after, model=model)

    if status in (401, 403) or "authentication_error" in haystack:
        return err(
            ErrorKind.AUTH,
            f"the provider refused the API key from {key_env} (HTTP {status}: {message}). "
            f"Check it is set and valid: export {key_env}=<your key>",
        )
    if status == 402 or _has(haystack, BILLING_TEXT):
        return err(
            ErrorKind.BILLING, f"billing problem (HTTP {status}): {message}. Check the account's credit"
        )
    if status == 529 or "overloaded" in haystack:
        return err(ErrorKind.OVERLOADED)
    if status == 429:
        return err(ErrorKind.RATE_LIMIT)
    if status == 404:
        return err(
            ErrorKind.MODEL_NOT_FOUND,
            f"model '{model}' not found (HTTP 404: {message}). Check the model name, and that a custom "
            "base URL is right (OpenAI-compatible servers usually end in /v1)",
        )
    if status == 413:
        return err(ErrorKind.PAYLOAD_TOO_LARGE)
    if _has(haystack, CONTEXT_OVERFLOW_TEXT) and status < 500:
        return err(ErrorKind.CONTEXT_OVERFLOW)
    if _has(haystack, CONTENT_POLICY_TEXT):
        return err(ErrorKind.CONTENT_POLICY)
    if status == 503:
        return err(ErrorKind.OVERLOADED)
    if status == 408:
        return err(ErrorKind.TIMEOUT)
    if status == 409 or status >= 500:
        return err(ErrorKind.SERVER_ERROR)
    if status in (400, 422):
        return err(ErrorKind.BAD_REQUEST)
    return err(ErrorKind.UNKNOWN)


def classify_sdk_status_error(error: Any, *, model: str, key_env: str) -> ModelError:
    """An `APIStatusError` of either SDK (both are generated alike: status_code, body, response, message)."""
    return classify_http_error(
        error.status_code,
        error.body,
        error.response.headers,
        model=model,
        key_env=key_env,
        fallback_message=error.message,
    )


def classify_transport_error(exc: BaseException, model: str) -> ModelError | None:
    """Timeouts and connection failures, from the SDK's wrappers or raw httpx errors that escaped a stream."""
    names = [c.__name__ for c in type(exc).__mro__]
    module = type(exc).__module__.split(".")[0]
    if "APITimeoutError" in names or (
        module.startswith(("httpx", "httpcore")) and "TimeoutException" in names
    ):
        return ModelError(ErrorKind.TIMEOUT, f"no answer within the timeout ({exc})", model=model)
    if "APIConnectionError" in names or (
        module.startswith(("httpx", "httpcore")) and "TransportError" in names
    ):
        cause = exc.__cause__ or exc.__context__
        detail = f"{exc} ({cause})" if cause else str(exc)
        return ModelError(ErrorKind.CONNECTION, f"cannot reach the model server: {detail}", model=model)
    return None
