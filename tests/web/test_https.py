"""HTTPS through the guard: the client connects to the checked address, yet TLS is checked against the name (SNI
and the certificate's name), so connecting by address weakens no certificate check."""

from __future__ import annotations

import ssl
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from tests.fakes.web_server import fake_resolver

from grove.web.fetch import Fetcher, FetchError
from grove.web.guard import Guard


class _Hello(BaseHTTPRequestHandler):
    def log_message(self, *_a: Any) -> None:
        pass

    def do_GET(self) -> None:
        body = f"hello {self.headers.get('Host')}".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def tls(tmp_path: Path) -> Iterator[tuple[int, ssl.SSLContext]]:
    """A server on 127.0.0.1 whose self-signed certificate names secure.test only; the client trusts it."""
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=secure.test",
         "-addext", "subjectAltName=DNS:secure.test", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    side = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    side.load_cert_chain(cert, key)
    server.socket = side.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    trust = ssl.create_default_context(cafile=str(cert))
    yield int(server.server_address[1]), trust
    server.shutdown()
    server.server_close()


def _fetcher(trust: ssl.SSLContext, host: str) -> Fetcher:
    return Fetcher(Guard([host], fake_resolver({host: ["127.0.0.1"]})), timeout=5.0, verify=trust)


def test_https_to_the_checked_address_verifies_the_name(tls: tuple[int, ssl.SSLContext]) -> None:
    port, trust = tls
    page = _fetcher(trust, "secure.test").get(f"https://secure.test:{port}/")
    assert page.body == f"hello secure.test:{port}".encode()


def test_a_certificate_for_another_name_is_refused(tls: tuple[int, ssl.SSLContext]) -> None:
    port, trust = tls
    with pytest.raises(FetchError, match=r"CERTIFICATE_VERIFY_FAILED|certificate"):
        _fetcher(trust, "other.test").get(f"https://other.test:{port}/")
