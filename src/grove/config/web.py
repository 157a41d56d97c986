"""Web settings (`web:` in config.yaml): fetch caps, the address guard's allow-list, the search backend and the
browser. Keys never live here: a search backend reads its key from the environment variable it names."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Literal

from grove.dataclass_io import STRICT_KEYS

if TYPE_CHECKING:
    from pydantic import Field  # the constraints below are checked by grove.dataclass_io.validate_as

SEARCH_BACKENDS = ("duckduckgo", "searxng", "brave", "tavily")


@dataclass
class WebConfig:
    __pydantic_config__ = STRICT_KEYS

    allow_hosts: Annotated[
        list[str],
        Field(
            description="hosts (as written in a URL, e.g. 127.0.0.1 or intranet.local) that web tools may reach "
            "even though they are loopback, private or link-local; empty = only public addresses"
        ),
    ] = field(default_factory=list)
    timeout: Annotated[
        float, Field(gt=0, le=300, description="seconds for a whole fetch, redirects included")
    ] = 20.0
    max_bytes: Annotated[int, Field(ge=1024, description="largest body read; a bigger page is cut there")] = (
        5_000_000
    )
    max_redirects: Annotated[int, Field(ge=0, le=20)] = 5
    max_chars: Annotated[int, Field(ge=500, description="characters of extracted text a fetch returns")] = (
        20_000
    )
    search_backend: Annotated[
        Literal["duckduckgo", "searxng", "brave", "tavily"],
        Field(description="duckduckgo needs no key; brave reads BRAVE_API_KEY, tavily TAVILY_API_KEY"),
    ] = "duckduckgo"
    search_url: Annotated[
        str | None,
        Field(description="the backend's endpoint (searxng: your instance); empty = its public one"),
    ] = None
    search_key_env: Annotated[
        str | None, Field(description="environment variable holding the backend's key; empty = its usual one")
    ] = None
    browser_executable: Annotated[
        str | None,
        Field(description="Chromium/Chrome to drive; empty = /usr/bin/chromium, else Playwright's"),
    ] = None
    browser_cdp_url: Annotated[
        str | None, Field(description="attach to a running Chrome over CDP (http://127.0.0.1:9222) instead")
    ] = None
