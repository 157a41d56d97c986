"""The platform adapter interface: connect and receive, send text and files, ask with buttons, show typing.

A platform is one class registered under the `grove.platforms` entry-point group; everything chat-independent
(allow-lists, sessions, approvals, splitting) lives in `grove.gateway.core`, so an adapter stays thin."""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Protocol

from grove.errors import GroveError
from grove.gateway.link import Link

if TYPE_CHECKING:
    from grove.config.gateway import GatewayPlatformConfig


class GatewayError(GroveError):
    """A gateway cannot start or deliver: a missing token, an unknown platform, a bad target."""


@dataclass(frozen=True)
class InboundFile:
    """A file attached to a message; `fetch` downloads its bytes (the core decides where they go)."""

    name: str
    fetch: Callable[[], Awaitable[bytes]]
    size: int | None = None


@dataclass(frozen=True)
class Incoming:
    """One message from a chat, in the platform's own ids (as strings)."""

    chat_id: str
    user_id: str
    text: str
    user_name: str = ""
    files: list[InboundFile] = field(default_factory=list)
    message_id: str = (
        ""  # the platform's id of the message: a redelivered one (restart, retry) is answered once
    )


@dataclass(frozen=True)
class Choice:
    label: str
    data: str  # what comes back with the button press: "grove:<approval id>:<answer>"


@dataclass(frozen=True)
class Pressed:
    """What a button press did: `text` to show the presser; `decided` = the question is answered (drop its
    buttons and say so on it), else it stays open (a stranger's or a stale press)."""

    text: str
    decided: bool


# what the core hands an adapter: a message arrived; a button was pressed
OnMessage = Callable[[Incoming], Awaitable[None]]
OnButton = Callable[[str, str, str, str], Awaitable[Pressed]]  # (chat id, user id, user name, data)


class Cursors(Protocol):
    """Where a platform's event stream was left (the gateway's book keeps it across restarts)."""

    def cursor(self, platform: str) -> str | None: ...
    def set_cursor(self, platform: str, value: str) -> None: ...


class PlatformAdapter(ABC):
    """Subclass per platform. `connect` runs until `stop`; the send methods work after `open` (delivery only)."""

    name: ClassVar[str]
    max_text: ClassVar[int]  # the platform's longest message, in characters
    token_env: ClassVar[str]  # the default variable holding the bot token
    buttons: ClassVar[bool] = True  # False: approvals are answered by typing once / session / deny
    secret_env: ClassVar[str | None] = (
        None  # a second secret (Slack's signing secret), if the platform has one
    )

    def __init__(self, config: GatewayPlatformConfig) -> None:
        self.config = config
        self.cursors: Cursors | None = None  # set by the core before `connect`
        # the connection's state: `link.up()` once receiving, a Backoff(link=self.link) reports its retries
        self.link = Link(self.name)

    def secret(self, which: str = "token") -> str:
        """The token (or second secret) from the environment; a clear error naming the variable if unset."""
        var = (self.config.token_env or self.token_env) if which == "token" else self.secret_name()
        value = os.environ.get(var or "", "")
        if not value:
            raise GatewayError(
                f"{self.name}: set {var} in the environment (grove never stores tokens on disk)"
            )
        return value

    def secret_name(self) -> str | None:
        return self.config.secret_env or self.secret_env

    def check(self) -> None:
        """Raise GatewayError now if a secret `connect` needs is missing (before anything starts)."""
        self.secret()

    @abstractmethod
    async def open(self) -> None:
        """Make a client able to send (no receiving yet)."""

    @abstractmethod
    async def close(self) -> None:
        """Free what `open` or `connect` made."""

    @abstractmethod
    async def connect(self, on_message: OnMessage, on_button: OnButton) -> None:
        """Receive messages and button presses until `stop()`; returns then."""

    @abstractmethod
    async def stop(self) -> None:
        """Make `connect` return."""

    @abstractmethod
    async def send_text(self, chat_id: str, text: str) -> None:
        """One message of at most `max_text` characters (the core splits longer ones)."""

    @abstractmethod
    async def send_file(self, chat_id: str, path: Path) -> None:
        """Upload one file to the chat."""

    @abstractmethod
    async def ask(self, chat_id: str, text: str, choices: list[Choice]) -> None:
        """A message with one button per choice; a press comes back through `on_button`."""

    @abstractmethod
    async def typing(self, chat_id: str) -> None:
        """Show that an answer is being written (the core repeats this while a turn runs)."""
