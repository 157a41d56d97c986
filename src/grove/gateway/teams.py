"""Microsoft Teams through the Bot Framework's documented wire format (aiohttp in, httpx out, PyJWT for tokens):
activities POSTed to /api/messages are accepted only with a Bot Framework JWT (RS256, signed by a key from the
OpenID metadata's JWKS, issuer api.botframework.com, audience = the app id, serviceUrl claim = the activity's);
replies, typing and Adaptive Card buttons (Action.Submit, for approvals) go to the activity's serviceUrl with a
client-credentials token. The account is the user's Entra object id (aadObjectId). 429 and 5xx are retried
after Retry-After; redelivered activities are answered once. Files out go as inline attachments (Teams shows
images so; other files would need the file-consent flow, which grove does not do)."""

from __future__ import annotations

import asyncio
import base64
import logging
import mimetypes
import re
import time
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
from grove.gateway.receiver import receiving

log = logging.getLogger("grove.gateway")
OPENID = "https://login.botframework.com/v1/.well-known/openidconfiguration"
ISSUER = "https://api.botframework.com"
TOKEN_URL = "https://login.microsoftonline.com/botframework.com/oauth2/v2.0/token"
SCOPE = "https://api.botframework.com/.default"
MENTION = re.compile(r"<at>[^<]*</at>")
DOWNLOAD_INFO = "application/vnd.microsoft.teams.file.download.info"


