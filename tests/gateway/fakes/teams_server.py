"""A fake Bot Framework on 127.0.0.1 as documented: the OpenID metadata and its JWKS (a fresh RSA key), the
client-credentials token endpoint, and the connector's /v3/conversations/{id}/activities (answering 429 with
Retry-After on demand); `send_activity` POSTs an activity to grove with a JWT signed the way the Bot Framework
signs (RS256, iss api.botframework.com, aud the app id, serviceUrl claim)."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from tests.gateway.fakes.base import Call, FakeServer, json_body


class FakeBotFramework(FakeServer):
    def __init__(self, app_id: str, password: str) -> None:
        super().__init__()
        self.app_id, self.password = app_id, password
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.throttle = 0  # answer this many connector calls with 429

    def handle(
        self, handler: Any, verb: str, path: str, params: dict[str, Any], files: dict[str, Any], raw: bytes
    ) -> tuple[int, bytes, str]:
        if path == "/openid":
            return json_body({"issuer": "https://api.botframework.com", "jwks_uri": f"{self.url}/keys"})
        if path == "/keys":
            jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key()))
            return json_body({"keys": [{**jwk, "kid": "k1", "use": "sig", "endorsements": ["msteams"]}]})
        if path == "/token":
            if (params.get("client_id"), params.get("client_secret")) != (self.app_id, self.password):
                return json_body({"error": "invalid_client"}, 401)
            return json_body({"token_type": "Bearer", "expires_in": 3599, "access_token": "bot-token"})
        if path.startswith("/files/"):
            return 200, b"to grove\n", "application/octet-stream"
        if path.startswith("/v3/conversations/"):
            if handler.headers.get("Authorization") != "Bearer bot-token":
                return json_body({"error": {"code": "Unauthorized"}}, 401)
            if self.throttle > 0:
                self.throttle -= 1
                return 429, b'{"error":{"code":"Throttled"}}', "application/json"
            chat = path.split("/")[3]
            self.record(Call(params.get("type", "?"), {**params, "conversation": chat}))
            return json_body({"id": f"act{len(self.calls)}"}, 201)
        return json_body({"error": path}, 404)

    def token(self, **claims: Any) -> str:
        now = int(time.time())
        body = {
            "iss": "https://api.botframework.com",
            "aud": self.app_id,
            "iat": now,
            "nbf": now,
            "exp": now + 600,
            "serviceUrl": self.url,
            **claims,
        }
        return jwt.encode(body, self.key, algorithm="RS256", headers={"kid": "k1"})

    def texts(self, chat: str) -> list[str]:
        return [
            c.params.get("text", "")
            for c in self.sent("message")
            if c.params["conversation"] == chat and not c.params.get("attachments")
        ]


def activity(
    fake: FakeBotFramework, chat: str, user: str, text: str = "", personal: bool = True, **extra: Any
) -> dict[str, Any]:
    return {
        "type": "message",
        "id": extra.pop("id", f"{time.time_ns()}"),
        "timestamp": "2026-12-03T08:00:00.000Z",
        "serviceUrl": fake.url,
        "channelId": "msteams",
        "from": {"id": f"29:{user}", "name": user, "aadObjectId": user},
        "conversation": {
            "id": chat,
            "conversationType": "personal" if personal else "channel",
            "tenantId": "t",
        },
        "recipient": {"id": f"28:{fake.app_id}", "name": "grove"},
        "text": text,
        **extra,
    }


def send_activity(port: int, body: dict[str, Any], token: str | None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.post(f"http://127.0.0.1:{port}/api/messages", json=body, headers=headers, timeout=10)
