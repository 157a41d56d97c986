"""The OpenAI-compatible provider's lean transport: chat completions over urllib, ssl and json alone.

`import openai` costs about a second of start-up and this module ~0.03 s, so one-shot calls skip the SDK.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import ssl
import threading
import urllib.error
import urllib.request
from collections.abc import Iterable, Iterator
from typing import Any

from grove import __version__
from grove.llm.errors import ErrorKind, ModelError
from grove.llm.http_errors import classify_http_error

DEFAULT_BASE_URL = "https://api.openai.com/v1"


class HTTPTransport:
    """POST {base_url}/chat/completions, plain or streamed (server-sent events). Never retries: the Router does."""

    def __init__(self, base_url: str | None, api_key: str | None, *, model: str, key_env: str) -> None:
        # As the SDK does: no base URL means OPENAI_BASE_URL, then OpenAI itself.
        base = base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
        self.url = base.rstrip("/") + "/chat/completions"
        self.api_key = api_key
        self.model = model  # grove's name for the model, for error messages
        self.key_env = key_env
        self._opener: urllib.request.OpenerDirector | None = None
        self._lock = threading.Lock()

    def complete(self, params: dict[str, Any], timeout: float) -> dict[str, Any]:
        """The decoded JSON answer of a plain (non-streaming) call."""
        with self._mapped_errors(), self._post(params, timeout, "application/json") as response:
            raw = response.read()
        try:
            data = json.loads(raw)
        except ValueError:
            data = None
        if not isinstance(data, dict):
            snippet = raw[:200].decode("utf-8", "replace")
            raise ModelError(
                ErrorKind.SERVER_ERROR,
                f"the server answered HTTP 200 with a body that is not a JSON object: {snippet!r}",
                model=self.model,
            )
        return data

    def stream(self, params: dict[str, Any], timeout: float) -> Iterator[dict[str, Any]]:
        """The chunk objects of a streamed call, up to `data: [DONE]` (or the end of the connection)."""
        body = {**params, "stream": True, "stream_options": {"include_usage": True}}
        with self._mapped_errors(), self._post(body, timeout, "text/event-stream") as response:
            for data in sse_data(response):
                if data == "[DONE]":
                    return
                try:
                    chunk = json.loads(data)
                except ValueError:
                    raise ModelError(
                        ErrorKind.SERVER_ERROR,
                        f"the server sent a stream event that is not JSON: {data[:200]!r}",
                        model=self.model,
                    ) from None
                if isinstance(chunk, dict):
                    yield chunk

    def _post(self, body: dict[str, Any], timeout: float, accept: str) -> http.client.HTTPResponse:
        headers = {"Content-Type": "application/json", "Accept": accept, "User-Agent": f"grove/{__version__}"}
        if self.api_key:  # local servers need no key; send none rather than a placeholder
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(self.url, json.dumps(body).encode(), headers, method="POST")
        return self._get_opener().open(request, timeout=timeout)

    def _get_opener(self) -> urllib.request.OpenerDirector:
        with self._lock:
            if self._opener is None:
                https = (
                    [urllib.request.HTTPSHandler(context=tls_context())]
                    if self.url.startswith("https:")
                    else []
                )
                # build_opener keeps urllib's default handlers, ProxyHandler among them: *_proxy variables work.
                self._opener = urllib.request.build_opener(*https)
            return self._opener

    @contextlib.contextmanager
    def _mapped_errors(self) -> Iterator[None]:
        """HTTP error answers and transport failures -> the ModelErrors the SDK path raises for them."""
        try:
            yield
        except urllib.error.HTTPError as e:
            raise self._status_error(e) from e
        except (OSError, http.client.HTTPException) as e:  # URLError is an OSError
            raise transport_error(e, self.model) from e

    def _status_error(self, e: urllib.error.HTTPError) -> ModelError:
        try:
            text = e.read().decode("utf-8", "replace")
        except (OSError, http.client.HTTPException):
            text = ""
        try:
            body: object = json.loads(text)
        except ValueError:
            body = text or None
        return classify_http_error(
            e.code,
            body,
            dict(e.headers.items()) if e.headers else None,
            model=self.model,
            key_env=self.key_env,
            fallback_message=f"HTTP {e.code} {e.reason}",
        )


def transport_error(exc: BaseException, model: str) -> ModelError:
    """A timeout, or any other failure to get an answer through (refused, DNS, reset, TLS, cut short)."""
    reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
    if isinstance(reason, TimeoutError) or (isinstance(reason, str) and "timed out" in reason):
        return ModelError(ErrorKind.TIMEOUT, f"no answer within the timeout ({reason})", model=model)
    return ModelError(ErrorKind.CONNECTION, f"cannot reach the model server: {reason!s}", model=model)


def tls_context() -> ssl.SSLContext:
    """Trust certifi's CA bundle when it is installed, as the SDK does; else the system's."""
    try:
        import certifi
    except ImportError:
        return ssl.create_default_context()
    return ssl.create_default_context(cafile=certifi.where())


def sse_data(lines: Iterable[bytes]) -> Iterator[str]:
    """The data of each complete server-sent event (multi-line data joined); other fields and comments skipped.

    An event the connection cut off before its closing blank line is dropped, as the SSE spec says."""
    data: list[str] = []
    for raw in lines:
        line = raw.decode("utf-8", "replace").rstrip("\r\n")
        if not line:
            if data:
                yield "\n".join(data)
            data = []
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
