"""The address guard of every web request: a URL's host is resolved once, every address it gives must be public
(judged on `ipaddress` objects, never on spelling), and the caller connects to the address checked here."""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from grove.errors import GroveError

# (host, port) -> the addresses it names, as text; tests pass a fake one so no test needs real DNS
Resolver = Callable[[str, int], list[str]]
IP = ipaddress.IPv4Address | ipaddress.IPv6Address
SCHEMES = {"http": 80, "https": 443}
_NUMERIC = re.compile(r"[0-9a-fx.]+")


class BlockedAddress(GroveError):
    """A URL the guard refuses: a scheme other than http(s), a host that does not resolve, or one that names a
    loopback, private, link-local, metadata or otherwise non-public address."""


def system_resolver(host: str, port: int) -> list[str]:
    """Every address the system resolver gives (numeric spellings like 2130706433 or 0x7f.1 come back as the
    dotted address they mean, so they meet the same check)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as e:
        raise BlockedAddress(f"cannot resolve {host!r}: {e}") from e
    return [str(info[4][0]) for info in infos]


def unwrap(ip: IP) -> IP:
    """The IPv4 address an IPv6 one carries (::ffff:a.b.c.d mapped, ::a.b.c.d compatible, 6to4, Teredo), so a
    private v4 address cannot hide inside a v6 spelling."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return ip.ipv4_mapped
        if ip.sixtofour is not None:
            return ip.sixtofour
        if ip.teredo is not None:
            return ip.teredo[1]
        packed = ip.packed
        if packed[:12] == bytes(12) and packed[12:] != bytes(4):  # deprecated ::a.b.c.d
            return ipaddress.IPv4Address(packed[12:])
    return ip


def why_not_public(ip: IP) -> str | None:
    """None for a globally routable unicast address, else what it is. `is_global` is the structural test: it
    excludes loopback, RFC 1918, CGNAT, link-local (cloud metadata 169.254.169.254), ULA (fd00:ec2::254),
    documentation, benchmarking and reserved ranges in one rule."""
    inner = unwrap(ip)
    for candidate in (inner, ip):
        if candidate.is_loopback:
            return "a loopback address"
        if candidate.is_link_local:
            return "a link-local address (cloud metadata lives there)"
        if candidate.is_private:
            return "a private address"
        if candidate.is_multicast or candidate.is_unspecified or candidate.is_reserved:
            return "not a unicast address"
        if not candidate.is_global:
            return "not a public address"
    return None


@dataclass(frozen=True)
class Target:
    """A URL as the guard passed it: the host as written, the address to connect to, the port."""

    url: str
    scheme: str
    host: str
    ip: IP
    port: int

    @property
    def address(self) -> str:
        """The address in URL form ([v6] bracketed)."""
        return f"[{self.ip}]" if self.ip.version == 6 else str(self.ip)


class Guard:
    """Checks URLs against the rule; `allow_hosts` (hosts as written, from config) may name non-public hosts."""

    def __init__(self, allow_hosts: Iterable[str] = (), resolver: Resolver | None = None) -> None:
        self.allow_hosts = {h.strip().lower().strip("[]") for h in allow_hosts if h.strip()}
        self.resolver = resolver or system_resolver

    def check(self, url: str) -> Target:
        """The address to connect to for `url`, or BlockedAddress saying why not."""
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError as e:
            raise BlockedAddress(f"not a valid URL: {url!r} ({e})") from e
        scheme = parts.scheme.lower()
        if scheme not in SCHEMES:
            raise BlockedAddress(f"only http and https URLs can be fetched, not {scheme or 'a bare path'!r}")
        host = (parts.hostname or "").lower()
        if not host:
            raise BlockedAddress(f"the URL {url!r} names no host")
        port = port or SCHEMES[scheme]
        addresses = self._addresses(host, port)
        if not addresses:
            raise BlockedAddress(f"{host!r} resolves to no address")
        allowed = host in self.allow_hosts
        if not allowed:
            for ip in addresses:
                why = why_not_public(ip)
                if why:  # one bad address is enough: a resolver may rotate between them (DNS rebinding)
                    raise BlockedAddress(
                        f"{host} resolves to {ip}, {why}; web tools reach public addresses only "
                        "(a host the user trusts can be added to web.allow_hosts)"
                    )
        return Target(url, scheme, host, addresses[0], port)

    def _addresses(self, host: str, port: int) -> list[IP]:
        try:  # an address literal (v4 dotted, v6) needs no resolver
            return [ipaddress.ip_address(host)]
        except ValueError:
            pass
        if _NUMERIC.fullmatch(host):  # 2130706433, 0x7f.1, 0177.0.0.1: what inet_aton (and so a client) reads
            try:
                return [ipaddress.IPv4Address(socket.inet_aton(host))]
            except OSError:
                pass
        out: list[IP] = []
        for text in self.resolver(host, port):
            try:
                out.append(ipaddress.ip_address(text.split("%", 1)[0]))  # drop a v6 zone id
            except ValueError as e:
                raise BlockedAddress(f"{host!r} resolved to {text!r}, which is not an address") from e
        return out
