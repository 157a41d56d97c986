"""Real mail servers for tests on 127.0.0.1: Debian's dovecot (IMAP, its own config and Maildir in a temp dir,
restartable on the same port to drop connections) and aiosmtpd (SMTP) keeping every message it is given."""

from __future__ import annotations

import contextlib
import email.policy
import imaplib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from typing import Any

from tests.gateway.fakes.ircd import free_port
from tests.gateway.fakes.waiting import wait_for_port, wait_until

DOVECOT = shutil.which("dovecot") or "/usr/sbin/dovecot"
CONFIG = """base_dir = {d}/run
state_dir = {d}/state
log_path = {d}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
first_valid_uid = 0
default_login_user = nobody
default_internal_user = nobody
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {d}/passwd
}}
userdb {{
  driver = static
  args = uid=nobody gid=nogroup home={d}/mail/%u
}}
mail_location = maildir:{d}/mail/%u/Maildir
service imap-login {{
  chroot =
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
}}
service anvil {{
  chroot =
}}
"""


class Dovecot:
    def __init__(self, user: str, password: str) -> None:
        # its own folder, not pytest's (0700 there): dovecot's auth and mail processes run as 'nobody'
        folder = Path(tempfile.mkdtemp(prefix="grove-dovecot-"))
        self.folder, self.user, self.password = folder, user, password
        (folder / "mail").mkdir(parents=True)
        for p in (folder, folder / "mail"):
            p.chmod(0o777)
        self.port = free_port()
        (folder / "dovecot.conf").write_text(CONFIG.format(d=folder, port=self.port))
        (folder / "passwd").write_text(f"{user}:{{PLAIN}}{password}\n")
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"imap://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [DOVECOT, "-F", "-c", str(self.folder / "dovecot.conf")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its own process group: stop() ends the imap children too
        )
        wait_for_port(self.port, "dovecot")

    def stop(self) -> None:
        """Kill the server and every connection's process at once: the clients' links drop."""
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)
            self.proc = None

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def deliver(self, msg: EmailMessage) -> None:
        """Put a message into the mailbox, as the mail server's delivery would (IMAP APPEND, unseen)."""
        box = imaplib.IMAP4("127.0.0.1", self.port, timeout=10)
        box.login(self.user, self.password)
        box.append("INBOX", "", imaplib.Time2Internaldate(time.time()), msg.as_bytes())
        box.logout()

    def unseen(self) -> int:
        box = imaplib.IMAP4("127.0.0.1", self.port, timeout=10)
        box.login(self.user, self.password)
        box.select("INBOX")
        found = box.uid("SEARCH", None, "UNSEEN")[1][0].split()
        box.logout()
        return len(found)


class Outbox:
    """aiosmtpd on 127.0.0.1: every message grove sends, parsed."""

    def __init__(self) -> None:
        from aiosmtpd.controller import Controller

        self.messages: list[EmailMessage] = []
        self.cond = threading.Condition()
        outbox = self

        class Handler:
            async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
                msg = BytesParser(policy=email.policy.default).parsebytes(envelope.content)
                with outbox.cond:
                    outbox.messages.append(msg)  # type: ignore[arg-type]
                    outbox.cond.notify_all()
                return "250 OK"

        self.port = free_port()
        self.controller = Controller(Handler(), hostname="127.0.0.1", port=self.port)

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"

    def __enter__(self) -> Outbox:
        self.controller.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.controller.stop()

    def wait(self, count: int, timeout: float = 15.0) -> list[EmailMessage]:
        (sent,) = wait_until(
            self.cond,
            lambda: [list(self.messages)] if len(self.messages) >= count else [],
            lambda: f"only {len(self.messages)} mail(s) sent: {[m['Subject'] for m in self.messages]}",
            timeout,
        )
        return sent


def mail(sender: str, to: str, subject: str, text: str, **headers: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, to, subject
    msg["Message-ID"] = f"<{time.time_ns()}@{sender.partition('@')[2]}>"
    for key, value in headers.items():
        msg[key.replace("_", "-")] = value
    msg.set_content(text)
    return msg


def can_run_dovecot() -> bool:
    return os.path.exists(DOVECOT) and os.geteuid() == 0  # it switches to 'nobody' for the mailboxes
