"""Discord through discord.py: the gateway websocket for messages (DMs, and channel messages that mention the
bot), button views for approvals, attachments in and out, the typing indicator. `gateway.discord.base_url`
points the REST API (and the websocket address it hands out) at another server."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

from grove.gateway.adapter import Choice, InboundFile, Incoming, OnButton, OnMessage, PlatformAdapter

MENTION = re.compile(r"<@!?\d+>\s*")


class DiscordAdapter(PlatformAdapter):
    name = "discord"
    max_text = 2000
    token_env = "DISCORD_BOT_TOKEN"

    client: Any = None
    _on_button: OnButton | None = None
    _stop: asyncio.Event | None = None
    _saved: tuple[Any, Any] | None = None  # discord.py's class-level addresses, restored on close

    def _make_client(self) -> Any:
        import discord

        intents = discord.Intents.default()
        intents.message_content = True  # a privileged intent: enable it in the bot's settings on Discord
        self.client = discord.Client(intents=intents)
        return self.client

    def _point_rest(self) -> None:
        """discord.py keeps its addresses on classes; a base_url swaps them for this process (and back on close)."""
        if not self.config.base_url:
            return
        from discord.gateway import DiscordWebSocket
        from discord.http import Route

        if self._saved is None:
            self._saved = (Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY)
        Route.BASE = self.config.base_url.rstrip("/") + "/api/v10"

    async def _point_gateway(self) -> None:
        if not self.config.base_url:
            return
        import yarl
        from discord.gateway import DiscordWebSocket
        from discord.http import Route

        data = await self.client.http.request(Route("GET", "/gateway/bot"))
        DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(data["url"])

    async def open(self) -> None:
        self._point_rest()
        client = self._make_client()
        await client.login(self.secret())

    async def close(self) -> None:
        if self.client is not None and not self.client.is_closed():
            await self.client.close()
        self.client = None
        if self._saved is not None:
            from discord.gateway import DiscordWebSocket
            from discord.http import Route

            Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY = self._saved
            self._saved = None

    async def connect(self, on_message: OnMessage, on_button: OnButton) -> None:
        self._point_rest()
        client = self._make_client()
        self._on_button = on_button

        async def message(msg: Any) -> None:
            if msg.author.bot or client.user is None or msg.author.id == client.user.id:
                return
            if msg.guild is not None and client.user not in msg.mentions:
                return  # in servers grove answers only when mentioned
            files = [InboundFile(a.filename, a.read, a.size) for a in msg.attachments]
            await on_message(
                Incoming(
                    chat_id=str(msg.channel.id),
                    user_id=str(msg.author.id),
                    user_name=msg.author.name,
                    text=MENTION.sub("", msg.content or "").strip(),
                    files=files,
                    message_id=str(msg.id),
                )
            )

        async def ready() -> None:  # connected, and again after discord.py reconnected by itself
            self.link.up()  # (on_connect, not on_ready: ready waits seconds for guilds to stream in)

        async def dropped() -> None:
            self.link.retrying("the Discord gateway connection dropped", 0.0, 1)

        client.event(_named("on_message", message))
        client.event(_named("on_connect", ready))
        client.event(_named("on_resumed", ready))
        client.event(_named("on_disconnect", dropped))
        self._stop = asyncio.Event()
        await client.login(self.secret())
        await self._point_gateway()
        receiving = asyncio.ensure_future(client.connect(reconnect=True))
        stopping = asyncio.ensure_future(self._stop.wait())
        await asyncio.wait([receiving, stopping], return_when=asyncio.FIRST_COMPLETED)
        stopping.cancel()
        await client.close()  # ends `connect` when stop() was asked; a no-op when the connection ended itself
        await receiving  # its failure (a refused token, a lost gateway) is the caller's to see

    async def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    def _channel(self, chat_id: str) -> Any:
        return self.client.get_partial_messageable(int(chat_id))

    async def send_text(self, chat_id: str, text: str) -> None:
        await self._channel(chat_id).send(text)

    async def send_file(self, chat_id: str, path: Path) -> None:
        import discord

        await self._channel(chat_id).send(file=discord.File(path, filename=path.name))

    async def ask(self, chat_id: str, text: str, choices: list[Choice]) -> None:
        import discord

        on_button = self._on_button
        view = discord.ui.View(timeout=None)  # the core's approval timeout decides, not the view's
        for choice in choices:
            style = (
                discord.ButtonStyle.danger if choice.data.endswith(":deny") else discord.ButtonStyle.primary
            )
            button: Any = discord.ui.Button(label=choice.label, custom_id=choice.data, style=style)

            async def pressed(interaction: Any, data: str = choice.data) -> None:
                assert on_button is not None
                user = interaction.user
                result = await on_button(str(interaction.channel_id), str(user.id), user.name, data)
                if result.decided:
                    content = f"{interaction.message.content}\n\n→ {result.text}"
                    await interaction.response.edit_message(content=content, view=None)
                else:
                    await interaction.response.send_message(result.text, ephemeral=True)

            button.callback = pressed
            view.add_item(button)
        await self._channel(chat_id).send(text, view=view)

    async def typing(self, chat_id: str) -> None:
        await self.client.http.send_typing(int(chat_id))


def _named(name: str, fn: Any) -> Any:
    """discord.py registers an event handler by its function name."""
    fn.__name__ = name
    return fn
