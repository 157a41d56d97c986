"""The remote providers' lean transport: JSON POSTs over urllib, ssl and json alone, plain or as server-sent events.

It imports in ~0.03 s where `import openai` takes ~1 s and `import anthropic` ~2 s, so one-shot calls skip the SDKs.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import ssl
import threading
import urllib.error
import urllib.request
from collections.abc import Generator, Iterable, Iterator, Mapping
from typing import Any

from grove import __version__
from grove.llm.errors import ErrorKind, ModelError
from grove.llm.http_errors import classify_http_error

TRANSPORTS = ("sdk", "http")


def resolve_transport(setting: str, long_lived: bool) -> str:
    """The `transport` setting's "auto": the SDK for a long-lived session (chat, serve), whose pooled keep-alive
    connection serves many calls and whose import is paid once; the stdlib transport for one-shot commands, where
    that import would be most of the start-up."""
    if setting == "auto":
        return "sdk" if long_lived else "http"
    return setting


class HTTPTransport:
    """POST JSON to one URL, plain or streamed. Never retries: the Router does."""

    def __init__(self, url: str, headers: Mapping[str, str], *, model: str, key_env: str) -> None:
        self.url = url
        self.headers = {"Content-Type": "application/json", "User-Agent": f"grove/{__version__}", **headers}
        self.model = model  # grove's name for the model, for error messages
        self.key_env = key_env
        self._opener: urllib.request.OpenerDirector | None = None
        self._lock = threading.Lock()

    def complete(self, body: dict[str, Any], timeout: float) -> dict[str, Any]:
        """The decoded JSON answer of a plain (non-streaming) call."""
        with self._mapped_errors(), self._post(body, timeout, "application/json") as response:
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

    def stream(self, body: dict[str, Any], timeout: float) -> Generator[tuple[str, str], None, None]:
        """(event name, data) of each server-sent event, until the server closes the connection."""
        with self._mapped_errors(), self._post(body, timeout, "text/event-stream") as response:
            yield from sse_events(response)

    def _post(self, body: dict[str, Any], timeout: float, accept: str) -> http.client.HTTPResponse:
        # Serialised as both SDKs do (httpx's defaults), so either transport sends the same bytes.
        data = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
        request = urllib.request.Request(self.url, data, {**self.headers, "Accept": accept}, method="POST")
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
        """HTTP error answers and transport failures -> the ModelErrors the SDK paths raise for them."""
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


def decode_event(data: str, model: str) -> Any:
    """One server-sent event's JSON data; anything else means a broken server or proxy (retryable)."""
    try:
        return json.loads(data)
    except ValueError:
        raise ModelError(
            ErrorKind.SERVER_ERROR,
            f"the server sent a stream event that is not JSON: {data[:200]!r}",
            model=model,
        ) from None


def transport_error(exc: BaseException, model: str) -> ModelError:
    """A timeout, or any other failure to get an answer through (refused, DNS, reset, TLS, cut short)."""
    reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
    if isinstance(reason, TimeoutError) or (isinstance(reason, str) and "timed out" in reason):
        return ModelError(ErrorKind.TIMEOUT, f"no answer within the timeout ({reason})", model=model)
    return ModelError(ErrorKind.CONNECTION, f"cannot reach the model server: {reason!s}", model=model)


def tls_context() -> ssl.SSLContext:
    """Trust certifi's CA bundle when it is installed, as the SDKs do; else the system's."""
    try:
        import certifi
    except ImportError:
        return ssl.create_default_context()
    return ssl.create_default_context(cafile=certifi.where())


def sse_events(lines: Iterable[bytes]) -> Iterator[tuple[str, str]]:
    """(event name or "", data) of each complete server-sent event, multi-line data joined; ids, retry fields and
    comments skipped. An event the connection cut off before its closing blank line is dropped, as the spec says."""
    event, data = "", []
    for raw in lines:
        line = raw.decode("utf-8", "replace").rstrip("\r\n")
        if not line:
            if data:
                yield event, "\n".join(data)
            event, data = "", []
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
        elif line.startswith("event:"):
            event = line[6:].strip()
