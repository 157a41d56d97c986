"""The one gateway core every platform shares: allow-list, chat -> session mapping, one turn at a time per chat
in a worker thread, typing while it runs, approvals as buttons, answers split to the platform's limit, files in
and out. Adapters only translate their platform to `Incoming` messages and button presses."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from grove.config.gateway import gateway_config
from grove.gateway.adapter import Incoming, PlatformAdapter, Pressed
from grove.gateway.allowlist import AllowList
from grove.gateway.approvals import ApprovalBox
from grove.gateway.chats import ChatSessions
from grove.gateway.sink import ChatSink
from grove.gateway.split import split_message
from grove.gateway.workspace import MAX_IN_BYTES, changed, chat_folder, save_inbound, snapshot

if TYPE_CHECKING:
    from grove.config import Settings
    from grove.llm.types import Model
    from grove.runtime import Session

log = logging.getLogger("grove.gateway")
TYPING_EVERY = 4.0  # seconds; Telegram shows "typing" for 5 s, Discord for 10 s
REFUSED = "Sorry, you are not on this grove's allow-list. Ask its owner to add your user id: {user}"
HELP = "Send a message and grove answers it here. /new starts a new conversation."


class Gateway:
    """Run with `await Gateway(settings, adapter).run()`; `model` replaces the configured model (tests)."""

    def __init__(self, settings: Settings, adapter: PlatformAdapter, *, model: Model | None = None) -> None:
        from grove.runtime.assemble import open_store

        self.settings = settings
        self.adapter = adapter
        self.platform = adapter.name
        self.config = gateway_config(settings, adapter.name)
        # @names are resolved to account ids here, once, or refused: matching is by id only
        self.allow = AllowList.from_config(
            adapter.name,
            self.config.allowed_users,
            self.config.allow_everyone,
            getattr(adapter, "resolve_user", None),
        )
        self.model = model
        self.store = open_store(settings)
        self.chats = ChatSessions(self.store.db, adapter.name)
        self.sessions: dict[str, Session] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.tasks: set[asyncio.Task[None]] = set()
        self.approvals: ApprovalBox | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.last_message: dict[str, float] = {}  # chat -> time.monotonic() of its last message
        self.clock: Callable[[], float] = time.monotonic

    # -- lifecycle ---------------------------------------------------------------------------------------------
    async def run(self) -> None:
        """Receive until the adapter stops; then finish running turns and close every session."""
        self.loop = asyncio.get_running_loop()
        self.approvals = ApprovalBox(self.loop, self.adapter.ask)
        sweeper = self.loop.create_task(self._sweep_idle())
        try:
            await self.adapter.connect(self.on_message, self.on_button)
        finally:
            sweeper.cancel()
            await self.drain()
            for session in self.sessions.values():
                with contextlib.suppress(Exception):
                    session.close()
            self.sessions.clear()
            await self.adapter.close()

    async def drain(self) -> None:
        if self.tasks:
            await asyncio.gather(*list(self.tasks), return_exceptions=True)

    # -- what adapters call ------------------------------------------------------------------------------------
    def allowed(self, user_id: str, user_name: str = "") -> bool:
        return self.allow.allows(user_id)  # user_name is only for the log: anyone can take a name

    async def on_message(self, msg: Incoming) -> None:
        """Refuse strangers at once; otherwise queue the turn and return, so button presses keep flowing."""
        if not self.allowed(msg.user_id, msg.user_name):
            log.warning("%s: refused user %s (%s)", self.platform, msg.user_id, msg.user_name)
            await self.adapter.send_text(msg.chat_id, REFUSED.format(user=msg.user_id))
            return
        task = asyncio.get_running_loop().create_task(self._handle(msg))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def on_button(self, chat_id: str, user_id: str, user_name: str, data: str) -> Pressed:
        if not self.allowed(user_id, user_name):
            return Pressed("You are not on this grove's allow-list.", False)
        assert self.approvals is not None
        return self.approvals.press(chat_id, data)

    # -- one message -------------------------------------------------------------------------------------------
    async def _handle(self, msg: Incoming) -> None:
        self.last_message[msg.chat_id] = self.clock()
        lock = self.locks.setdefault(msg.chat_id, asyncio.Lock())
        async with lock:  # one turn at a time per chat, in the order the messages came
            try:
                await self._answer(msg)
            except Exception as exc:  # a failed turn is told to the chat, never kills the gateway
                log.exception("%s:%s turn failed", self.platform, msg.chat_id)
                await self._send(msg.chat_id, f"grove: the turn failed ({type(exc).__name__}: {exc})")

    async def _answer(self, msg: Incoming) -> None:
        command = msg.text.strip().split(maxsplit=1)[0].split("@")[0].lower() if msg.text.strip() else ""
        if command in ("/start", "/help"):
            await self._send(msg.chat_id, HELP)
            return
        if command == "/new":
            await asyncio.to_thread(self._forget, msg.chat_id)
            await self._send(msg.chat_id, "New conversation started.")
            return
        folder = chat_folder(self.config.workspace, self.platform, msg.chat_id)
        text = msg.text
        for item in msg.files:
            if item.size is not None and item.size > MAX_IN_BYTES:
                await self._send(msg.chat_id, f"{item.name} is over {MAX_IN_BYTES // 2**20} MB; not taken.")
                continue
            data = await item.fetch()
            if len(data) > MAX_IN_BYTES:
                await self._send(msg.chat_id, f"{item.name} is over {MAX_IN_BYTES // 2**20} MB; not taken.")
                continue
            saved = save_inbound(folder, item.name, data)
            text += f"\n\n[the user sent a file, saved as {saved.relative_to(folder)}]"
        if not text.strip():
            return
        typing = asyncio.get_running_loop().create_task(self._keep_typing(msg.chat_id))
        try:
            answer, files = await asyncio.to_thread(self._turn, msg.chat_id, folder, text)
        finally:
            typing.cancel()
        await self._send(msg.chat_id, answer or "(no answer)")
        for path in files:
            await self.adapter.send_file(msg.chat_id, path)

    async def close_idle(self) -> list[str]:
        """Close the sessions of chats quiet for `idle_minutes` (their review and memory run now, not at exit);
        the chat keeps its session id, so its next message resumes the conversation. Returns the chats closed."""
        cutoff = self.clock() - self.config.idle_minutes * 60
        closed = []
        for chat_id in [c for c in self.sessions if self.last_message.get(c, 0.0) <= cutoff]:
            lock = self.locks.setdefault(chat_id, asyncio.Lock())
            if lock.locked():  # a turn is running or waiting: not idle
                continue
            async with lock:
                if self.last_message.get(chat_id, 0.0) > cutoff:  # a message came while we waited
                    continue
                session = self.sessions.pop(chat_id, None)
                if session is not None:
                    await asyncio.to_thread(session.close)
                    closed.append(chat_id)
        return closed

    async def _sweep_idle(self) -> None:
        while True:
            await asyncio.sleep(min(60.0, self.config.idle_minutes * 60))
            with contextlib.suppress(Exception):  # a failed close is logged by the session; keep sweeping
                await self.close_idle()

    async def _send(self, chat_id: str, text: str) -> None:
        for part in split_message(text, self.adapter.max_text):
            await self.adapter.send_text(chat_id, part)

    async def _keep_typing(self, chat_id: str) -> None:
        while True:
            with contextlib.suppress(Exception):  # a lost typing hint is not worth failing a turn
                await self.adapter.typing(chat_id)
            await asyncio.sleep(TYPING_EVERY)

    # -- in the turn's worker thread ---------------------------------------------------------------------------
    def _turn(self, chat_id: str, folder: Path, text: str) -> tuple[str, list[Path]]:
        session = self._session(chat_id, folder)
        before = snapshot(folder)
        result = session.run_turn(text)
        return result.answer, changed(folder, before, self.config.send_files)

    def _session(self, chat_id: str, folder: Path) -> Session:
        from grove.runtime import Profile, Session
        from grove.store.sessions import SessionNotFound

        if chat_id in self.sessions:
            return self.sessions[chat_id]
        sink = ChatSink(self.platform, chat_id)
        assert self.approvals is not None
        profile = Profile(
            source=self.platform,
            toolsets=self.config.toolsets,
            workspace=folder,
            allow_terminal=self.config.allow_terminal,
            approver=self.approvals.approver(chat_id, lambda text: self._post(chat_id, text)),
            long_lived=True,
            review=self.config.review,
            model_override=self.model,
            title=f"{self.platform} chat {chat_id}",
        )
        previous = self.chats.get(chat_id)
        session: Session | None = None
        if previous:
            try:
                session = Session.open(
                    self.settings, dataclasses.replace(profile, resume=previous), sink, store=self.store
                )
            except SessionNotFound:  # the stored session was deleted: start a new one
                session = None
        if session is None:
            session = Session.open(self.settings, profile, sink, store=self.store)
        self.chats.set(chat_id, session.id)
        self.sessions[chat_id] = session
        return session

    def _forget(self, chat_id: str) -> None:
        session = self.sessions.pop(chat_id, None)
        if session is not None:
            session.close()
        self.chats.forget(chat_id)

    def _post(self, chat_id: str, text: str) -> None:
        """Send from a worker thread (approval timeouts), waiting until it went out."""
        assert self.loop is not None
        asyncio.run_coroutine_threadsafe(self._send(chat_id, text), self.loop).result(timeout=60)
