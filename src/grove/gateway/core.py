"""The one gateway core every platform shares: who each account is (users.py), a session per (chat, account) in
that account's own home, one turn at a time per conversation in a worker thread, typing while it runs, approvals
as buttons or typed answers, answers split to the platform's limit, files in and out (photos shown to a model
that sees them, photos.py), each message answered once, its connection state published (link.py).
Adapters only translate their platform to `Incoming` messages and button presses."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grove.config.gateway import gateway_config
from grove.gateway.adapter import Incoming, PlatformAdapter, Pressed
from grove.gateway.allowlist import AllowList
from grove.gateway.approvals import ApprovalBox
from grove.gateway.chats import ChatSessions, chat_key
from grove.gateway.homes import account_dir, user_settings
from grove.gateway.link import HEARTBEAT
from grove.gateway.link_table import LinkTable
from grove.gateway.manage import COMMANDS, manage
from grove.gateway.photos import REFUSED_IMAGE, Photos, photos_for, sees_images
from grove.gateway.sink import ChatSink
from grove.gateway.split import split_message
from grove.gateway.users import MANAGERS, Role, UserBook
from grove.gateway.workspace import (
    MAX_IN_BYTES,
    changed,
    chat_folder,
    save_inbound,
    snapshot,
    user_chat_folder,
)
from grove.llm.images import CannotSee

if TYPE_CHECKING:
    from grove.config import Settings
    from grove.llm.types import Model
    from grove.runtime import Session
    from grove.security.approval.base import ApprovalRequest
    from grove.store.sessions import SessionStore

Key = tuple[str, str]  # (chat id, account id): one conversation; a group chat holds one per person

log = logging.getLogger("grove.gateway")
TYPING_EVERY = 4.0  # seconds; Telegram shows "typing" for 5 s, Discord for 10 s
REFUSE_EVERY = 60.0  # a stranger is answered at most once a minute: no floods, no backscatter by spoofed mail
REFUSED = "Sorry, you are not on this grove's allow-list. Ask its owner to add your user id: {user}"
PAIRING = (
    "Sorry, you are not on this grove's allow-list yet. Your pairing code is {code} (valid for an hour): ask "
    "its owner to run `grove gateway users allow {platform} {code}` (your user id: {user})."
)
NO_APPROVALS = "This needs an approval, and on this grove only its owner and admins answer those: denied."
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
        self.book = UserBook(settings.home)
        adapter.cursors = self.book
        self.stores: dict[Path, SessionStore] = {settings.home: self.store}  # one state.db per user home
        self.sessions: dict[Key, Session] = {}
        self.locks: dict[Key, asyncio.Lock] = {}
        self.tasks: set[asyncio.Task[None]] = set()
        self.approvals: ApprovalBox | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.last_message: dict[Key, float] = {}  # conversation -> time.monotonic() of its last message
        self.refused_at: dict[str, float] = {}  # stranger's account -> when grove last answered them
        self.clock: Callable[[], float] = time.monotonic

    # -- lifecycle ---------------------------------------------------------------------------------------------
    async def run(self) -> None:
        """Receive until the adapter stops; then finish running turns and close every session."""
        self.loop = asyncio.get_running_loop()
        self.approvals = ApprovalBox(self.loop, self.adapter.ask, buttons=self.adapter.buttons)
        link, links = self.adapter.link, LinkTable(self.book.conn, self.book.lock)
        link.on_change = links.publish  # every change of the connection, for the dashboard
        links.publish(link.state)
        sweeper = self.loop.create_task(self._sweep_idle())
        beating = self.loop.create_task(self._beat(links))
        try:
            await self.adapter.connect(self.on_message, self.on_button)
        except Exception as exc:
            link.down(exc)
            raise
        else:
            link.stopped()
        finally:
            sweeper.cancel()
            beating.cancel()
            await self.drain()
            for session in self.sessions.values():
                with contextlib.suppress(Exception):
                    session.close()
            self.sessions.clear()
            await self.adapter.close()
            for home, store in list(self.stores.items()):
                if home != self.settings.home:
                    with contextlib.suppress(Exception):
                        store.db.close()
                    del self.stores[home]

    async def drain(self) -> None:
        if self.tasks:
            await asyncio.gather(*list(self.tasks), return_exceptions=True)

    # -- what adapters call ------------------------------------------------------------------------------------
    def role(self, user_id: str) -> Role | None:
        """The account's role now (the book is read each time: `grove gateway users` acts on a running gateway)."""
        role = self.book.role(self.platform, str(user_id), self.config)
        if role is None and self.allow.allows(user_id):  # @names in allowed_users, resolved at start
            return "user"
        return role

    def allowed(self, user_id: str, user_name: str = "") -> bool:
        """Only the id counts; `user_name` is for the log (anyone can take a name)."""
        return self.role(user_id) not in (None, "blocked")

    async def on_message(self, msg: Incoming) -> None:
        """Refuse strangers at once; otherwise queue the turn and return, so button presses keep flowing."""
        if msg.message_id and not self.book.first_time(self.platform, msg.message_id):
            log.info("%s: message %s seen before; not answered again", self.platform, msg.message_id)
            return
        role = self.role(msg.user_id)
        if role == "blocked":
            log.warning("%s: dropped a message of blocked user %s", self.platform, msg.user_id)
            return
        if role is None:
            log.warning("%s: refused user %s (%s)", self.platform, msg.user_id, msg.user_name)
            now = self.clock()
            if now - self.refused_at.get(str(msg.user_id), -REFUSE_EVERY) < REFUSE_EVERY:
                return
            if len(self.refused_at) > 10_000:  # a flood of strangers: forget the oldest half
                for old in sorted(self.refused_at, key=self.refused_at.__getitem__)[:5_000]:
                    del self.refused_at[old]
            self.refused_at[str(msg.user_id)] = now
            code = (
                self.book.pairing_code(self.platform, msg.user_id, msg.user_name)
                if self.config.pairing and msg.user_id
                else None
            )
            refusal = (
                PAIRING.format(code=code, platform=self.platform, user=msg.user_id)
                if code
                else REFUSED.format(user=msg.user_id)
            )
            await self.adapter.send_text(msg.chat_id, refusal)
            return
        assert self.approvals is not None
        answered = self.approvals.typed(msg.chat_id, msg.user_id, msg.text) if not msg.files else None
        if answered is not None:  # a typed approval answer goes to the waiting turn, not into a new one
            await self._send(msg.chat_id, answered.text)
            return
        task = asyncio.get_running_loop().create_task(self._handle(msg, role))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def on_button(self, chat_id: str, user_id: str, user_name: str, data: str) -> Pressed:
        if not self.allowed(user_id, user_name):
            return Pressed("You are not on this grove's allow-list.", False)
        assert self.approvals is not None
        return self.approvals.press(chat_id, str(user_id), data)

    # -- one message -------------------------------------------------------------------------------------------
    async def _handle(self, msg: Incoming, role: Role = "user") -> None:
        key = (msg.chat_id, str(msg.user_id))
        self.last_message[key] = self.clock()
        lock = self.locks.setdefault(key, asyncio.Lock())
        async with lock:  # one turn at a time per conversation, in the order the messages came
            try:
                await self._answer(msg, role)
            except CannotSee as exc:  # a model whose profile said it sees, refusing after all: say what to do
                log.warning("%s:%s %s", self.platform, msg.chat_id, exc)
                await self._send(msg.chat_id, REFUSED_IMAGE.format(why=exc))
            except Exception as exc:  # a failed turn is told to the chat, never kills the gateway
                log.exception("%s:%s turn failed", self.platform, msg.chat_id)
                await self._send(msg.chat_id, f"grove: the turn failed ({type(exc).__name__}: {exc})")

    def folder(self, chat_id: str, user_id: str, role: Role) -> Path:
        """The conversation's workspace: owners keep the chat's folder, everyone else one of their own."""
        if role == "owner":
            return chat_folder(self.settings.home, self.config.workspace, self.platform, chat_id)
        return user_chat_folder(
            self.settings.home,
            self.config.workspace,
            self.platform,
            account_dir(self.platform, user_id),
            chat_id,
        )

    async def _answer(self, msg: Incoming, role: Role) -> None:
        key = (msg.chat_id, str(msg.user_id))
        command = msg.text.strip().split(maxsplit=1)[0].split("@")[0].lower() if msg.text.strip() else ""
        if command in ("/start", "/help"):
            await self._send(
                msg.chat_id, HELP + (" /users, /allow, /block manage users." if role in MANAGERS else "")
            )
            return
        if command == "/new":
            await asyncio.to_thread(self._forget, key, role)
            await self._send(msg.chat_id, "New conversation started.")
            return
        if command in COMMANDS:
            await self._send(
                msg.chat_id, manage(self.book, self.platform, self.config, role, msg.text.strip())
            )
            return
        folder = self.folder(msg.chat_id, str(msg.user_id), role)
        text = msg.text
        taken: list[tuple[str, str, bytes]] = []  # (name, where it was saved, bytes): images go to the model
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
            taken.append((item.name, str(saved.relative_to(folder)), data))
        if not text.strip():
            return
        typing = asyncio.get_running_loop().create_task(self._keep_typing(msg.chat_id))
        try:
            photos = await asyncio.to_thread(self._photos, key, role, folder, taken)
            for note in photos.notes:  # before the answer: what the model was not shown, and why
                await self._send(msg.chat_id, note)
            answer, files = await asyncio.to_thread(self._turn, key, role, folder, text, photos.parts)
        finally:
            typing.cancel()
        await self._send(msg.chat_id, answer or "(no answer)")
        for path in files:
            await self.adapter.send_file(msg.chat_id, path)

    async def close_idle(self) -> list[str]:
        """Close the sessions of conversations quiet for `idle_minutes` (their review and memory run now, not at
        exit); each keeps its session id, so its next message resumes it. Returns the chats closed."""
        cutoff = self.clock() - self.config.idle_minutes * 60
        closed = []
        for key in [k for k in self.sessions if self.last_message.get(k, 0.0) <= cutoff]:
            lock = self.locks.setdefault(key, asyncio.Lock())
            if lock.locked():  # a turn is running or waiting: not idle
                continue
            async with lock:
                if self.last_message.get(key, 0.0) > cutoff:  # a message came while we waited
                    continue
                session = self.sessions.pop(key, None)
                if session is not None:
                    await asyncio.to_thread(session.close)
                    closed.append(key[0])
        return closed

    async def _sweep_idle(self) -> None:
        while True:
            await asyncio.sleep(min(60.0, self.config.idle_minutes * 60))
            with contextlib.suppress(Exception):  # a failed close is logged by the session; keep sweeping
                await self.close_idle()

    async def _beat(self, links: LinkTable) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT)
            with contextlib.suppress(Exception):  # a busy gateway.db: the next beat will do
                links.beat(self.platform)

    async def _send(self, chat_id: str, text: str) -> None:
        for part in split_message(text, self.adapter.max_text):
            await self.adapter.send_text(chat_id, part)

    async def _keep_typing(self, chat_id: str) -> None:
        while True:
            with contextlib.suppress(Exception):  # a lost typing hint is not worth failing a turn
                await self.adapter.typing(chat_id)
            await asyncio.sleep(TYPING_EVERY)

    # -- in the turn's worker thread ---------------------------------------------------------------------------
    def _photos(self, key: Key, role: Role, folder: Path, taken: list[tuple[str, str, bytes]]) -> Photos:
        if not taken:
            return Photos()
        return photos_for(taken, sees_images(self._session(key, role, folder).agent.model))

    def _turn(
        self, key: Key, role: Role, folder: Path, text: str, images: list[dict[str, Any]]
    ) -> tuple[str, list[Path]]:
        from grove.claims.turn import with_marks  # a chat shows only the message: the marks go in it

        session = self._session(key, role, folder)
        before = snapshot(folder)
        result = session.run_turn(text, images or None)
        return with_marks(result.answer, result.claims), changed(folder, before, self.config.send_files)

    def _home(self, key: Key, role: Role) -> tuple[Settings, ChatSessions]:
        """The account's settings (its own home) and where its chats' session ids are kept (its own state.db)."""
        from grove.runtime.assemble import open_store

        settings = user_settings(self.settings, self.platform, key[1], owner=role == "owner")
        store = self.stores.get(settings.home)
        if store is None:
            store = self.stores[settings.home] = open_store(settings)
        return settings, ChatSessions(store.db, self.platform)

    def _approver(self, key: Key, role: Role) -> Callable[[ApprovalRequest], str | None]:
        chat_id, user_id = key
        assert self.approvals is not None
        if role in MANAGERS or self.config.users_approve:
            return self.approvals.approver(chat_id, user_id, lambda text: self._post(chat_id, text))

        def refuse(request: ApprovalRequest) -> str | None:
            self._post(chat_id, NO_APPROVALS)
            return None

        return refuse

    def _session(self, key: Key, role: Role, folder: Path) -> Session:
        from grove.runtime import Profile, Session

        if key in self.sessions:
            return self.sessions[key]
        chat_id, user_id = key
        settings, chats = self._home(key, role)
        sink = ChatSink(self.platform, chat_id)
        profile = Profile(
            source=self.platform,
            toolsets=self.config.toolsets,
            workspace=folder,
            allow_terminal=self.config.allow_terminal,
            approver=self._approver(key, role),
            long_lived=True,
            review=self.config.review,
            model=self.model,
            title=f"{self.platform} chat {chat_id}" + ("" if chat_id == user_id else f" ({user_id})"),
            spend_scopes=(f"user:{self.platform}:{user_id}",),  # spend.users caps hold per account
        )
        # an owner's chat stored before conversations were per account is found under the bare chat id
        previous = chats.get(self._chat_key(key)) or (chats.get(chat_id) if role == "owner" else None)
        session, _ = Session.open_or_resume(settings, profile, previous, sink, self.stores[settings.home])
        chats.set(self._chat_key(key), session.id)
        self.sessions[key] = session
        return session

    def session_id(self, chat_id: str, user_id: str) -> str | None:
        """The session a conversation continues (None for none, or a stranger's)."""
        role = self.role(user_id)
        if role in (None, "blocked"):
            return None
        _, chats = self._home((chat_id, user_id), role)
        return chats.get(self._chat_key((chat_id, user_id)))

    @staticmethod
    def _chat_key(key: Key) -> str:
        return chat_key(*key)

    def _forget(self, key: Key, role: Role) -> None:
        session = self.sessions.pop(key, None)
        if session is not None:
            session.close()
        _, chats = self._home(key, role)
        chats.forget(self._chat_key(key))
        if role == "owner":
            chats.forget(key[0])

    def _post(self, chat_id: str, text: str) -> None:
        """Send from a worker thread (approval timeouts), waiting until it went out."""
        assert self.loop is not None
        asyncio.run_coroutine_threadsafe(self._send(chat_id, text), self.loop).result(timeout=60)
