"""Backend specs as written after --backend or in `backends.use`: parsed, or refused with what to write."""

from __future__ import annotations

import pytest

from grove.backends.base import BackendError
from grove.backends.spec import parse_spec


def test_specs_parse() -> None:
    assert parse_spec("ssh:box:/srv/w").workspace == "/srv/w"
    assert parse_spec("ssh:box").workspace is None
    assert parse_spec("build", {"build": "ssh:u@box"}).host == "u@box"
    assert parse_spec("here", {"here": "local"}).kind == "local"
    image = parse_spec("podman:docker.io/library/python:3.12-slim")
    assert (image.kind, image.engine, image.image) == (
        "container",
        "podman",
        "docker.io/library/python:3.12-slim",
    )
    assert image.text == "podman:docker.io/library/python:3.12-slim"


@pytest.mark.parametrize(
    "bad", ["ftp:x", "ssh:", "ssh:box:rel/path", "ssh:-oProxyCommand=x", "docker:", "podman:--privileged", ""]
)
def test_bad_specs_are_refused_with_what_to_write(bad: str) -> None:
    with pytest.raises(BackendError, match=r"write local, ssh:HOST|absolute path"):
        parse_spec(bad)
