"""Bounded HTTPS GETs for the hub (stdlib only): a size cap, a timeout, https (plain http only from this machine),
and redirects followed only within the origin asked for: a hub never fetches from a host it was not pointed at."""

from __future__ import annotations

import urllib.error
import urllib.request
from http.client import HTTPMessage
from typing import IO
from urllib.parse import urlsplit

MAX_DOWNLOAD_BYTES = 64 << 20
TIMEOUT = 30.0
LOOPBACK = frozenset(
    {"127.0.0.1", "localhost", "::1"}
)  # plain http stays on this machine (tests, local mirrors)
DEFAULT_PORTS = {"http": 80, "https": 443}


class FetchError(RuntimeError):
    """A download that failed; the message names the URL and the cause."""


def origin(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of a URL: what a redirect must keep."""
    parts = urlsplit(url)
    try:
        port = parts.port or DEFAULT_PORTS.get(parts.scheme, 0)
    except ValueError as e:
        raise FetchError(f"{url}: {e}") from e
    return parts.scheme.lower(), (parts.hostname or "").lower(), port


def check_url(url: str) -> None:
    """https, or http to this machine; anything else raises FetchError saying how to fix it."""
    scheme, host, _ = origin(url)
    if scheme == "https" and host:
        return
    if scheme == "http" and host in LOOPBACK:
        return
    if scheme == "http":
        raise FetchError(f"{url}: plain http is fetched only from this machine (127.0.0.1); use https://")
    raise FetchError(f"{url}: only https:// URLs are fetched")


class _SameOrigin(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only to the origin the download started at; any other is refused, not followed."""

    def __init__(self, start: str) -> None:
        self.start = start
        self.origin = origin(start)

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: IO[bytes],
        code: int,
        msg: str,
        headers: HTTPMessage,
        newurl: str,
    ) -> urllib.request.Request | None:
        if origin(newurl) != self.origin:
            fp.close()
            raise FetchError(
                f"{self.start} redirects (HTTP {code}) to {newurl}, another origin; refused"
                " (fetch that URL itself if you trust it)"
            )
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def http_get(url: str, max_bytes: int = MAX_DOWNLOAD_BYTES, timeout: float = TIMEOUT) -> bytes:
    check_url(url)
    request = urllib.request.Request(url, headers={"User-Agent": "grove-skills-hub"})
    opener = urllib.request.build_opener(_SameOrigin(url))
    try:
        with opener.open(request, timeout=timeout) as reply:
            data = reply.read(max_bytes + 1)
    except urllib.error.HTTPError as e:
        raise FetchError(f"{url} answered HTTP {e.code}") from e
    except (urllib.error.URLError, OSError, ValueError) as e:
        raise FetchError(f"cannot fetch {url}: {getattr(e, 'reason', e)}") from e
    if len(data) > max_bytes:
        raise FetchError(f"{url} is larger than {max_bytes} bytes; refused")
    return data
