"""Email: mail in by IMAP (polled; unseen messages, marked seen once taken), answers out by SMTP as replies in the
same thread, attachments both ways, approvals by replying once / session / deny. Python's own imaplib, smtplib
and email run in worker threads. The account is the sender's address (trust it only behind a server that checks
SPF/DKIM/DMARC, or set `options.require_auth: true` to need its Authentication-Results pass)."""

from __future__ import annotations

import asyncio
import contextlib
import email.policy
import email.utils
import imaplib
import logging
import mimetypes
import re
import smtplib
import ssl
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlparse

from grove.gateway.adapter import (
    Choice,
    GatewayError,
    InboundFile,
    Incoming,
    OnButton,
    OnMessage,
    PlatformAdapter,
)
from grove.gateway.backoff import Backoff

log = logging.getLogger("grove.gateway")
QUOTE_START = re.compile(r"^(>|On .+wrote:\s*$|-----Original Message-----|_{5,})")
MAX_FETCH = 20  # messages taken per poll: a flooded inbox is worked through, not swallowed at once


def fresh_text(body: str) -> str:
    """What the sender wrote in a reply: the lines above the quoted message."""
    lines: list[str] = []
    for line in body.replace("\r\n", "\n").split("\n"):
        if QUOTE_START.match(line.strip()):
            break
        lines.append(line)
    return "\n".join(lines).strip()


def _endpoint(url: str | None, what: str, plain: int, tls: int) -> tuple[str, int, bool]:
    parsed = urlparse(url or "")
    if parsed.scheme not in (what, what + "s") or not parsed.hostname:
        raise GatewayError(
            f"email: options.{what} must look like {what}://HOST:PORT or {what}s://HOST:PORT, not {url!r} "
            f"(grove config set gateway.email.options.{what} {what}s://mail.example.org)"
        )
    secure = parsed.scheme.endswith("s")
    return parsed.hostname, parsed.port or (tls if secure else plain), secure


