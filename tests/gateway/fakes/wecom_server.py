"""A fake WeCom API on 127.0.0.1 as documented (gettoken, message/send, media/upload, media/get, with errcode
answers: 45009 rate limit and 42001 expired token on demand), and `callback`, which POSTs grove an app callback
the way WeCom does: XML with an AES-256-CBC `Encrypt` and a sha1 msg_signature in the query."""

from __future__ import annotations

import itertools
import time
from typing import Any

import httpx
from tests.gateway.fakes.base import Call, FakeServer, json_body

from grove.gateway.wecom import encrypt, msg_signature


class FakeWeCom(FakeServer):
    def __init__(self, corp_id: str, secret: str) -> None:
        super().__init__()
        self.corp_id, self.secret = corp_id, secret
        self.tokens: set[str] = set()
        self.media: dict[str, tuple[str, bytes]] = {}
        self.ids = itertools.count(1)
        self.answers: list[int] = []

    def handle(
        self, handler: Any, verb: str, path: str, params: dict[str, Any], files: dict[str, Any], raw: bytes
    ) -> tuple[int, bytes, str]:
        if path == "/cgi-bin/gettoken":
            if (params.get("corpid"), params.get("corpsecret")) != (self.corp_id, self.secret):
                return json_body({"errcode": 40001, "errmsg": "invalid credential"})
            token = f"at{next(self.ids)}"
            self.tokens.add(token)
            self.record(Call("gettoken", {}))
            return json_body({"errcode": 0, "errmsg": "ok", "access_token": token, "expires_in": 7200})
        token = params.get("access_token", "")
        if token not in self.tokens:
            return json_body({"errcode": 40014, "errmsg": "invalid access_token"})
        if path == "/cgi-bin/media/get":
            return 200, self.media[params["media_id"]][1], "application/octet-stream"
        if path == "/cgi-bin/media/upload":
            media_id = f"m{next(self.ids)}"
            self.media[media_id] = files["media"]
            return json_body({"errcode": 0, "errmsg": "ok", "type": "file", "media_id": media_id})
        if path == "/cgi-bin/message/send":
            if self.answers:
                code = self.answers.pop(0)
                if code == 42001:
                    self.tokens.discard(token)
                return json_body({"errcode": code, "errmsg": "try later"})
            self.record(Call(params["msgtype"], params))
            return json_body({"errcode": 0, "errmsg": "ok", "msgid": f"out{next(self.ids)}"})
        return json_body({"errcode": 404, "errmsg": path}, 404)

    def texts(self, user: str) -> list[str]:
        return [c.params["text"]["content"] for c in self.sent("text") if c.params["touser"] == user]


def callback(
    port: int, token: str, aes_key: str, corp_id: str, inner: str, sign_token: str | None = None
) -> httpx.Response:
    encrypted = encrypt(aes_key, corp_id, inner.encode())
    stamp, nonce = str(int(time.time())), "1372623149"
    query = {
        "msg_signature": msg_signature(sign_token or token, stamp, nonce, encrypted),
        "timestamp": stamp,
        "nonce": nonce,
    }
    body = f"<xml><ToUserName><![CDATA[{corp_id}]]></ToUserName><AgentID><![CDATA[1000002]]></AgentID><Encrypt><![CDATA[{encrypted}]]></Encrypt></xml>"
    return httpx.post(f"http://127.0.0.1:{port}/wecom", params=query, content=body.encode(), timeout=10)


def text_xml(corp_id: str, user: str, text: str, msg_id: str | None = None) -> str:
    return (
        f"<xml><ToUserName><![CDATA[{corp_id}]]></ToUserName><FromUserName><![CDATA[{user}]]></FromUserName>"
        f"<CreateTime>{int(time.time())}</CreateTime><MsgType><![CDATA[text]]></MsgType><Content><![CDATA[{text}]]></Content>"
        f"<MsgId>{msg_id or time.time_ns()}</MsgId><AgentID>1000002</AgentID></xml>"
    )


def image_xml(corp_id: str, user: str, media_id: str) -> str:
    return (
        f"<xml><ToUserName><![CDATA[{corp_id}]]></ToUserName><FromUserName><![CDATA[{user}]]></FromUserName>"
        f"<CreateTime>{int(time.time())}</CreateTime><MsgType><![CDATA[image]]></MsgType><PicUrl><![CDATA[http://x]]></PicUrl>"
        f"<MediaId><![CDATA[{media_id}]]></MediaId><MsgId>{time.time_ns()}</MsgId><AgentID>1000002</AgentID></xml>"
    )


def press_xml(corp_id: str, user: str, key: str) -> str:
    return (
        f"<xml><ToUserName><![CDATA[{corp_id}]]></ToUserName><FromUserName><![CDATA[{user}]]></FromUserName>"
        f"<CreateTime>{int(time.time())}</CreateTime><MsgType><![CDATA[event]]></MsgType><Event><![CDATA[template_card_event]]></Event>"
        f"<EventKey><![CDATA[{key}]]></EventKey><TaskId><![CDATA[t1]]></TaskId><CardType><![CDATA[button_interaction]]></CardType>"
        f"<ResponseCode><![CDATA[rc1]]></ResponseCode><AgentID>1000002</AgentID></xml>"
    )
