"""`grove serve` and `grove serve keys` as a user types them."""

from __future__ import annotations

import threading

import pytest
from tests.clirun import grove

from grove.config import Settings


def test_keys_add_list_remove(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = grove(capsys, "serve", "keys", "add", "laptop")
    assert code == 0 and out.startswith("gsk_") and "shown only this once" in err
    key = out.strip()
    code, out, _ = grove(capsys, "serve", "keys", "list")
    assert code == 0 and "laptop" in out and key not in out
    code, _, err = grove(capsys, "serve", "keys", "add", "laptop")
    assert code == 2 and "exists" in err
    code, out, _ = grove(capsys, "serve", "keys", "remove", "laptop")
    assert code == 0
    code, _, err = grove(capsys, "serve", "keys", "remove", "laptop")
    assert code == 2 and "no key named" in err


def test_keys_are_plain_unless_made_admin(capsys: pytest.CaptureFixture[str]) -> None:
    assert grove(capsys, "serve", "keys", "add", "client")[0] == 0
    assert grove(capsys, "serve", "keys", "add", "boss", "--admin")[0] == 0
    rows = dict(line.split("\t", 1) for line in grove(capsys, "serve", "keys", "list")[1].splitlines())
    assert "own sessions" in rows["client"] and "\tadmin\t" in rows["boss"]
    assert grove(capsys, "serve", "keys", "admin", "client")[0] == 0
    assert grove(capsys, "serve", "keys", "admin", "boss", "--off")[0] == 0
    rows = dict(line.split("\t", 1) for line in grove(capsys, "serve", "keys", "list")[1].splitlines())
    assert "\tadmin\t" in rows["client"] and "own sessions" in rows["boss"]
    code, _, err = grove(capsys, "serve", "keys", "admin", "nobody")
    assert code == 2 and "no key named" in err


@pytest.mark.parametrize("name", ["", "a b", "../x", "x" * 65, "-lead"])
def test_bad_key_names_are_usage_errors(capsys: pytest.CaptureFixture[str], name: str) -> None:
    code, _, err = grove(capsys, "serve", "keys", "add", "--", name)
    assert code == 2, err


def test_serve_without_keys_refuses_to_start_and_says_how(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("uvicorn", reason="grove serve needs the serve extra")
    code, _, err = grove(capsys, "serve", "--port", "0")
    assert code == 2 and "grove serve keys add" in err


def test_bad_approvals_mode_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = grove(capsys, "serve", "--approvals", "maybe")
    assert code == 2 and "dashboard or deny" in err


def test_the_cron_scheduler_runs_in_process_and_stops(settings: Settings) -> None:
    from grove.cli.serve import _start_cron

    halt = _start_cron(settings)
    names = {t.name for t in threading.enumerate()}
    assert "grove-cron" in names
    halt()
    assert "grove-cron" not in {t.name for t in threading.enumerate()}


def test_loopback_binds_answer_only_local_host_names() -> None:
    from grove.cli.serve import _allowed_hosts

    assert _allowed_hosts("127.0.0.1", []) == ["127.0.0.1", "localhost", "[::1]"]
    assert _allowed_hosts("127.0.0.1", ["grove.lan"]) == ["127.0.0.1", "localhost", "[::1]", "grove.lan"]
    assert _allowed_hosts("0.0.0.0", []) is None


def test_model_option_sets_the_model_of_api_sessions(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("uvicorn", reason="grove serve needs the serve extra")
    import grove.serve.app as app_module
    import grove.serve.server as server_module

    seen: list[str | None] = []
    real_build = app_module.build_app

    def recording_build(state, options):  # type: ignore[no-untyped-def]
        seen.append(state.settings.model)
        return real_build(state, options)

    monkeypatch.setattr(app_module, "build_app", recording_build)
    monkeypatch.setattr(server_module, "run_foreground", lambda *a, **k: None)  # no real listening here
    assert grove(capsys, "serve", "keys", "add", "laptop")[0] == 0
    code, _, err = grove(capsys, "serve", "--port", "0", "-m", "nosuch:x")
    assert code == 2 and "unknown model spec 'nosuch:x'" in err and seen == []
    code, _, err = grove(capsys, "serve", "--port", "0", "-m", "openai:gpt-test")
    assert code == 0, err
    assert seen == ["openai:gpt-test"]


def test_a_busy_port_is_one_grove_line(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 33: a busy port ended `grove serve` in a traceback (exit 3)."""
    pytest.importorskip("uvicorn", reason="grove serve needs the serve extra")
    import socket

    assert grove(capsys, "serve", "keys", "add", "laptop")[0] == 0
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        code, _, err = grove(capsys, "serve", "--port", str(port))
    assert code in (1, 2) and err.startswith("grove: ") and "in use" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