class EmailAdapter(PlatformAdapter):
    name = "email"
    max_text = 100_000
    token_env = "EMAIL_PASSWORD"
    buttons = False

    def __init__(self, config: Any) -> None:
        super().__init__(config)
        options = config.options or {}
        self.address = str(options.get("address") or "")
        self.username = str(options.get("username") or self.address)
        self.imap_url, self.smtp_url = options.get("imap"), options.get("smtp")
        self.starttls = bool(options.get("starttls", False))
        self.poll = float(options.get("poll_seconds") or 30.0)
        self.folder = str(options.get("folder") or "INBOX")
        self.require_auth = bool(options.get("require_auth", False))
        self.backoff = Backoff(link=self.link)
        self.threads: dict[str, tuple[str, str]] = {}  # chat -> (subject, message id) of its last mail
        self._stop: asyncio.Event | None = None
        self.connected = False

    def check(self) -> None:
        self.secret()
        if not self.address:
            raise GatewayError("email: set gateway.email.options.address to grove's own address")
        _endpoint(self.imap_url, "imap", 143, 993)
        _endpoint(self.smtp_url, "smtp", 587, 465)

    async def open(self) -> None:
        self.check()

    async def close(self) -> None:
        return None

    async def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    # -- receiving ---------------------------------------------------------------------------------------------
    def _login(self) -> imaplib.IMAP4:
        host, port, secure = _endpoint(self.imap_url, "imap", 143, 993)
        box = imaplib.IMAP4_SSL(host, port, timeout=30) if secure else imaplib.IMAP4(host, port, timeout=30)
        if not secure and self.starttls:
            box.starttls(ssl.create_default_context())
        box.login(self.username, self.secret())
        status, _ = box.select(self.folder)
        if status != "OK":
            raise GatewayError(f"email: cannot open the folder {self.folder!r}")
        return box

    def _take(self, box: imaplib.IMAP4) -> list[tuple[bytes, bytes]]:
        """(uid, raw message) of unseen mail; each is marked seen as it is taken."""
        # imaplib takes None (no charset) and bytes uids; typeshed's signature says str alone
        status, data = box.uid("SEARCH", None, "UNSEEN")  # pyright: ignore[reportArgumentType]
        if status != "OK":
            raise imaplib.IMAP4.abort("SEARCH failed")
        taken = []
        for uid in (data[0] or b"").split()[:MAX_FETCH]:
            status, parts = box.uid("FETCH", uid, "(BODY.PEEK[])")  # pyright: ignore[reportArgumentType]
            raw = next((p[1] for p in parts if isinstance(p, tuple)), None)
            if status != "OK" or raw is None:
                continue
            box.uid("STORE", uid, "+FLAGS", "(\\Seen)")  # pyright: ignore[reportArgumentType]
            taken.append((uid, raw))
        return taken

    async def connect(self, on_message: OnMessage, on_button: OnButton) -> None:
        self._stop = asyncio.Event()
        while not self._stop.is_set():
            box: imaplib.IMAP4 | None = None
            lost: Exception | None = None
            try:
                box = await asyncio.to_thread(self._login)
                self.connected = True
                self.backoff.reset()
                while not self._stop.is_set():
                    for uid, raw in await asyncio.to_thread(self._take, box):
                        incoming = self._incoming(uid, raw)
                        if incoming is not None:
                            await on_message(incoming)
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(self.poll):
                            await self._stop.wait()
            except (OSError, imaplib.IMAP4.error, EOFError) as exc:
                log.warning("email: IMAP connection lost (%s); reconnecting", exc)
                lost = exc
            finally:
                self.connected = False
                if box is not None:
                    with contextlib.suppress(Exception):
                        await asyncio.to_thread(box.logout)
            if self._stop.is_set() or await self.backoff.wait(self._stop, lost):
                break

    def _incoming(self, uid: bytes, raw: bytes) -> Incoming | None:
        msg = BytesParser(policy=email.policy.default).parsebytes(raw)
        _, sender = email.utils.parseaddr(str(msg.get("From", "")))
        sender = sender.lower()
        if not sender or sender == self.address.lower() or msg.get("Auto-Submitted", "no") != "no":
            return None  # our own mail, bounces and auto-replies never start a turn (no mail loops)
        if self.require_auth and not re.search(
            r"\b(dmarc|dkim)=pass\b", str(msg.get("Authentication-Results", ""))
        ):
            log.warning("email: dropped mail from %s without a passing Authentication-Results", sender)
            return None
        message_id = str(msg.get("Message-ID", "")).strip()
        self.threads[sender] = (str(msg.get("Subject", "")), message_id)
        body = msg.get_body(preferencelist=("plain", "html"))
        text = fresh_text(body.get_content() if body is not None else "")
        files = []
        for part in msg.iter_attachments():
            # decode=True: an attachment's bytes (None for a multipart one)
            data = cast(bytes | None, part.get_payload(decode=True)) or b""
            files.append(InboundFile(part.get_filename() or "attachment", _const(data), len(data)))
        return Incoming(
            chat_id=sender,
            user_id=sender,
            user_name=str(msg.get("From", "")),
            text=text,
            files=files,
            message_id=message_id or f"uid:{uid.decode()}",
        )

    # -- sending -----------------------------------------------------------------------------------------------
    def _compose(self, chat_id: str, text: str, attachment: Path | None = None) -> EmailMessage:
        subject, parent = self.threads.get(chat_id, ("", ""))
        msg = EmailMessage()
        msg["From"], msg["To"] = self.address, chat_id
        msg["Subject"] = subject if subject.lower().startswith("re:") else f"Re: {subject or 'grove'}"
        msg["Message-ID"] = email.utils.make_msgid(domain=self.address.partition("@")[2] or None)
        msg["Auto-Submitted"] = "auto-replied"  # RFC 3834: other robots do not answer grove's answers
        if parent:
            msg["In-Reply-To"], msg["References"] = parent, parent
        msg.set_content(text)
        if attachment is not None:
            kind = mimetypes.guess_type(attachment.name)[0] or "application/octet-stream"
            main, _, sub = kind.partition("/")
            msg.add_attachment(attachment.read_bytes(), maintype=main, subtype=sub, filename=attachment.name)
        return msg

    def _smtp_send(self, msg: EmailMessage) -> None:
        host, port, secure = _endpoint(self.smtp_url, "smtp", 587, 465)
        client = smtplib.SMTP_SSL(host, port, timeout=30) if secure else smtplib.SMTP(host, port, timeout=30)
        with client:
            if not secure and self.starttls:
                client.starttls(context=ssl.create_default_context())
            if self.options_login():
                client.login(self.username, self.secret())
            client.send_message(msg)

    def options_login(self) -> bool:
        return bool((self.config.options or {}).get("smtp_login", True))

    async def _send(self, msg: EmailMessage) -> None:
        backoff = Backoff(first=0.2, ceiling=10.0)
        never = asyncio.Event()
        for attempt in range(1, 5):
            try:
                await asyncio.to_thread(self._smtp_send, msg)
                return
            except smtplib.SMTPRecipientsRefused as exc:
                raise GatewayError(f"email: the server refused the address: {exc}") from exc
            except (OSError, smtplib.SMTPException) as exc:
                log.warning("email: sending failed (%s), try %d of 4", exc, attempt)
                self.backoff.reconnects += 1
                if attempt < 4:
                    await backoff.wait(never)
        raise GatewayError(f"email: could not send to {msg['To']} through {self.smtp_url}")

    async def send_text(self, chat_id: str, text: str) -> None:
        await self._send(self._compose(chat_id, text))

    async def send_file(self, chat_id: str, path: Path) -> None:
        await self._send(self._compose(chat_id, f"grove wrote {path.name} (attached).", path))

    async def ask(self, chat_id: str, text: str, choices: list[Choice]) -> None:
        await self.send_text(chat_id, text)

    async def typing(self, chat_id: str) -> None:
        return None


def _const(data: bytes) -> Any:
    async def fetch() -> bytes:
        return data

    return fetch
