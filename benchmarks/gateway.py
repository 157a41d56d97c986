"""Gateway throughput and recovery: messages per second through the shared core (an in-memory platform, many users,
each message a full turn on the script model), then per platform through its real adapter against the test
servers (fake Telegram, signed webhook receiver, real ngircd, fake Matrix homeserver, real dovecot + aiosmtpd,
fake Mattermost, signal-cli daemon and DingTalk stream),
and how long each takes to be back after its connection is dropped.

Run: python benchmarks/gateway.py [--messages N]   (platforms whose server is missing are reported as skipped)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.gateway.fakes: the servers the tests use

from grove.config import Settings
from grove.config.gateway import GatewayPlatformConfig
from grove.gateway.adapter import Choice, Incoming, PlatformAdapter
from grove.gateway.core import Gateway
from grove.llm.script import ScriptModel


def answer(messages: list[dict[str, Any]], tools: list[Any]) -> dict[str, Any]:
    return {"text": "ok"}


def until(pred: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise TimeoutError("the gateway did not answer in time")
        time.sleep(0.005)


class Counting(PlatformAdapter):
    name = "bench"
    max_text = 4000
    token_env = "BENCH_TOKEN"

    def __init__(self, config: GatewayPlatformConfig) -> None:
        super().__init__(config)
        self.sent = 0

    async def open(self) -> None: ...
    async def close(self) -> None: ...
    async def connect(self, on_message: Any, on_button: Any) -> None: ...
    async def stop(self) -> None: ...

    async def send_text(self, chat_id: str, text: str) -> None:
        self.sent += 1

    async def send_file(self, chat_id: str, path: Path) -> None: ...
    async def ask(self, chat_id: str, text: str, choices: list[Choice]) -> None: ...
    async def typing(self, chat_id: str) -> None: ...


def config(tmp: Path, **extra: Any) -> GatewayPlatformConfig:
    return GatewayPlatformConfig(workspace=str(tmp / "chats"), toolsets=["files"], review="off", **extra)


def bench_core(tmp: Path, count: int, users: int) -> float:
    cfg = config(tmp, allow_everyone=True)
    adapter = Counting(cfg)
    gateway = Gateway(
        Settings(home=tmp / "home-core", gateway={"bench": cfg}), adapter, model=ScriptModel(answer)
    )

    async def main() -> float:
        from grove.gateway.approvals import ApprovalBox

        gateway.loop = asyncio.get_running_loop()
        gateway.approvals = ApprovalBox(gateway.loop, adapter.ask)
        start = time.perf_counter()
        for i in range(count):
            user = f"u{i % users}"
            await gateway.on_message(Incoming(user, user, f"message {i}", message_id=f"m{i}"))
        await gateway.drain()
        took = time.perf_counter() - start
        for session in gateway.sessions.values():
            session.close()
        assert adapter.sent == count, adapter.sent
        return count / took

    return asyncio.run(main())


def timed(gateway: Gateway, send: Callable[[int], None], answered: Callable[[], int], count: int) -> float:
    start = time.perf_counter()
    for i in range(count):
        send(i)
    until(lambda: answered() >= count)
    return count / (time.perf_counter() - start)


def bench_telegram(tmp: Path, count: int) -> tuple[float, float | None]:
    from tests.gateway.fakes.runner import running
    from tests.gateway.fakes.telegram_server import FakeTelegram

    from grove.gateway.telegram import TelegramAdapter

    os.environ["TELEGRAM_BOT_TOKEN"] = "123:TEST"
    with FakeTelegram("123:TEST") as fake:
        cfg = config(tmp, owners=["42"], base_url=fake.url)
        gateway = Gateway(
            Settings(home=tmp / "home-tg", gateway={"telegram": cfg}),
            TelegramAdapter(cfg),
            model=ScriptModel(answer),
        )
        with running(gateway):
            rate = timed(
                gateway,
                lambda i: fake.user_says(42, 42, f"m{i}"),
                lambda: len(fake.sent("sendMessage")),
                count,
            )
    return rate, None  # python-telegram-bot's own polling retries; the fake has no connection to drop


def bench_webhook(tmp: Path, count: int) -> tuple[float, float | None]:
    from tests.gateway.fakes.runner import running
    from tests.gateway.fakes.webhook_receiver import Receiver, post_event

    from grove.gateway.webhook import WebhookAdapter

    os.environ["GROVE_WEBHOOK_SECRET"] = "bench"
    with Receiver("bench") as receiver:
        cfg = config(tmp, owners=["ada"], base_url=receiver.url + "/in", port=0)
        adapter = WebhookAdapter(cfg)
        gateway = Gateway(
            Settings(home=tmp / "home-wh", gateway={"webhook": cfg}), adapter, model=ScriptModel(answer)
        )
        with running(gateway):
            until(lambda: adapter._stop is not None)
            event = lambda i: {"id": f"e{i}", "chat": "c", "user": "ada", "text": f"m{i}"}  # noqa: E731
            rate = timed(
                gateway,
                lambda i: post_event(adapter.port, "bench", event(i)),
                lambda: len(receiver.sent("message")),
                count,
            )
            receiver.down = 1  # the receiver is restarting: the next message is retried until it takes it
            start = time.perf_counter()
            post_event(adapter.port, "bench", event(count))
            until(lambda: len(receiver.sent("message")) > count)
            recovery = time.perf_counter() - start
    return rate, recovery


def bench_irc(tmp: Path, count: int) -> tuple[float, float | None]:
    from tests.gateway.fakes.ircd import NGIRCD, Ircd, IrcUser
    from tests.gateway.fakes.runner import running

    from grove.gateway.irc import IrcAdapter

    if not os.path.exists(NGIRCD):
        raise FileNotFoundError("ngircd")
    ircd = Ircd(Path(tempfile.mkdtemp(prefix="grove-bench-irc-")))
    ircd.start()
    try:
        cfg = config(
            tmp,
            owners=["~alice@127.0.0.1"],
            base_url=ircd.url,
            options={"lines_per_second": 1000, "burst": 1000},
        )
        adapter = IrcAdapter(cfg)
        gateway = Gateway(
            Settings(home=tmp / "home-irc", gateway={"irc": cfg}), adapter, model=ScriptModel(answer)
        )
        with running(gateway):
            until(lambda: adapter.ready.is_set())
            # ngircd paces every client (its flood control), grove's replies too: the figure is the server's pace
            people = [IrcUser(ircd.port, f"user{n}") for n in range(5)]
            cfg.owners[:] = [f"~user{n}@127.0.0.1" for n in range(5)]
            rate = timed(
                gateway,
                lambda i: people[i % 5].say("grove", f"m{i}"),
                lambda: sum(len(p.lines) for p in people),
                count,
            )
            for person in people:
                person.close()
            ircd.stop()
            ircd.start()
            start = time.perf_counter()
            until(lambda: adapter.ready.is_set())
            recovery = time.perf_counter() - start
    finally:
        ircd.stop()
    return rate, recovery


def bench_matrix(tmp: Path, count: int) -> tuple[float, float | None]:
    from tests.gateway.fakes.matrix_server import FakeMatrix
    from tests.gateway.fakes.runner import running

    from grove.gateway.matrix import MatrixAdapter

    os.environ["MATRIX_ACCESS_TOKEN"] = "tok"
    with FakeMatrix("tok") as fake:
        cfg = config(tmp, owners=["@ada:fake.test"], base_url=fake.url, options={"poll_ms": 2000})
        adapter = MatrixAdapter(cfg)
        gateway = Gateway(
            Settings(home=tmp / "home-mx", gateway={"matrix": cfg}), adapter, model=ScriptModel(answer)
        )
        with running(gateway):
            until(lambda: adapter.synced.is_set())
            rate = timed(
                gateway,
                lambda i: fake.user_says("!r:fake.test", "@ada:fake.test", f"m{i}"),
                lambda: len(fake.bot_texts("!r:fake.test")),
                count,
            )
            start = time.perf_counter()
            fake.fail(1)
            until(lambda: not adapter.synced.is_set())
            until(lambda: adapter.synced.is_set())
            recovery = time.perf_counter() - start
    return rate, recovery


def bench_email(tmp: Path, count: int) -> tuple[float, float | None]:
    from tests.gateway.fakes.mailserver import Dovecot, Outbox, can_run_dovecot, mail
    from tests.gateway.fakes.runner import running

    from grove.gateway.mail import EmailAdapter

    if not can_run_dovecot():
        raise FileNotFoundError("dovecot (as root)")
    os.environ["EMAIL_PASSWORD"] = "pw"
    imap = Dovecot("grove@grove.test", "pw")
    imap.start()
    try:
        with Outbox() as smtp:
            options = {
                "address": "grove@grove.test",
                "imap": imap.url,
                "smtp": smtp.url,
                "poll_seconds": 0.05,
                "smtp_login": False,
            }
            cfg = config(tmp, owners=["ada@example.org"], options=options)
            adapter = EmailAdapter(cfg)
            gateway = Gateway(
                Settings(home=tmp / "home-mail", gateway={"email": cfg}), adapter, model=ScriptModel(answer)
            )
            with running(gateway):
                until(lambda: adapter.connected)
                rate = timed(
                    gateway,
                    lambda i: imap.deliver(mail("ada@example.org", "grove@grove.test", f"m{i}", "hi")),
                    lambda: len(smtp.messages),
                    count,
                )
                imap.stop()
                imap.start()
                start = time.perf_counter()
                until(lambda: not adapter.connected or adapter.backoff.reconnects > 0)
                until(lambda: adapter.connected)
                recovery = time.perf_counter() - start
    finally:
        imap.remove()
    return rate, recovery


def bench_mattermost(tmp: Path, count: int) -> tuple[float, float | None]:
    from tests.gateway.fakes.mattermost_server import FakeMattermost
    from tests.gateway.fakes.runner import running

    from grove.gateway.mattermost import MattermostAdapter

    os.environ["MATTERMOST_TOKEN"] = "tok"
    with FakeMattermost("tok") as fake:
        cfg = config(tmp, owners=["ada"], base_url=fake.url, port=0)
        adapter = MattermostAdapter(cfg)
        gateway = Gateway(
            Settings(home=tmp / "home-mm", gateway={"mattermost": cfg}), adapter, model=ScriptModel(answer)
        )
        with running(gateway):
            fake.wait_connected()
            rate = timed(
                gateway, lambda i: fake.user_posts("dm", "ada", f"m{i}"), lambda: len(fake.texts("dm")), count
            )
            start = time.perf_counter()
            fake.drop()
            fake.wait_connected(count=2)
            recovery = time.perf_counter() - start
    return rate, recovery


def bench_signal(tmp: Path, count: int) -> tuple[float, float | None]:
    from tests.gateway.fakes.runner import running
    from tests.gateway.fakes.signal_daemon import FakeSignalDaemon

    from grove.gateway.signal_cli import SignalAdapter

    with FakeSignalDaemon() as daemon:
        cfg = config(tmp, owners=["uuid-ada"], base_url=daemon.url)
        adapter = SignalAdapter(cfg)
        gateway = Gateway(
            Settings(home=tmp / "home-sig", gateway={"signal": cfg}), adapter, model=ScriptModel(answer)
        )
        with running(gateway):
            daemon.wait_streams(1)
            rate = timed(
                gateway,
                lambda i: daemon.user_says("uuid-ada", "+1", f"m{i}"),
                lambda: len(daemon.texts("uuid-ada")),
                count,
            )
            start = time.perf_counter()
            daemon.drop()
            daemon.wait_streams(2)
            recovery = time.perf_counter() - start
    return rate, recovery


def bench_dingtalk(tmp: Path, count: int) -> tuple[float, float | None]:
    from tests.gateway.fakes.dingtalk_server import FakeDingTalk
    from tests.gateway.fakes.runner import running

    from grove.gateway.dingtalk import DingTalkAdapter

    os.environ["DINGTALK_APP_SECRET"] = "s"
    with FakeDingTalk("key", "s") as fake:
        cfg = config(tmp, owners=["ada"], base_url=fake.url, options={"app_key": "key"})
        adapter = DingTalkAdapter(cfg)
        gateway = Gateway(
            Settings(home=tmp / "home-dt", gateway={"dingtalk": cfg}), adapter, model=ScriptModel(answer)
        )
        with running(gateway):
            fake.wait_connects(1)
            rate = timed(
                gateway,
                lambda i: fake.user_says("cid", "ada", f"m{i}"),
                lambda: len(fake.texts("cid")),
                count,
            )
            start = time.perf_counter()
            fake.drop()
            fake.wait_connects(2)
            recovery = time.perf_counter() - start
    return rate, recovery


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--messages", type=int, default=200, help="messages through the core (platforms: a quarter)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="grove-bench-gw-") as folder:
        tmp = Path(folder)
        os.environ["GROVE_HOME"] = str(tmp / "home")
        core = bench_core(tmp, args.messages, users=10)
        print(f"core (in-memory platform, 10 users): {core:8.1f} messages/s")
        figures = {"core_msgs_per_s": f"{core:.1f}"}
        per = max(10, args.messages // 4)
        for name, bench in (
            ("telegram", bench_telegram),
            ("webhook", bench_webhook),
            ("irc", bench_irc),
            ("matrix", bench_matrix),
            ("email", bench_email),
            ("mattermost", bench_mattermost),
            ("signal", bench_signal),
            ("dingtalk", bench_dingtalk),
        ):
            try:
                rate, recovery = bench(tmp, per if name != "email" else max(5, per // 4))
            except FileNotFoundError as exc:
                print(f"{name:<10} skipped: {exc} is not installed")
                continue
            back = (
                f"{recovery * 1000:7.0f} ms back after a drop"
                if recovery is not None
                else "  (no drop measured)"
            )
            paced = "  (ngircd's flood control paces each client)" if name == "irc" else ""
            print(f"{name:<10} {rate:8.1f} messages/s   {back}{paced}")
            figures[f"{name}_msgs_per_s"] = f"{rate:.1f}"
            if recovery is not None:
                figures[f"{name}_reconnect_ms"] = f"{recovery * 1000:.0f}"
    print(" ".join(f"{k}={v}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
