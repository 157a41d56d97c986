"""A guarded HTTP GET: every hop's host checked by the guard and connected to by the address it checked (no second
lookup, so DNS rebinding cannot swap it), redirects followed by hand and re-checked, body and time capped."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit, urlunsplit

from grove.errors import GroveError
from grove.web.guard import SCHEMES, BlockedAddress, Guard

if TYPE_CHECKING:
    import httpx

USER_AGENT = "Mozilla/5.0 (compatible; grove-agent; +https://github.com/grove-agent)"
REDIRECTS = {301, 302, 303, 307, 308}


class FetchError(GroveError):
    """A fetch that failed for a reason the model can act on (timeout, too many redirects, HTTP error)."""


@dataclass
class Page:
    """What a fetch brought back: the final URL, status, content type and (possibly cut) body."""

    url: str
    status: int
    content_type: str
    body: bytes
    truncated: bool = False
    hops: list[str] = field(default_factory=list)  # the URLs visited before `url`
    headers: list[tuple[str, str]] = field(default_factory=list)

    def header(self, name: str) -> str | None:
        name = name.lower()
        return next((v for k, v in self.headers if k.lower() == name), None)

    @property
    def mime(self) -> str:
        return self.content_type.split(";", 1)[0].strip().lower()

    @property
    def charset(self) -> str | None:
        for part in self.content_type.split(";")[1:]:
            key, _, value = part.partition("=")
            if key.strip().lower() == "charset" and value.strip():
                return value.strip().strip('"')
        return None


@dataclass
class Fetcher:
    """GETs through the guard with fixed caps; a fresh client per fetch, so no cookie outlives one call."""

    guard: Guard
    timeout: float = 20.0
    max_bytes: int = 5_000_000
    max_redirects: int = 5
    verify: Any = True  # certificate check: True = the system's CAs; an ssl.SSLContext (tests: their own CA)

    def get(
        self,
        url: str,
        headers: dict[str, str] | None = None,
        *,
        method: str = "GET",
        body: bytes | None = None,
    ) -> Page:
        """The page at `url` (a POST with `body` for APIs that want one; a redirect then turns it into a GET)."""
        deadline = time.monotonic() + self.timeout
        hops: list[str] = []
        with _client(self.timeout, self.verify) as client:
            for _ in range(self.max_redirects + 1):
                page = self._one(client, url, headers or {}, deadline, method, body)
                location = page.header("location")
                if page.status not in REDIRECTS or not location:
                    page.hops = hops
                    return page
                hops.append(url)
                url, method, body = urljoin(url, location), "GET", None
            raise FetchError(f"more than {self.max_redirects} redirects (last: {url}); fetch the final URL")

    def once(
        self, url: str, headers: dict[str, str], *, method: str = "GET", body: bytes | None = None
    ) -> Page:
        """One guarded request, a redirect returned as it is (the browser follows it, through the guard again)."""
        with _client(self.timeout, self.verify) as client:
            return self._one(client, url, headers, time.monotonic() + self.timeout, method, body)

    def _one(
        self,
        client: httpx.Client,
        url: str,
        headers: dict[str, str],
        deadline: float,
        method: str,
        body: bytes | None,
    ) -> Page:
        """One request to the address the guard checked for `url` (never a second lookup of the name)."""
        import httpx

        target = self.guard.check(url)
        left = deadline - time.monotonic()
        if left <= 0:
            raise FetchError(f"timed out after {self.timeout:g} s")
        parts = urlsplit(target.url)
        netloc = (
            target.address if target.port == SCHEMES[target.scheme] else f"{target.address}:{target.port}"
        )
        by_ip = urlunsplit((target.scheme, netloc, parts.path or "/", parts.query, ""))
        host = parts.netloc.rpartition("@")[2]  # never send URL credentials on as a Host header
        ext: dict[str, Any] = {"timeout": {"connect": left, "read": left, "write": left, "pool": left}}
        if target.scheme == "https":
            ext["sni_hostname"] = target.host  # the certificate is checked against the name, not the address
        sent = {"User-Agent": USER_AGENT, "Accept": "*/*", **headers, "Host": host}
        request = client.build_request(method, by_ip, content=body, headers=sent, extensions=ext)
        try:
            response = client.send(request, stream=True)
        except httpx.TimeoutException as e:
            raise FetchError(f"timed out after {self.timeout:g} s") from e
        except httpx.HTTPError as e:
            raise FetchError(f"cannot reach {target.host}: {type(e).__name__}: {e}") from e
        try:
            redirect = response.status_code in REDIRECTS
            data, truncated = (b"", False) if redirect else self._read(response, deadline)
        finally:
            response.close()
        return Page(
            target.url,
            response.status_code,
            response.headers.get("content-type", ""),
            data,
            truncated,
            headers=list(response.headers.multi_items()),
        )

    def _read(self, response: httpx.Response, deadline: float) -> tuple[bytes, bool]:
        """The body up to max_bytes (decoded size: a gzip bomb stops at the cap too), within the deadline."""
        import httpx

        chunks: list[bytes] = []
        size = 0
        try:
            for chunk in response.iter_bytes():
                if time.monotonic() > deadline:  # a page trickling bytes would otherwise never time out
                    raise FetchError(f"timed out after {self.timeout:g} s reading {response.url.path}")
                chunks.append(chunk)
                size += len(chunk)
                if size >= self.max_bytes:
                    return b"".join(chunks)[: self.max_bytes], True
        except httpx.TimeoutException as e:
            raise FetchError(f"timed out after {self.timeout:g} s") from e
        except httpx.HTTPError as e:
            raise FetchError(f"the connection broke while reading: {e}") from e
        return b"".join(chunks), False


def _client(timeout: float, verify: Any = True) -> httpx.Client:
    """A fresh client: no cookie or connection outlives the call. trust_env=False, because a proxy from the
    environment would resolve names itself, out of the guard's sight."""
    import httpx

    return httpx.Client(trust_env=False, follow_redirects=False, timeout=timeout, verify=verify)


def fetcher_for(settings: Any, resolver: Any = None) -> Fetcher:
    """The session's fetcher from `settings.web` (a resolver may be given by tests)."""
    from grove.config.web import WebConfig
    from grove.dataclass_io import section

    cfg = section(settings, "web", WebConfig)
    guard = Guard(cfg.allow_hosts, resolver)
    return Fetcher(guard, timeout=cfg.timeout, max_bytes=cfg.max_bytes, max_redirects=cfg.max_redirects)


__all__ = ["BlockedAddress", "FetchError", "Fetcher", "Page", "fetcher_for"]
