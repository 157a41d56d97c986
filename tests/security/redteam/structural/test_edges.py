"""Red team at grove serve's and the gateway's edges: a rebound Host name on a loopback bind (any family), the
API docs without a key or from a CDN, and a gateway allow-list entry by @name that any account can take."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace
from typing import Any

import pytest

from grove.config import ConfigError, Settings

HOST_ATTEMPTS = [
    ("::1", "evil.example"),
    ("::1", "evil.example:8765"),
    ("[::1]", "attacker.test"),
    ("127.0.0.1", "evil.example"),
    ("127.0.0.2", "rebind.attacker.test:80"),
    ("localhost", "localhost.attacker.test"),
    ("::ffff:127.0.0.1", "evil.example"),
]
DOCS_ATTEMPTS = ["/docs", "/redoc", "/openapi.json", "/docs/oauth2-redirect"]
NAME_ATTEMPTS = ["@alice", "alice-by-name", "id equal to a name"]
ATTEMPTS = [f"Host {h} on --host {b}" for b, h in HOST_ATTEMPTS] + DOCS_ATTEMPTS + NAME_ATTEMPTS


def _client(settings: Settings, **options: Any) -> Any:
    pytest.importorskip("fastapi", reason="grove serve needs the serve extra")
    from fastapi.testclient import TestClient
    from tests.serve.conftest import make_app

    return TestClient(make_app(settings, **options))


@pytest.mark.parametrize(("bind", "host"), HOST_ATTEMPTS)
def test_a_loopback_bind_refuses_a_foreign_host_name(settings: Settings, bind: str, host: str) -> None:
    from grove.cli.serve import _allowed_hosts

    client = _client(settings, allowed_hosts=_allowed_hosts(bind, []))
    assert client.get("/healthz", headers={"Host": host}).status_code == 400, f"{host} answered on {bind}"


@pytest.mark.parametrize("bind", ["::1", "127.0.0.1", "localhost"])
def test_a_loopback_bind_still_answers_local_names(settings: Settings, bind: str) -> None:
    from grove.cli.serve import _allowed_hosts

    client = _client(settings, allowed_hosts=_allowed_hosts(bind, []))
    for host in ("127.0.0.1:8765", "localhost:8765", "[::1]:8765"):
        assert client.get("/healthz", headers={"Host": host}).status_code == 200, host


@pytest.mark.parametrize("path", DOCS_ATTEMPTS)
def test_no_api_docs_without_a_key_and_nothing_from_a_cdn(settings: Settings, path: str) -> None:
    for options in ({}, {"openapi": True}):
        r = _client(settings, **options).get(path)
        assert r.status_code in (401, 404), f"{path} answered {r.status_code} without a key ({options})"
        assert "cdn" not in r.text.lower()


def test_the_openapi_spec_is_served_to_a_key_when_turned_on(settings: Settings) -> None:
    client = _client(settings, openapi=True)
    key = client.app.state.grove.keys.add("reader")
    r = client.get("/openapi.json", headers={"Authorization": f"Bearer {key}"})
    assert r.status_code == 200 and "/v1/chat/completions" in r.json()["paths"]
    assert client.get("/docs", headers={"Authorization": f"Bearer {key}"}).status_code == 404


def _core(settings: Settings, allowed: list[str], resolve: Any = None) -> Any:
    from grove.gateway.core import Gateway

    settings = dataclasses.replace(settings, gateway={"telegram": {"allowed_users": allowed}})
    adapter = SimpleNamespace(name="telegram")
    if resolve is not None:
        adapter.resolve_user = resolve
    return Gateway(settings, adapter)  # type: ignore[arg-type]


def test_an_at_name_entry_is_refused_unless_resolved_to_an_account_id(settings: Settings) -> None:
    with pytest.raises(ConfigError, match="allowed_users has '@alice'"):
        _core(settings, ["@alice"])
    core = _core(settings, ["@alice"], resolve=lambda name: "1001" if name == "alice" else None)
    assert core.allowed("1001", "alice")
    # the name's next holder (another account renamed to alice) is a stranger
    assert not core.allowed("6666", "alice") and not core.allowed("6666", "@alice")


def test_only_the_account_id_is_matched_never_the_name_a_platform_sends(settings: Settings) -> None:
    core = _core(settings, ["1001"])
    assert core.allowed("1001", "")
    assert not core.allowed("6666", "1001") and not core.allowed("", "1001")
