"""Red-team: every way a URL can reach a private address is refused by structure (the address object, whatever
its spelling), before any request leaves: literal spellings, redirects to private hosts, names that resolve there."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.fakes.web_server import FakeWeb, fake_resolver

from grove.config import Settings
from grove.tools.context import ToolContext
from grove.tools.registry import ToolError
from grove.tools.web import web_fetch
from grove.web.guard import BlockedAddress, Guard

SPELLINGS = [
    "http://127.0.0.1/",
    "http://127.1/",
    "http://2130706433/",
    "http://0x7f000001/",
    "http://0x7f.0.0.1/",
    "http://0177.0.0.1/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://[::127.0.0.1]/",
    "http://[2002:7f00:1::]/",  # 6to4 wrapping loopback
    "http://[2002:a9fe:a9fe::]/",  # 6to4 wrapping the metadata address
    "http://169.254.169.254/latest/meta-data/",
    "http://[fd00:ec2::254]/",
    "http://[fe80::1]/",
    "http://10.0.0.1/",
    "http://172.16.5.4/",
    "http://192.168.1.1/",
    "http://100.64.0.1/",
    "http://0.0.0.0/",
    "http://[::]/",
    "http://224.0.0.1/",
    "http://user:pw@127.0.0.1:8080/",
]
RESOLVES_TO = {
    "localhost": ["127.0.0.1"],
    "127.0.0.1.nip.io": ["127.0.0.1"],
    "v6.test": ["::1"],
    "mapped.test": ["::ffff:127.0.0.1"],
    "metadata.test": ["169.254.169.254"],
    "intranet.test": ["10.1.2.3"],
    "rotating.test": ["93.184.216.34", "127.0.0.1"],  # one public, one loopback: the bad one is enough
    "zone.test": ["fe80::1%eth0"],
}


@pytest.mark.parametrize("url", SPELLINGS)
def test_private_spellings_are_refused(url: str) -> None:
    with pytest.raises(BlockedAddress):
        Guard(resolver=fake_resolver({})).check(url)


@pytest.mark.parametrize("host", list(RESOLVES_TO))
def test_names_resolving_to_private_addresses_are_refused(host: str, web: FakeWeb) -> None:
    with pytest.raises(BlockedAddress, match="resolves to"):
        Guard(["127.0.0.1"], fake_resolver(RESOLVES_TO)).check(f"http://{host}:{web.port}/plain.txt")
    assert not web.requests


def test_public_addresses_pass() -> None:
    guard = Guard(
        resolver=fake_resolver({"example.com": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"]})
    )
    assert str(guard.check("https://example.com/x").ip) == "93.184.216.34"
    assert str(guard.check("http://8.8.8.8/").ip) == "8.8.8.8"


def test_the_allow_list_is_by_host_as_written() -> None:
    """Allowing 127.0.0.1 (the tests' switch) lets no other spelling or name of it through."""
    guard = Guard(["127.0.0.1"], fake_resolver(RESOLVES_TO))
    assert str(guard.check("http://127.0.0.1:1/").ip) == "127.0.0.1"
    for url in (
        "http://2130706433:1/",
        "http://localhost:1/",
        "http://[::ffff:127.0.0.1]:1/",
        "http://127.1:1/",
    ):
        with pytest.raises(BlockedAddress):
            guard.check(url)


def test_default_settings_allow_no_private_host() -> None:
    assert Settings().web.allow_hosts == []


@pytest.mark.parametrize(
    "to",
    [
        "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
        "http://10.0.0.5/admin",
        "http://[::ffff:127.0.0.1]:{port}/plain.txt",
        "http://2130706433:{port}/plain.txt",
        "http://localhost:{port}/plain.txt",
        "http://metadata.test/",
        "file:///etc/passwd",
    ],
)
def test_a_redirect_to_a_private_address_is_refused(
    to: str, web: FakeWeb, web_settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("grove.web.guard.system_resolver", fake_resolver(RESOLVES_TO))
    target = to.format(port=web.port)
    with pytest.raises(ToolError) as err:
        web_fetch(ToolContext(workspace=tmp_path, settings=web_settings), web.url(f"/redirect?to={target}"))
    assert "public addresses only" in str(err.value) or "only http and https" in str(err.value)
    assert [r[1].split("?")[0] for r in web.requests] == ["/redirect"], (
        "escape: the redirect target was requested"
    )
