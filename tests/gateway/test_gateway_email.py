"""Email against real servers on 127.0.0.1 (dovecot for IMAP, aiosmtpd for SMTP): a conversation answered in
the thread, an attachment in and a file out, an approval by reply, a stranger given a pairing code, and the
gateway back after the IMAP server restarts, each mail answered once."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("aiosmtpd", reason="aiosmtpd (the dev extra) is not installed")

from tests.gateway.fakes.mailserver import Dovecot, Outbox, can_run_dovecot, mail
from tests.gateway.fakes.runner import running
from tests.gateway.helpers import call, gateway_on, outside_folder, published

from grove.gateway.core import Gateway
from grove.gateway.mail import EmailAdapter, fresh_text
from grove.llm.script import ScriptModel

pytestmark = pytest.mark.skipif(not can_run_dovecot(), reason="dovecot-imapd is not installed (or not root)")
GROVE, ADA, EVE = "grove@grove.test", "ada@example.org", "eve@example.org"


@pytest.fixture
def servers(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Dovecot, Outbox]]:
    monkeypatch.setenv("EMAIL_PASSWORD", "pw")
    imap = Dovecot(GROVE, "pw")
    imap.start()
    try:
        with Outbox() as smtp:
            yield imap, smtp
    finally:
        imap.remove()


def gateway_for(servers: tuple[Dovecot, Outbox], tmp_path: Path, model: ScriptModel) -> Gateway:
    imap, smtp = servers
    options = {"address": GROVE, "imap": imap.url, "smtp": smtp.url, "poll_seconds": 0.1, "smtp_login": False}
    return gateway_on(
        EmailAdapter,
        tmp_path,
        model,
        owners=[ADA],
        options=options,
    )


def test_a_thread_with_files_and_an_approval_by_reply(
    servers: tuple[Dovecot, Outbox], tmp_path: Path
) -> None:
    imap, smtp = servers
    outside = outside_folder(tmp_path)
    model = ScriptModel(
        [
            {"text": "Hello Ada."},
            call("write_file", path="sum.txt", content="3\n"),
            {"text": "The sum is attached."},
            call("write_file", path="../../../outside/x.txt", content="ok\n"),
            {"text": "Written outside."},
        ]
    )
    with running(gateway_for(servers, tmp_path, model)):
        first = mail(ADA, GROVE, "Question", "Hi grove")
        imap.deliver(first)
        reply = smtp.wait(1)[0]
        assert (
            reply["To"] == ADA
            and reply["Subject"] == "Re: Question"
            and reply["In-Reply-To"] == first["Message-ID"]
        )
        assert reply["Auto-Submitted"] == "auto-replied" and reply.get_content().strip() == "Hello Ada."

        numbers = mail(ADA, GROVE, "Re: Question", "Sum these\n\nOn Monday Ada wrote:\n> Hi grove")
        numbers.add_attachment(b"1\n2\n", maintype="text", subtype="csv", filename="n.csv")
        imap.deliver(numbers)
        sent = smtp.wait(3)
        attached = [p for m in sent for p in m.iter_attachments()]
        assert [(p.get_filename(), p.get_content()) for p in attached] == [("sum.txt", "3\n")]
        assert (
            tmp_path / "chats" / "email" / "ada_example.org" / "inbox" / "n.csv"
        ).read_bytes() == b"1\n2\n"
        assert "the user sent a file" in str(model.requests[1][0][-1]["content"])
        assert "Sum these" in str(model.requests[1][0][-1]["content"])
        assert "Hi grove" not in str(model.requests[1][0][-1]["content"])  # the quote is left out

        imap.deliver(mail(ADA, GROVE, "Re: Question", "write outside please"))
        question = smtp.wait(4)[3].get_content()
        assert "Reply once, session or deny" in question and not (outside / "x.txt").exists()
        imap.deliver(mail(ADA, GROVE, "Re: Question", "once\n\n> " + question.replace("\n", "\n> ")))
        texts = [m.get_body(("plain",)).get_content().strip() for m in smtp.wait(6)]
        assert "Allowed once." in texts and texts[-1] == "Written outside."
    assert (outside / "x.txt").read_text() == "ok\n"


def test_strangers_robots_and_a_restarted_server(servers: tuple[Dovecot, Outbox], tmp_path: Path) -> None:
    imap, smtp = servers
    model = ScriptModel([{"text": "one"}, {"text": "two"}])
    gateway = gateway_for(servers, tmp_path, model)
    with running(gateway):
        imap.deliver(mail(EVE, GROVE, "hi", "let me in"))
        refusal = smtp.wait(1)[0]
        assert refusal["To"] == EVE and "pairing code" in refusal.get_content()
        imap.deliver(
            mail(ADA, GROVE, "Out of office", "away", Auto_Submitted="auto-replied")
        )  # a robot: no turn
        imap.deliver(mail(ADA, GROVE, "first", "first"))
        smtp.wait(2)
        imap.stop()  # the IMAP server goes away and comes back
        imap.start()
        adapter = gateway.adapter
        assert isinstance(adapter, EmailAdapter)
        deadline = time.monotonic() + 15
        while not (adapter.connected and adapter.backoff.reconnects >= 1):
            assert time.monotonic() < deadline, "grove did not reconnect to IMAP"
            time.sleep(0.02)
        imap.deliver(mail(ADA, GROVE, "second", "second"))
        smtp.wait(3)
        time.sleep(0.4)  # several polls: nothing is answered twice
        assert published(gateway) == "connected"  # as the dashboard shows it
    assert published(gateway) == "stopped"
    assert [m["To"] for m in smtp.messages] == [EVE, ADA, ADA] and model.calls == 2
    assert imap.unseen() == 0


def test_the_fresh_part_of_a_reply() -> None:
    assert fresh_text("yes\r\nthanks\r\n\r\nOn Tue, Ada wrote:\r\n> old") == "yes\nthanks"
    assert fresh_text("deny\n-----Original Message-----\nold") == "deny"
