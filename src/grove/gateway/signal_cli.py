"""Signal through signal-cli's HTTP daemon (`signal-cli -a NUMBER daemon --http 127.0.0.1:8080`), by its JSON-RPC
wire format with httpx: received messages from the server-sent events at /api/v1/events, `send`, `sendTyping`
and `getAttachment` at /api/v1/rpc; attachments out as data URIs; approvals by typed answer (Signal has no
buttons). The account is the sender's ACI uuid, not the phone number (numbers change hands). A dropped event
stream is reopened with backoff; each message (sender + timestamp) is answered once."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import logging
import mimetypes
from pathlib import Path
from typing import Any
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
GROUP = "group:"  # a chat id for a group: group:<base64 group id>


class SignalAdapter(PlatformAdapter):
    name = "signal"
    max_text = 2000  # Signal cuts longer bodies into a "read more" attachment; shorter messages read better
    token_env = "SIGNAL_CLI_TOKEN"  # only if a proxy in front of the daemon wants a bearer token
    buttons = False

    def __init__(self, config: Any) -> None:
        super().__init__(config)
        self.base = (config.base_url or "http://127.0.0.1:8080").rstrip("/")
        options = config.options or {}
        self.account = str(options.get("account") or "")  # grove's number, for a daemon with several accounts
        self.names = {
            str(n).lower() for n in options.get("names") or ["grove"]
        }  # how a group addresses grove
        self.backoff = Backoff(link=self.link)
        self.ids = itertools.count(1)
        self.http: Any = None
        self.connected = asyncio.Event()
        self._stop: asyncio.Event | None = None

    def check(self) -> None:
        if urlparse(self.base).scheme not in ("http", "https"):
            raise GatewayError("signal: gateway.signal.base_url must be the daemon's http://HOST:PORT")

    async def open(self) -> None:
        import os

        import httpx

        if self.http is None:
            token = os.environ.get(self.config.token_env or self.token_env)
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            self.http = httpx.AsyncClient(
                base_url=self.base, headers=headers, timeout=httpx.Timeout(30, read=None)
            )

    async def close(self) -> None:
        if self.http is not None:
            await self.http.aclose()
            self.http = None

    async def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    async def rpc(self, method: str, **params: Any) -> Any:
        await self.open()
        if self.account:
            params["account"] = self.account
        body = {"jsonrpc": "2.0", "method": method, "params": params, "id": next(self.ids)}
        resp = await self.http.post("/api/v1/rpc", json=body, timeout=60)
        resp.raise_for_status()
        answer = resp.json()
        if answer.get("error"):
            raise GatewayError(f"signal: {method}: {answer['error'].get('message', answer['error'])}")
        return answer.get("result")

    # -- receiving ---------------------------------------------------------------------------------------------
    async def connect(self, on_message: OnMessage, on_button: OnButton) -> None:
        import httpx

        self._stop = asyncio.Event()
        await self.open()
        while not self._stop.is_set():
            reading = asyncio.get_running_loop().create_task(self._events(on_message))
            stopping = asyncio.get_running_loop().create_task(self._stop.wait())
            await asyncio.wait({reading, stopping}, return_when=asyncio.FIRST_COMPLETED)
            stopping.cancel()
            if not reading.done():
                reading.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await reading
                break
            error = reading.exception()
            if error is not None and not isinstance(error, httpx.HTTPError | ConnectionError | GatewayError):
                raise error
            log.warning("signal: the event stream ended (%s); reopening", error or "closed by the daemon")
            self.connected.clear()
            if await self.backoff.wait(self._stop, error or "the daemon closed the event stream"):
                break

    async def _events(self, on_message: OnMessage) -> None:
        params = {"account": self.account} if self.account else {}
        async with self.http.stream("GET", "/api/v1/events", params=params) as resp:
            resp.raise_for_status()
            self.connected.set()
            self.backoff.reset()
            data: list[str] = []
            async for line in resp.aiter_lines():
                if line.startswith("data:"):
                    data.append(line[5:].strip())
                elif not line and data:  # an SSE event ends at a blank line
                    await self._event("\n".join(data), on_message)
                    data = []
        raise ConnectionError("the daemon closed the event stream")

    async def _event(self, raw: str, on_message: OnMessage) -> None:
        try:
            event = json.loads(raw)
        except ValueError:
            return
        params = event.get("params", event) if event.get("method", "receive") == "receive" else {}
        envelope = params.get("envelope") or {}
        message = envelope.get("dataMessage") or {}
        sender = str(envelope.get("sourceUuid") or "")
        if not sender or not message:
            return  # receipts, typing, sync messages
        text = str(message.get("message") or "")
        group = (message.get("groupInfo") or {}).get("groupId")
        chat = f"{GROUP}{group}" if group else sender
        if group:
            first, _, rest = text.partition(" ")
            if first.rstrip(":,").lower() not in self.names:
                return  # in groups grove answers only lines addressed to it
            text = rest.strip()
        files = [self._inbound(a, sender, group) for a in message.get("attachments") or [] if a.get("id")]
        await on_message(
            Incoming(
                chat_id=chat,
                user_id=sender,
                user_name=str(envelope.get("sourceName") or ""),
                text=text,
                files=files,
                message_id=f"{sender}:{envelope.get('timestamp', '')}",
            )
        )

    def _inbound(self, item: dict[str, Any], sender: str, group: str | None) -> InboundFile:
        async def fetch() -> bytes:
            where = {"groupId": group} if group else {"recipient": sender}
            result = await self.rpc("getAttachment", id=item["id"], **where)
            blob = result.get("data") if isinstance(result, dict) else result
            return base64.b64decode(str(blob or ""))

        name = str(item.get("filename") or item["id"])
        return InboundFile(name, fetch, item.get("size"))

    # -- sending -----------------------------------------------------------------------------------------------
    @staticmethod
    def _target(chat_id: str) -> dict[str, Any]:
        if chat_id.startswith(GROUP):
            return {"groupId": chat_id[len(GROUP) :]}
        return {"recipient": [chat_id]}

    async def send_text(self, chat_id: str, text: str) -> None:
        await self.rpc("send", message=text, **self._target(chat_id))

    async def send_file(self, chat_id: str, path: Path) -> None:
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        data = base64.b64encode(path.read_bytes()).decode()
        uri = f"data:{kind};filename={path.name};base64,{data}"
        await self.rpc("send", message="", attachments=[uri], **self._target(chat_id))

    async def ask(self, chat_id: str, text: str, choices: list[Choice]) -> None:
        await self.send_text(chat_id, text)

    async def typing(self, chat_id: str) -> None:
        await self.rpc("sendTyping", **self._target(chat_id))
