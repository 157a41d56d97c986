"""The caps through the real request path: `grove run` stops with which cap and when it resets (exit 1), a
priced provider's reported usage is what is settled, a key's cap holds only for that key, and concurrent
entrances admit no more than one request past a cap."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import yaml
from tests.fakes.openai_server import FakeOpenAIServer, FakeReply
from typer.testing import CliRunner

from grove.cli.main import build_app
from grove.config import load_settings
from grove.llm.script import ScriptModel
from grove.llm.types import Completion, Usage
from grove.runtime import Profile, Session
from grove.spend.guard import LEDGER_FILE
from grove.spend.ledger import CapReached, Ledger


def _config(home: Path, spend: dict[str, object]) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(yaml.safe_dump({"spend": spend}), encoding="utf-8")


def test_token_cap_stops_a_scripted_run_with_which_cap_and_when(grove_home: Path, tmp_path: Path) -> None:
    _config(grove_home, {"day_tokens": 50})
    script = tmp_path / "s.yaml"
    script.write_text(yaml.safe_dump([{"text": "first answer"}]), encoding="utf-8")
    app = build_app(["run"])
    first = CliRunner().invoke(app, ["run", "-m", f"script:{script}", "-t", "", "hello"])
    assert first.exit_code == 0, first.output
    assert "first answer" in first.output
    second = CliRunner().invoke(app, ["run", "-m", f"script:{script}", "-t", "", "hello again"])
    assert second.exit_code == 1
    assert "daily token cap for 'all' reached" in second.output
    assert "resets " in second.output and "00:00 UTC" in second.output
    assert "spend.day_tokens" in second.output  # how to raise it
    usage = CliRunner().invoke(build_app(["usage"]), ["usage"])
    assert usage.exit_code == 0 and "scope=all" in usage.output and "/50" in usage.output


def test_reported_usage_of_a_priced_model_is_settled_in_dollars(grove_home: Path) -> None:
    _config(grove_home, {"day_usd": 0.0008})
    reply = FakeReply(text="done", usage={"prompt_tokens": 1000, "completion_tokens": 500})
    with FakeOpenAIServer(default=reply) as srv:
        settings = load_settings()
        spec = f"openai-compat:gpt-4o-mini@{srv.url}"
        session = Session.open(settings, Profile(source="cli", model=spec, toolsets=[]))
        try:
            session.run_turn("hi")
            totals = Ledger(grove_home / LEDGER_FILE).totals("all")
            # gpt-4o-mini: $0.15/M in, $0.60/M out -> 1000 and 500 tokens cost $0.00045
            assert abs(totals.day_usd - 0.00045) < 1e-9
            assert totals.day_tokens == 1500
            session.run_turn("again")  # $0.00045 spent: still under $0.0008
            try:
                session.run_turn("and again")
            except CapReached as e:
                assert e.cap == "day_usd" and e.scope == "all"
            else:
                raise AssertionError("the third request passed a $0.0008 cap with $0.0009 spent")
            assert len(srv.requests) == 2, srv.requests  # the capped request was never sent
        finally:
            session.close()


def test_a_serve_keys_cap_holds_for_that_key_only(grove_home: Path) -> None:
    _config(grove_home, {"keys": {"alice": {"day_tokens": 10}}})
    settings = load_settings()

    def run(key: str) -> str:
        profile = Profile(source="api", toolsets=[], model=ScriptModel(["ok"]), spend_scopes=(f"key:{key}",))
        session = Session.open(settings, profile)
        try:
            return session.run_turn("hi").answer
        finally:
            session.close()

    assert run("alice") == "ok"
    try:
        run("alice")
    except CapReached as e:
        assert e.scope == "key:alice" and "spend.keys.alice.day_tokens" in str(e)
    else:
        raise AssertionError("alice's second request passed her cap")
    assert run("bob") == "ok"


def test_concurrent_entrances_through_the_request_path_overshoot_by_at_most_one_request(
    grove_home: Path,
) -> None:
    cap, per_request = 3000, 110
    _config(grove_home, {"day_tokens": cap})
    settings = load_settings()
    admitted: list[int] = []
    lock = threading.Lock()

    def reply(messages: object, tools: object) -> Completion:
        with lock:
            admitted.append(1)
        time.sleep(0.005)  # requests in flight together, as real ones are
        return Completion(text="ok", usage=Usage(prompt_tokens=100, completion_tokens=10))

    def entrance(source: str) -> None:
        session = Session.open(settings, Profile(source=source, toolsets=[], model=ScriptModel(reply)))
        try:
            while True:
                session.run_turn("go")
        except CapReached:
            return
        finally:
            session.close()

    threads = [threading.Thread(target=entrance, args=(s,)) for s in ("cli", "api", "cron", "telegram")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    spent = Ledger(grove_home / LEDGER_FILE).totals("all").day_tokens
    assert spent == per_request * len(admitted)  # every admitted request settled with its reported usage
    assert spent - per_request < cap  # the last admitted one may pass the cap; no earlier one did
    assert spent >= cap - per_request * len(threads)  # and the cap was not refused far too early either
