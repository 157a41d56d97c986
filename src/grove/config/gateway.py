"""Chat gateway settings, one section per platform under `gateway.<platform>`: who may talk to grove, where the
secrets live (names of environment variables, never the values), and the sessions' tools and workspace."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Literal

from grove.dataclass_io import STRICT_KEYS, validate_as

if TYPE_CHECKING:
    from pydantic import Field  # the constraints below are checked by grove.dataclass_io.validate_as


@dataclass
class GatewayPlatformConfig:
    __pydantic_config__ = STRICT_KEYS

    allowed_users: Annotated[
        list[str],
        Field(description="account ids who may talk to grove (an @name is refused: anyone can take a name)"),
    ] = field(default_factory=list)
    owners: Annotated[
        list[str],
        Field(
            description="account ids of the grove's owners: they share the CLI's memory and sessions, answer "
            "approvals and manage users; everyone else gets a home of their own"
        ),
    ] = field(default_factory=list)
    pairing: Annotated[
        bool,
        Field(description="a stranger gets a pairing code the owner can accept (grove gateway users allow)"),
    ] = True
    users_approve: Annotated[
        bool,
        Field(
            description="plain users may answer their own turns' approval questions (off = denied at once; "
            "an approval can let a turn act outside the user's workspace)"
        ),
    ] = False
    allow_everyone: Annotated[
        bool, Field(description="answer every user (a public bot); off = only allowed_users")
    ] = False
    token_env: Annotated[
        str | None, Field(description="variable holding the bot token; empty = the platform's usual name")
    ] = None
    secret_env: Annotated[
        str | None,
        Field(description="second secret's variable (Slack: signing secret or app token); empty = default"),
    ] = None
    base_url: Annotated[
        str | None, Field(description="the platform's API address (a self-hosted Bot API server, a proxy)")
    ] = None
    host: Annotated[
        str, Field(description="Slack HTTP events mode: the address to listen on (put a TLS proxy in front)")
    ] = "127.0.0.1"
    port: Annotated[
        int, Field(ge=0, le=65535, description="Slack HTTP events mode: the port events are posted to")
    ] = 3000
    options: Annotated[
        dict[str, Any],
        Field(
            description="the platform's own settings (irc: nick, channels; email: imap, smtp, address; "
            "matrix: user_id; ...): see docs/guide/gateways.md"
        ),
    ] = field(default_factory=dict)
    workspace: Annotated[
        str | None,
        Field(
            description="folder of the chats' workspaces (one subfolder per chat); empty = $GROVE_HOME/workspaces/gateway"
        ),
    ] = None
    toolsets: Annotated[
        list[str] | None, Field(description="toolsets of chat sessions; empty = toolsets")
    ] = None
    allow_terminal: Annotated[bool, Field(description="let chat sessions run shell commands (sandboxed)")] = (
        False
    )
    review: Annotated[
        Literal["thread", "off"],
        Field(description="self-review after busy turns, in a thread, or not at all"),
    ] = "thread"
    send_files: Annotated[
        int,
        Field(ge=0, le=20, description="most workspace files a turn wrote that are sent back to the chat"),
    ] = 5
    idle_minutes: Annotated[
        float,
        Field(
            gt=0,
            description="a chat's session is closed (review and memory run, its memory freed) after this long "
            "without a message; the next message resumes it",
        ),
    ] = 60.0


def gateway_config(settings: Any, platform: str) -> GatewayPlatformConfig:
    """`settings.gateway[platform]` checked, or the defaults when the platform has no section."""
    sections = getattr(settings, "gateway", None) or {}
    value = sections.get(platform)
    if isinstance(value, GatewayPlatformConfig):
        return value
    if isinstance(value, dict):
        return validate_as(GatewayPlatformConfig, value)
    return GatewayPlatformConfig()
