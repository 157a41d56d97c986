"""A minimal HTTP fake of Anthropic's Messages API on 127.0.0.1 (plain and streamed), for the anthropic provider.

`with FakeAnthropicServer() as srv:` then point the SDK at `srv.url` (no /v1: the SDK adds it). Replies are the
same FakeReply objects as the OpenAI fake; `usage` is in Anthropic's form (input_tokens, cache_read_input_tokens...).
It checks what the real API checks and grove could get wrong: roles, and tool_result ids matching the tool_use
blocks of the assistant turn just before.
"""

from __future__ import annotations

import json
from typing import Any

try:
    from tests.fakes.openai_server import FakeReply, FakeServer, Handler, estimate_tokens, main, text_pieces
except ModuleNotFoundError:  # run as a script: python tests/fakes/anthropic_server.py
    from openai_server import FakeReply, FakeServer, Handler, estimate_tokens, main, text_pieces  # type: ignore

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
STOP_REASONS = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}

__all__ = ["FakeAnthropicServer", "FakeReply"]


def check_messages(body: dict[str, Any]) -> str | None:
    """What the real API would refuse with a 400, in its words roughly; None when fine."""
    for key in ("model", "max_tokens", "messages"):
        if key not in body:
            return f"{key}: Field required"
    previous_tool_ids: set[str] = set()
    for i, msg in enumerate(body["messages"]):
        if msg.get("role") not in ("user", "assistant"):
            return f"messages.{i}.role: Input should be 'user' or 'assistant'"
        blocks = msg["content"] if isinstance(msg.get("content"), list) else []
        if msg["role"] == "user":
            for block in blocks:
                if block.get("type") == "tool_result" and block.get("tool_use_id") not in previous_tool_ids:
                    return (
                        f"messages.{i}: unexpected `tool_use_id` found in `tool_result` blocks: "
                        f"{block.get('tool_use_id')}. Each `tool_result` block must have a corresponding "
                        "`tool_use` block in the previous message."
                    )
        previous_tool_ids = {b.get("id") for b in blocks if b.get("type") == "tool_use"}
        if not msg.get("content"):
            return f"messages.{i}: all messages must have non-empty content"
    return None


class FakeAnthropicServer(FakeServer):
    """POST /v1/messages, plain or with stream=true (Anthropic's named SSE events)."""

    url_suffix = ""

    def error_body(self, reply: FakeReply) -> dict[str, Any]:
        kind = ERROR_TYPES.get(reply.status, "api_error")
        message = "Overloaded" if kind == "overloaded_error" else f"fake {kind} (HTTP {reply.status})"
        return {"type": "error", "error": {"type": kind, "message": message}}

    def handle_post(self, h: Handler, path: str, body: Any) -> None:
        if path.split("?")[0].rstrip("/") != "/v1/messages":
            return super().handle_post(h, path, body)
        problem = check_messages(body) if isinstance(body, dict) else "body must be a JSON object"
        if problem:
            error = {"type": "error", "error": {"type": "invalid_request_error", "message": problem}}
            return h.send_json(400, error)
        reply = self.next_reply()
        if self.wait_and_maybe_fail(h, reply):
            return None
        content: list[dict[str, Any]] = []
        if reply.text:
            content.append({"type": "text", "text": reply.text})
        for i, (name, args) in enumerate(reply.tool_calls or []):
            content.append({"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": args})
        stop = reply.finish_reason or ("tool_use" if reply.tool_calls else "end_turn")
        stop = STOP_REASONS.get(stop, stop)
        usage = {
            "input_tokens": estimate_tokens(body["messages"]),
            "output_tokens": estimate_tokens(json.dumps(content)),
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            **(reply.usage or {}),
        }
        message = {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": usage,
        }
        if not body.get("stream"):
            h.send_json(200, message, reply.headers)
            return None
        self._stream(h, reply, message)
        return None

    def _stream(self, h: Handler, reply: FakeReply, message: dict[str, Any]) -> None:
        h.start_sse(reply.headers)
        start_usage = {**message["usage"], "output_tokens": 1}
        h.send_sse(
            {
                "type": "message_start",
                "message": {**message, "content": [], "stop_reason": None, "usage": start_usage},
            },
            "message_start",
        )
        for index, block in enumerate(message["content"]):
            if block["type"] == "text":
                h.send_sse(
                    {
                        "type": "content_block_start",
                        "index": index,
                        "content_block": {"type": "text", "text": ""},
                    },
                    "content_block_start",
                )
                for piece in text_pieces(block["text"]):
                    delta = {"type": "text_delta", "text": piece}
                    h.send_sse(
                        {"type": "content_block_delta", "index": index, "delta": delta}, "content_block_delta"
                    )
            else:
                start = {**block, "input": {}}
                h.send_sse(
                    {"type": "content_block_start", "index": index, "content_block": start},
                    "content_block_start",
                )
                args = json.dumps(block["input"])
                for cut in range(0, len(args), 7):
                    delta = {"type": "input_json_delta", "partial_json": args[cut : cut + 7]}
                    h.send_sse(
                        {"type": "content_block_delta", "index": index, "delta": delta}, "content_block_delta"
                    )
            h.send_sse({"type": "content_block_stop", "index": index}, "content_block_stop")
        if reply.stream_error:
            h.send_sse({"type": "error", "error": reply.stream_error}, "error")
            return
        if reply.cut_stream:
            return
        delta = {"stop_reason": message["stop_reason"], "stop_sequence": None}
        usage = {"output_tokens": message["usage"]["output_tokens"]}
        h.send_sse({"type": "message_delta", "delta": delta, "usage": usage}, "message_delta")
        h.send_sse({"type": "message_stop"}, "message_stop")


if __name__ == "__main__":
    main(FakeAnthropicServer)
