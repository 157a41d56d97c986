"""The one error the API routes raise: an OpenAI-shaped error body with its status and headers."""

from __future__ import annotations


class ApiError(Exception):
    def __init__(
        self,
        status: int,
        message: str,
        type_: str,
        code: str | None = None,
        param: str | None = None,
        **headers: str,
    ) -> None:
        super().__init__(message)
        self.status, self.message, self.type, self.code, self.headers = status, message, type_, code, headers
        self.param = param


def refuse(message: str, param: str | None = None, code: str = "unsupported_parameter") -> ApiError:
    """A 400 for a field grove does not honour: said, not silently ignored."""
    return ApiError(400, message, "invalid_request_error", code, param)
