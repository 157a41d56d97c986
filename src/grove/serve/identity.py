"""Which conversation a chat request continues, only from what the client says on purpose: the
X-Grove-Conversation header, `metadata.conversation_id`, or the history it resends. `user` is attribution only
(a client's end-user id names a person, not one of their chats)."""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from collections.abc import Iterable

CONVERSATION = re.compile(r"^[A-Za-z0-9_.:@-]{1,128}$")
HISTORY_PREFIX = "hist:"  # a conversation known by the digest of its history (a stateless client)


def normal_role(role: str) -> str:
    return "system" if role == "developer" else role


def history_digest(turns: Iterable[tuple[str, str]]) -> str:
    """One digest of a conversation as the client holds it: (role, text) pairs, whitespace at the ends aside."""
    pairs = [[normal_role(role), text.strip()] for role, text in turns if text.strip()]
    return HISTORY_PREFIX + hashlib.sha256(json.dumps(pairs, ensure_ascii=False).encode()).hexdigest()[:40]


def named_conversation(header: str | None, metadata: dict[str, str] | None) -> str | None:
    """The conversation the client names, or None; a malformed name is an error (ValueError)."""
    given = header or (metadata or {}).get("conversation_id")
    if given is None:
        return None
    if not CONVERSATION.match(given) or given.startswith(HISTORY_PREFIX):
        raise ValueError(
            "conversation id must be 1-128 letters, digits or . _ : @ - (header X-Grove-Conversation or "
            "metadata.conversation_id)"
        )
    return given


def new_conversation(prefix: str = "conv") -> str:
    return f"{prefix}_{secrets.token_hex(12)}"