class TeamsAdapter(PlatformAdapter):
    name = "teams"
    max_text = 25_000  # under the 28 KB activity limit
    token_env = "TEAMS_APP_PASSWORD"  # the app registration's client secret

    def __init__(self, config: Any) -> None:
        super().__init__(config)
        options = config.options or {}
        self.app_id = str(options.get("app_id") or "")
        self.openid_url = str(options.get("openid_url") or OPENID)
        self.token_url = str(options.get("token_url") or TOKEN_URL)
        self.port = config.port
        self.backoff = Backoff(first=0.2, ceiling=10.0)
        self.http: Any = None
        self.jwks: Any = None
        self.service: dict[str, str] = {}  # conversation -> its serviceUrl, as a signed activity stated it
        self.token, self.token_until = "", 0.0
        self._stop: asyncio.Event | None = None

    def check(self) -> None:
        self.secret()
        if not self.app_id:
            raise GatewayError("teams: set gateway.teams.options.app_id (the bot's Microsoft app id)")

    async def open(self) -> None:
        import httpx

        if self.http is None:
            self.http = httpx.AsyncClient(timeout=30)

    async def close(self) -> None:
        if self.http is not None:
            await self.http.aclose()
            self.http = None

    async def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    # -- who is calling ----------------------------------------------------------------------------------------
    def _jwk_client(self) -> Any:
        import jwt

        if self.jwks is None:
            import json
            import urllib.request

            with urllib.request.urlopen(self.openid_url, timeout=15) as resp:
                metadata = json.load(resp)
            self.jwks = jwt.PyJWKClient(metadata["jwks_uri"], cache_keys=True, lifespan=86400)
        return self.jwks

    def verify(self, header: str, activity: dict[str, Any]) -> str | None:
        """Why the request is refused, or None when its token is the Bot Framework's, for this bot."""
        import jwt

        if not header.startswith("Bearer "):
            return "no bearer token"
        token = header[7:]
        try:
            key = self._jwk_client().get_signing_key_from_jwt(token)
            claims = jwt.decode(
                token, key.key, algorithms=["RS256"], audience=self.app_id, issuer=ISSUER, leeway=300
            )
        except (jwt.PyJWTError, OSError, ValueError, KeyError) as exc:
            return f"bad token ({type(exc).__name__}: {exc})"
        if claims.get("serviceUrl") and claims["serviceUrl"] != activity.get("serviceUrl"):
            return "the token's serviceUrl is not the activity's"
        return None

    # -- receiving ---------------------------------------------------------------------------------------------
    async def connect(self, on_message: OnMessage, on_button: OnButton) -> None:
        from aiohttp import web

        await self.open()

        async def receive(request: web.Request) -> web.Response:
            try:
                activity = await request.json()
            except ValueError:
                return web.Response(status=400, text="not JSON")
            refused = await asyncio.to_thread(self.verify, request.headers.get("Authorization", ""), activity)
            if refused:
                log.warning("teams: refused an activity: %s", refused)
                return web.Response(status=401, text=refused)
            await self._activity(activity, on_message, on_button)
            return web.Response(status=202)

        routes = [("POST", "/api/messages", receive)]
        async with receiving(routes, self.config.host, self.config.port, 1024 * 1024) as self.port:
            self._stop = asyncio.Event()
            self.link.up()
            await self._stop.wait()

    async def _activity(self, activity: dict[str, Any], on_message: OnMessage, on_button: OnButton) -> None:
        if activity.get("type") != "message":
            return
        conversation = activity.get("conversation") or {}
        chat = str(conversation.get("id", ""))
        sender = activity.get("from") or {}
        user = str(sender.get("aadObjectId") or sender.get("id") or "")
        if not chat or not user:
            return
        self.service[chat] = str(activity.get("serviceUrl", "")).rstrip("/")
        value = activity.get("value") or {}
        if isinstance(value, dict) and "grove" in value:  # an Adaptive Card's Action.Submit
            pressed = await on_button(chat, user, str(sender.get("name", "")), str(value["grove"]))
            await self.send_text(chat, pressed.text)
            return
        text = str(activity.get("text") or "")
        if conversation.get("conversationType") not in (None, "personal"):
            recipient = (activity.get("recipient") or {}).get("id")
            mentioned = any(
                e.get("type") == "mention" and (e.get("mentioned") or {}).get("id") == recipient
                for e in activity.get("entities") or []
            )
            if not mentioned:
                return  # in channels and group chats grove answers only when mentioned
        text = MENTION.sub("", text).strip()
        files = [
            InboundFile(str(a.get("name") or "file"), self._fetcher(str(a["content"]["downloadUrl"])))
            for a in activity.get("attachments") or []
            if a.get("contentType") == DOWNLOAD_INFO and (a.get("content") or {}).get("downloadUrl")
        ]
        await on_message(
            Incoming(
                chat, user, text, str(sender.get("name", "")), files, message_id=str(activity.get("id", ""))
            )
        )

    def _fetcher(self, url: str) -> Any:
        async def fetch() -> bytes:
            # a pre-authenticated SharePoint link: fetched without grove's token
            resp = await self.http.get(url)
            resp.raise_for_status()
            return bytes(resp.content)

        return fetch

    # -- sending -----------------------------------------------------------------------------------------------
    async def _bot_token(self) -> str:
        if not self.token or time.time() > self.token_until:
            resp = await self.http.post(
                self.token_url,
                data={
                    "grant_type": "client_credentials",
                    "client_id": self.app_id,
                    "client_secret": self.secret(),
                    "scope": SCOPE,
                },
            )
            if resp.status_code >= 400:
                raise GatewayError(f"teams: the token endpoint refused the app ({resp.status_code})")
            body = resp.json()
            self.token, self.token_until = (
                body["access_token"],
                time.time() + int(body.get("expires_in", 3600)) - 300,
            )
        return self.token

    async def _post(self, chat_id: str, activity: dict[str, Any]) -> None:
        await self.open()
        service = self.service.get(chat_id)
        if not service or urlparse(service).scheme not in ("https", "http"):
            raise GatewayError(f"teams: no serviceUrl known for {chat_id}: it has to write to grove first")
        url = f"{service}/v3/conversations/{chat_id}/activities"
        for attempt in range(1, 6):
            headers = {"Authorization": f"Bearer {await self._bot_token()}"}
            resp = await self.http.post(url, json=activity, headers=headers)
            if resp.status_code < 300:
                return
            if resp.status_code not in (429, 500, 502, 503, 504):
                raise GatewayError(f"teams: sending to {chat_id} -> {resp.status_code}: {resp.text[:200]}")
            wait = float(resp.headers.get("Retry-After", "0") or 0) or self.backoff.first * 2**attempt
            log.warning(
                "teams: %s from the connector, try %d of 5 in %.1f s", resp.status_code, attempt, wait
            )
            self.backoff.reconnects += 1
            await asyncio.sleep(min(wait, 30.0))
        raise GatewayError(f"teams: sending to {chat_id} kept failing")

    async def send_text(self, chat_id: str, text: str) -> None:
        await self._post(chat_id, {"type": "message", "text": text, "textFormat": "plain"})

    async def send_file(self, chat_id: str, path: Path) -> None:
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        data = base64.b64encode(path.read_bytes()).decode()
        attachment = {"contentType": kind, "contentUrl": f"data:{kind};base64,{data}", "name": path.name}
        await self._post(chat_id, {"type": "message", "text": path.name, "attachments": [attachment]})

    async def ask(self, chat_id: str, text: str, choices: list[Choice]) -> None:
        card = {
            "type": "AdaptiveCard",
            "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
            "version": "1.4",
            "body": [{"type": "TextBlock", "text": text[:3000], "wrap": True}],
            "actions": [
                {"type": "Action.Submit", "title": c.label, "data": {"grove": c.data}} for c in choices
            ],
        }
        attachment = {"contentType": "application/vnd.microsoft.card.adaptive", "content": card}
        await self._post(chat_id, {"type": "message", "attachments": [attachment]})

    async def typing(self, chat_id: str) -> None:
        await self._post(chat_id, {"type": "typing"})
