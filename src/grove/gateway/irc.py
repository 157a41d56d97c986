"""IRC (RFC 1459/2812 over asyncio streams; the protocol is a line format no SDK makes simpler): direct messages,
and channel lines addressed "grove: ..."; approvals by typed answer (IRC has no buttons or files). An account is
the network's services account when the server tags messages with it (IRCv3 account-tag), else `user@host`,
never the nick (anyone can take a free nick). Reconnects with backoff; a dead link is found by PING."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import ssl
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from grove.gateway.adapter import Choice, GatewayError, Incoming, OnButton, OnMessage, PlatformAdapter
from grove.gateway.backoff import Backoff

log = logging.getLogger("grove.gateway")
LINE_BYTES = 400  # a PRIVMSG's text; the whole line, with the sender's prefix, must fit in 512 bytes
IDLE = 90.0  # seconds without a line before grove PINGs the server; as long again without an answer = dead


def parse(line: str) -> tuple[dict[str, str], str, str, list[str]]:
    """An IRC line -> (IRCv3 tags, prefix, command, params); the last param may hold spaces."""
    tags: dict[str, str] = {}
    if line.startswith("@"):
        raw, _, line = line[1:].partition(" ")
        for item in raw.split(";"):
            key, _, value = item.partition("=")
            tags[key] = value
    prefix = ""
    if line.startswith(":"):
        prefix, _, line = line[1:].partition(" ")
    head, sep, trailing = line.partition(" :")
    params = head.split()
    command = params.pop(0).upper() if params else ""
    if sep:
        params.append(trailing)
    return tags, prefix, command, params


def byte_pieces(text: str, limit: int = LINE_BYTES) -> list[str]:
    """Lines of `text` cut to at most `limit` UTF-8 bytes each (never inside a character); empty lines dropped."""
    out: list[str] = []
    for line in text.replace("\r", "").split("\n"):
        while line.encode()[:limit] != line.encode():
            cut = len(line.encode()[:limit].decode(errors="ignore"))
            space = line.rfind(" ", 0, cut)
            cut = space if space > cut // 2 else cut
            out.append(line[:cut])
            line = line[cut:].lstrip(" ")
        if line.strip():
            out.append(line)
    return out


class IrcAdapter(PlatformAdapter):
    name = "irc"
    max_text = 3000  # one answer; each line of it goes out as its own PRIVMSG of at most LINE_BYTES
    token_env = "IRC_PASSWORD"  # the server password (PASS), if the network wants one
    buttons = False

    def __init__(self, config: Any) -> None:
        super().__init__(config)
        url = urlparse(config.base_url or "irc://127.0.0.1:6667")
        if url.scheme not in ("irc", "ircs") or not url.hostname:
            raise GatewayError(
                f"irc: base_url {config.base_url!r} must look like irc://HOST:PORT or ircs://HOST:PORT"
            )
        self.host, self.tls = url.hostname, url.scheme == "ircs"
        self.port = url.port or (6697 if self.tls else 6667)
        options = config.options or {}
        self.nick: str = str(options.get("nick") or "grove")
        self.channels: list[str] = [str(c) for c in options.get("channels") or []]
        # servers throttle or cut off a flooding client: a burst of lines, then this many a second
        self.per_second = float(options.get("lines_per_second") or 2.0)
        self.burst = float(options.get("burst") or 8)
        self._tokens = self.burst
        self.backoff = Backoff(link=self.link)
        self.writer: asyncio.StreamWriter | None = None
        self.ready = asyncio.Event()  # registered (001 received) on the current connection
        self._stop: asyncio.Event | None = None
        self._last_send = 0.0  # event loop time the token bucket was last filled

    def check(self) -> None:
        return None  # the password is optional

    # -- connection --------------------------------------------------------------------------------------------
    async def _dial(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        context = ssl.create_default_context() if self.tls else None
        async with asyncio.timeout(15):
            reader, writer = await asyncio.open_connection(self.host, self.port, ssl=context)
        password = os.environ.get(self.config.token_env or self.token_env)
        self.writer, self.ready = writer, asyncio.Event()
        await self._raw("CAP LS 302")
        if password:
            await self._raw(f"PASS {password}")
        await self._raw(f"NICK {self.nick}")
        await self._raw(f"USER {self.nick} 0 * :grove")
        return reader, writer

    async def open(self) -> None:
        reader, _ = await self._dial()
        self._reader_task = asyncio.get_running_loop().create_task(self._read(reader, None))
        async with asyncio.timeout(15):
            await self.ready.wait()

    async def close(self) -> None:
        writer, self.writer = self.writer, None
        if writer is not None:
            with contextlib.suppress(Exception):
                writer.write(b"QUIT :bye\r\n")
                async with asyncio.timeout(2):
                    await writer.drain()
            writer.close()
        task = getattr(self, "_reader_task", None)
        if task is not None:
            task.cancel()

    async def connect(self, on_message: OnMessage, on_button: OnButton) -> None:
        self._stop = asyncio.Event()
        while not self._stop.is_set():
            lost: BaseException | None = None
            try:
                reader, _ = await self._dial()
                reading = asyncio.get_running_loop().create_task(self._read(reader, on_message))
                stopping = asyncio.get_running_loop().create_task(self._stop.wait())
                await asyncio.wait({reading, stopping}, return_when=asyncio.FIRST_COMPLETED)
                stopping.cancel()
                if reading.done():
                    error = reading.exception() or ConnectionError("the server closed the connection")
                    if not self._stop.is_set():
                        raise error
                else:
                    reading.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await reading
            except (OSError, TimeoutError, ConnectionError, asyncio.IncompleteReadError) as exc:
                log.warning("irc: connection to %s:%s lost (%s); reconnecting", self.host, self.port, exc)
                lost = exc
            finally:
                if self._stop.is_set():
                    await self.close()
                else:
                    self._drop()
            if self._stop.is_set() or await self.backoff.wait(self._stop, lost):
                break

    def _drop(self) -> None:
        writer, self.writer = self.writer, None
        self.ready = asyncio.Event()  # not registered any more: senders wait for the next link
        if writer is not None:
            writer.close()

    async def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    async def _read(self, reader: asyncio.StreamReader, on_message: OnMessage | None) -> None:
        pinged = False
        while True:
            try:
                # asyncio.timeout, not wait_for: 3.11's wait_for swallows a cancel that races a line arriving,
                # and the stop would then hang on this read
                async with asyncio.timeout(IDLE):
                    raw = await reader.readline()
            except TimeoutError:
                if pinged:
                    raise ConnectionError("no answer to PING") from None
                await self._raw(f"PING :{self.nick}")
                pinged = True
                continue
            if not raw:
                raise ConnectionError("the server closed the connection")
            pinged = False
            await self._line(raw.decode(errors="replace").rstrip("\r\n"), on_message)

    async def _line(self, line: str, on_message: OnMessage | None) -> None:
        tags, prefix, command, params = parse(line)
        if command == "PING":
            await self._raw(f"PONG :{params[-1] if params else ''}")
        elif command == "CAP" and len(params) >= 3 and params[1] == "LS":
            offered = params[-1].split()
            if "account-tag" in offered:
                await self._raw("CAP REQ :account-tag")
            else:
                await self._raw("CAP END")
        elif command == "CAP" and len(params) >= 2 and params[1] in ("ACK", "NAK"):
            await self._raw("CAP END")
        elif command == "433":  # nick in use: take another, keep going
            self.nick += "_"
            await self._raw(f"NICK {self.nick}")
        elif command == "001":
            self.nick = params[0] if params else self.nick
            for channel in self.channels:
                await self._raw(f"JOIN {channel}")
            self.ready.set()
            self.backoff.reset()
        elif command == "PRIVMSG" and on_message is not None and len(params) >= 2:
            await self._privmsg(tags, prefix, params[0], params[1], on_message)

    async def _privmsg(
        self, tags: dict[str, str], prefix: str, target: str, text: str, on_message: OnMessage
    ) -> None:
        nick, _, mask = prefix.partition("!")
        if not mask or nick == self.nick or text.startswith("\x01"):  # servers, ourselves, CTCP
            return
        if target.lower() == self.nick.lower():
            chat = nick
        else:
            lead = text.split(maxsplit=1)
            if not lead or lead[0].rstrip(":,").lower() != self.nick.lower():
                return  # in a channel grove answers only lines addressed to it
            chat, text = target, (lead[1] if len(lead) > 1 else "")
        account = tags.get("account")
        await on_message(
            Incoming(
                chat_id=chat,
                user_id=f"account:{account}" if account else mask,
                user_name=nick,
                text=text,
                message_id=tags.get("msgid", ""),
            )
        )

    async def _raw(self, line: str) -> None:
        if self.writer is None:
            raise ConnectionError("not connected")
        self.writer.write(line.encode()[:510] + b"\r\n")
        await self.writer.drain()

    # -- sending -----------------------------------------------------------------------------------------------
    async def _connected(self) -> None:
        """Wait (up to 30 s) for a link that is up: an answer finished during a reconnect still goes out."""
        for _ in range(300):
            if self.writer is not None and self.ready.is_set():
                return
            if self._stop is not None and self._stop.is_set():
                break  # stopping: nothing waits for a link that will not come
            await asyncio.sleep(0.1)
        raise GatewayError(f"irc: not connected to {self.host}:{self.port}")

    async def send_text(self, chat_id: str, text: str) -> None:
        loop = asyncio.get_running_loop()
        for piece in byte_pieces(text):
            await self._connected()
            now = loop.time()
            self._tokens = min(self.burst, self._tokens + (now - self._last_send) * self.per_second)
            self._last_send = now
            if self._tokens < 1:
                await asyncio.sleep((1 - self._tokens) / self.per_second)
                self._tokens = 1.0
            self._tokens -= 1
            await self._raw(f"PRIVMSG {chat_id} :{piece}")

    async def send_file(self, chat_id: str, path: Path) -> None:
        size = path.stat().st_size
        await self.send_text(chat_id, f"(grove wrote {path.name}, {size} bytes: IRC carries no files)")

    async def ask(self, chat_id: str, text: str, choices: list[Choice]) -> None:
        await self.send_text(chat_id, text)

    async def typing(self, chat_id: str) -> None:
        return None
