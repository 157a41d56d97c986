"""One error taxonomy for every provider, so the router can decide: retry, compress, fall back or stop."""

from __future__ import annotations

from enum import StrEnum


class ErrorKind(StrEnum):
    RATE_LIMIT = "rate_limit"
    OVERLOADED = "overloaded"
    SERVER_ERROR = "server_error"
    TIMEOUT = "timeout"
    CONNECTION = "connection"
    CONTEXT_OVERFLOW = "context_overflow"
    PAYLOAD_TOO_LARGE = "payload_too_large"
    AUTH = "auth"
    BILLING = "billing"
    MODEL_NOT_FOUND = "model_not_found"
    BAD_REQUEST = "bad_request"
    CONTENT_POLICY = "content_policy"
    UNKNOWN = "unknown"


RETRYABLE = frozenset(
    {
        ErrorKind.RATE_LIMIT,
        ErrorKind.OVERLOADED,
        ErrorKind.SERVER_ERROR,
        ErrorKind.TIMEOUT,
        ErrorKind.CONNECTION,
    }
)
# Worth trying another model for: the primary is unusable, but the request itself may be fine.
FALLBACK_OK = RETRYABLE | {ErrorKind.MODEL_NOT_FOUND, ErrorKind.BILLING, ErrorKind.AUTH, ErrorKind.UNKNOWN}


class ModelError(Exception):
    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        model: str = "",
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.status = status
        self.retry_after = retry_after
        self.model = model

    @property
    def retryable(self) -> bool:
        return self.kind in RETRYABLE

    def __str__(self) -> str:
        where = f" [{self.model}]" if self.model else ""
        return f"{self.kind.value}{where}: {self.message}"
