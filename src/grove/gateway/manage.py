"""What an owner or admin can do from a chat: /users (who is in, who waits with a code), /allow CODE|ID [role],
/block ID. Only an owner makes owners or admins; nobody blocks an owner from a chat."""

from __future__ import annotations

from typing import TYPE_CHECKING

from grove.gateway.adapter import GatewayError
from grove.gateway.users import MANAGERS, UserBook

if TYPE_CHECKING:
    from grove.config.gateway import GatewayPlatformConfig

COMMANDS = ("/users", "/allow", "/block")


def manage(book: UserBook, platform: str, config: GatewayPlatformConfig, role: str, text: str) -> str:
    """The answer to one management command typed by an account with `role`."""
    if role not in MANAGERS:
        return "Only the grove's owner or an admin can manage users."
    words = text.split()
    command, args = words[0].split("@")[0].lower(), words[1:]
    if command == "/users":
        lines = [f"{p.user_id} {p.role}{f' ({p.name})' if p.name else ''}" for p in book.people(platform)]
        lines += [f"{code} waiting: {uid} {name}".rstrip() for _, code, uid, name in book.waiting(platform)]
        return "\n".join(lines) or "Nobody in the book yet (config's owners and allowed_users still count)."
    if not args:
        return f"Usage: {command} CODE|ID" + (" [user|admin|owner]" if command == "/allow" else "")
    if command == "/allow":
        wanted = args[1].lower() if len(args) > 1 else "user"
        if wanted in ("owner", "admin") and role != "owner":
            return "Only an owner can make owners or admins."
        if wanted not in ("owner", "admin", "user"):
            return "The role is user, admin or owner."
        try:
            user_id = book.accept(platform, args[0], wanted)
        except GatewayError as exc:
            return str(exc)
        return f"{user_id} is now {wanted}."
    target = args[0]
    theirs = book.role(platform, target, config)
    if theirs == "owner" or (theirs == "admin" and role != "owner"):
        return "That account cannot be blocked from a chat (use grove gateway users block)."
    book.set_role(platform, target, "blocked")
    return f"{target} is blocked."
