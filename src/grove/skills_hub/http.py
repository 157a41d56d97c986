"""Bounded HTTP(S) GETs for the hub (stdlib only): a size cap, a timeout, and nothing but http/https."""

from __future__ import annotations

import urllib.error
import urllib.request

MAX_DOWNLOAD_BYTES = 64 << 20
TIMEOUT = 30.0


class FetchError(RuntimeError):
    """A download that failed; the message names the URL and the cause."""


def http_get(url: str, max_bytes: int = MAX_DOWNLOAD_BYTES, timeout: float = TIMEOUT) -> bytes:
    if not url.startswith(("http://", "https://")):
        raise FetchError(f"{url}: only http:// and https:// URLs are fetched")
    request = urllib.request.Request(url, headers={"User-Agent": "grove-skills-hub"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            data = reply.read(max_bytes + 1)
    except urllib.error.HTTPError as e:
        raise FetchError(f"{url} answered HTTP {e.code}") from e
    except (urllib.error.URLError, OSError, ValueError) as e:
        raise FetchError(f"cannot fetch {url}: {getattr(e, 'reason', e)}") from e
    if len(data) > max_bytes:
        raise FetchError(f"{url} is larger than {max_bytes} bytes; refused")
    return data
