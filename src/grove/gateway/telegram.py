"""Telegram through python-telegram-bot: long polling, inline-keyboard buttons for approvals, documents and photos
in, documents out, the "typing" chat action. `gateway.telegram.base_url` points it at another Bot API server."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

from grove.gateway.adapter import Choice, InboundFile, Incoming, OnButton, OnMessage, PlatformAdapter


class TelegramAdapter(PlatformAdapter):
    name = "telegram"
    max_text = 4096
    token_env = "TELEGRAM_BOT_TOKEN"

    bot: Any = None
    app: Any = None
    _stop: asyncio.Event | None = None

    def _urls(self) -> dict[str, Any]:  # Bot's URL keyword arguments
        base = (self.config.base_url or "").rstrip("/")
        return {"base_url": f"{base}/bot", "base_file_url": f"{base}/file/bot"} if base else {}

    async def open(self) -> None:
        from telegram import Bot

        self.bot = Bot(self.secret(), **self._urls())
        await self.bot.initialize()

    async def close(self) -> None:
        if self.app is None and self.bot is not None:
            await self.bot.shutdown()
        self.bot = None

    async def connect(self, on_message: OnMessage, on_button: OnButton) -> None:
        from telegram.ext import Application, CallbackQueryHandler, MessageHandler, filters

        builder = Application.builder().token(self.secret())
        urls = self._urls()
        if urls:
            builder = builder.base_url(urls["base_url"]).base_file_url(urls["base_file_url"])
        app = builder.build()

        async def message(update: Any, context: Any) -> None:
            msg, user = update.effective_message, update.effective_user
            if msg is None or user is None:
                return
            await on_message(
                Incoming(
                    chat_id=str(msg.chat_id),
                    user_id=str(user.id),
                    user_name=user.username or "",
                    text=msg.text or msg.caption or "",
                    files=_files(msg, context.bot),
                    message_id=f"{msg.chat_id}:{msg.message_id}",
                )
            )

        async def press(update: Any, context: Any) -> None:
            query = update.callback_query
            chat = str(query.message.chat.id) if query.message else ""
            pressed = await on_button(
                chat, str(query.from_user.id), query.from_user.username or "", query.data or ""
            )
            await query.answer(pressed.text[:200])
            if query.message is not None and pressed.decided:
                # the question keeps its text, loses its buttons, and says what was chosen (an edit refused as
                # too old or already made changes nothing: the answer counted)
                with contextlib.suppress(Exception):
                    await query.edit_message_text(f"{query.message.text}\n\n→ {pressed.text}")

        app.add_handler(MessageHandler(filters.UpdateType.MESSAGE, message))
        app.add_handler(CallbackQueryHandler(press))
        self.app, self.bot, self._stop = app, app.bot, asyncio.Event()
        async with app:
            await app.start()
            assert app.updater is not None
            await app.updater.start_polling(poll_interval=0.0, timeout=10)
            self.link.up()  # the library rides out Bot API outages itself (its retries)
            await self._stop.wait()
            await app.updater.stop()
            await app.stop()
        self.app = None

    async def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    async def send_text(self, chat_id: str, text: str) -> None:
        await self.bot.send_message(chat_id=chat_id, text=text)

    async def send_file(self, chat_id: str, path: Path) -> None:
        with path.open("rb") as fh:
            await self.bot.send_document(chat_id=chat_id, document=fh, filename=path.name)

    async def ask(self, chat_id: str, text: str, choices: list[Choice]) -> None:
        from telegram import InlineKeyboardButton, InlineKeyboardMarkup

        buttons = [[InlineKeyboardButton(c.label, callback_data=c.data) for c in choices]]
        await self.bot.send_message(chat_id=chat_id, text=text, reply_markup=InlineKeyboardMarkup(buttons))

    async def typing(self, chat_id: str) -> None:
        from telegram.constants import ChatAction

        await self.bot.send_chat_action(chat_id=chat_id, action=ChatAction.TYPING)


def _files(msg: Any, bot: Any) -> list[InboundFile]:
    """A document, or the largest size of a photo, as a file the core may fetch."""
    items: list[tuple[str, str, int | None]] = []
    if msg.document is not None:
        doc = msg.document
        items.append((doc.file_name or f"{doc.file_unique_id}", doc.file_id, doc.file_size))
    if msg.photo:
        photo = msg.photo[-1]
        items.append((f"photo-{photo.file_unique_id}.jpg", photo.file_id, photo.file_size))

    def fetcher(file_id: str) -> Any:
        async def fetch() -> bytes:
            handle = await bot.get_file(file_id)
            return bytes(await handle.download_as_bytearray())

        return fetch

    return [InboundFile(name, fetcher(file_id), size) for name, file_id, size in items]
