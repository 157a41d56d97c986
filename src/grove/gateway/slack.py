"""Slack through slack-bolt: Socket Mode when SLACK_APP_TOKEN is set, else signed HTTP events on
`gateway.slack.host:port`; Block Kit buttons for approvals, files in (only from Slack's own hosts) and out.
Slack has no typing indicator for bots, so `typing` does nothing."""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from grove.gateway.adapter import Choice, InboundFile, Incoming, OnButton, OnMessage, PlatformAdapter

MENTION = re.compile(r"<@[A-Z0-9]+>\s*")
SLACK_FILE_HOSTS = ("files.slack.com", "slack-files.com")


class SlackAdapter(PlatformAdapter):
    name = "slack"
    max_text = 40_000  # chat.postMessage truncates text beyond this
    token_env = "SLACK_BOT_TOKEN"
    secret_env = "SLACK_SIGNING_SECRET"
    app_token_env = "SLACK_APP_TOKEN"

    client: Any = None
    port: int | None = None  # the HTTP events port actually bound (config port 0 = any free one)
    _stop: asyncio.Event | None = None

    def _client(self) -> Any:
        from slack_sdk.web.async_client import AsyncWebClient

        base = self.config.base_url
        kwargs: dict[str, Any] = {"base_url": base.rstrip("/") + "/api/"} if base else {}
        return AsyncWebClient(token=self.secret(), **kwargs)

    def check(self) -> None:
        self.secret()
        if not os.environ.get(self.app_token_env):
            self.secret("secret")  # HTTP events mode verifies every request with the signing secret

    async def open(self) -> None:
        self.client = self._client()

    async def close(self) -> None:
        self.client = None

    async def connect(self, on_message: OnMessage, on_button: OnButton) -> None:
        from slack_bolt.async_app import AsyncApp

        self.client = self._client()
        app_token = os.environ.get(self.app_token_env, "")
        # Socket Mode needs no signing secret (the websocket is the app's own); HTTP events are verified with it
        app = AsyncApp(
            client=self.client,
            signing_secret=None if app_token else self.secret("secret"),
            request_verification_enabled=not app_token,
        )

        async def message(event: dict[str, Any]) -> None:
            if event.get("subtype") not in (None, "file_share") or event.get("bot_id"):
                return  # edits, joins, other bots' posts
            if event.get("type") == "message" and event.get("channel_type") != "im":
                return  # in channels grove answers only when mentioned (app_mention)
            await on_message(
                Incoming(
                    chat_id=event["channel"],
                    user_id=event.get("user", ""),
                    text=MENTION.sub("", event.get("text") or "").strip(),
                    files=[self._inbound(f) for f in event.get("files") or [] if self._fetchable(f)],
                    # a DM mentioning grove comes as `message` and `app_mention`: the same ts, answered once
                    message_id=f"{event['channel']}:{event.get('ts', '')}" if event.get("ts") else "",
                )
            )

        async def press(ack: Any, body: dict[str, Any]) -> None:
            await ack()
            channel = (body.get("channel") or {}).get("id") or (body.get("container") or {}).get(
                "channel_id", ""
            )
            user = body.get("user") or {}
            value = (body.get("actions") or [{}])[0].get("value", "")
            pressed = await on_button(channel, user.get("id", ""), user.get("username", ""), value)
            message = body.get("message") or {}
            if message.get("ts") and pressed.decided:
                text = f"{message.get('text', '')}\n\n→ {pressed.text}"
                await self.client.chat_update(channel=channel, ts=message["ts"], text=text, blocks=[])
            else:
                await self.client.chat_postEphemeral(
                    channel=channel, user=user.get("id", ""), text=pressed.text
                )

        app.event("message")(message)
        app.event("app_mention")(message)
        app.action(re.compile(r"^grove_"))(press)
        self._stop = asyncio.Event()
        if app_token:
            await self._socket_mode(app, app_token)
        else:
            await self._http_events(app)

    async def _socket_mode(self, app: Any, app_token: str) -> None:
        from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

        handler = AsyncSocketModeHandler(app, app_token)
        await handler.connect_async()
        self.link.up()
        assert self._stop is not None
        await self._stop.wait()
        await handler.close_async()

    async def _http_events(self, app: Any) -> None:
        from aiohttp import web
        from slack_bolt.app.async_server import AsyncSlackAppServer

        server = AsyncSlackAppServer(
            port=self.config.port, path="/slack/events", app=app, host=self.config.host
        )
        runner = web.AppRunner(server.web_app)
        await runner.setup()
        site = web.TCPSite(runner, self.config.host, self.config.port)
        await site.start()
        self.port = runner.addresses[0][1]
        self.link.up()
        try:
            assert self._stop is not None
            await self._stop.wait()
        finally:
            await runner.cleanup()

    async def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    def _fetchable(self, info: dict[str, Any]) -> bool:
        """Only Slack's own file hosts (or the configured API host) ever receive the bot token."""
        host = urlparse(info.get("url_private_download") or "").hostname or ""
        base = urlparse(self.config.base_url or "").hostname
        return host in SLACK_FILE_HOSTS or (base is not None and host == base)

    def _inbound(self, info: dict[str, Any]) -> InboundFile:
        url = info["url_private_download"]
        token = self.secret()

        async def fetch() -> bytes:
            import aiohttp

            async with (
                aiohttp.ClientSession() as http,
                http.get(url, headers={"Authorization": f"Bearer {token}"}) as resp,
            ):
                resp.raise_for_status()
                return await resp.read()

        return InboundFile(info.get("name") or info.get("id") or "file", fetch, info.get("size"))

    async def send_text(self, chat_id: str, text: str) -> None:
        await self.client.chat_postMessage(channel=chat_id, text=text)

    async def send_file(self, chat_id: str, path: Path) -> None:
        await self.client.files_upload_v2(channel=chat_id, file=str(path), filename=path.name)

    async def ask(self, chat_id: str, text: str, choices: list[Choice]) -> None:
        buttons = [
            {
                "type": "button",
                "action_id": f"grove_{i}",
                "text": {"type": "plain_text", "text": c.label},
                "value": c.data,
                **({"style": "danger"} if c.data.endswith(":deny") else {}),
            }
            for i, c in enumerate(choices)
        ]
        blocks = [
            {"type": "section", "text": {"type": "plain_text", "text": text[:2900]}},
            {"type": "actions", "elements": buttons},
        ]
        await self.client.chat_postMessage(channel=chat_id, text=text, blocks=blocks)

    async def typing(self, chat_id: str) -> None:
        return None
