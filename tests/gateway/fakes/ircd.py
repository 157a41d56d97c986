"""A real IRC server for tests: Debian's ngircd on 127.0.0.1 with its own config in a temp dir (restartable on the
same port, to drop every connection), and a plain-socket IRC user who talks to grove and records what it hears."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
from pathlib import Path

from tests.gateway.fakes.waiting import wait_for_port, wait_until

NGIRCD = shutil.which("ngircd") or "/usr/sbin/ngircd"
CONFIG = """[Global]
Name = irc.grove.test
Info = grove test network
AdminInfo1 = grove tests
AdminEMail = nobody@grove.test
Listen = 127.0.0.1
Ports = {port}
MotdPhrase = test
PidFile = {folder}/ngircd.pid
{uid}
[Limits]
MaxConnectionsIP = 0
PingTimeout = 120
[Options]
DNS = no
Ident = no
PAM = no
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Ircd:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        uid = (
            "ServerUID = nobody\nServerGID = nogroup" if os.geteuid() == 0 else ""
        )  # ngircd will not run as root
        (folder / "ngircd.conf").write_text(CONFIG.format(port=self.port, folder=folder, uid=uid))
        folder.chmod(0o777)

    @property
    def url(self) -> str:
        return f"irc://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [NGIRCD, "--nodaemon", "--config", str(self.folder / "ngircd.conf")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for_port(self.port, "ngircd")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(5)
            self.proc = None


class IrcUser:
    """One person on the network: `say` a line, `heard` what was sent to them (or their channels)."""

    def __init__(self, port: int, nick: str, user: str | None = None) -> None:
        self.nick = nick
        self.lines: list[tuple[str, str, str]] = []  # (from nick, target, text)
        self.cond = threading.Condition()
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.registered = threading.Event()
        self._send(f"NICK {nick}\r\nUSER {user or nick} 0 * :{nick}")
        threading.Thread(target=self._read, daemon=True).start()
        assert self.registered.wait(10), f"{nick} could not register"

    def _send(self, text: str) -> None:
        self.sock.sendall(text.encode() + b"\r\n")

    def _read(self) -> None:
        buf = b""
        while True:
            try:
                chunk = self.sock.recv(65536)
            except OSError:
                return
            if not chunk:
                return
            buf += chunk
            while b"\r\n" in buf:
                raw, buf = buf.split(b"\r\n", 1)
                line = raw.decode(errors="replace")
                parts = line.split(" ", 3)
                if parts[0] == "PING":
                    self._send("PONG " + line[5:])
                elif len(parts) > 1 and parts[1] == "001":
                    self.registered.set()
                elif len(parts) == 4 and parts[1] == "PRIVMSG":
                    with self.cond:
                        self.lines.append((parts[0][1:].split("!")[0], parts[2], parts[3][1:]))
                        self.cond.notify_all()

    def say(self, target: str, text: str) -> None:
        self._send(f"PRIVMSG {target} :{text}")

    def join(self, channel: str) -> None:
        self._send(f"JOIN {channel}")

    def heard(self, count: int = 1, timeout: float = 15.0, where: str | None = None) -> list[str]:
        """The first `count` lines grove sent (to `where`: a channel, else to this user)."""

        def got() -> list[str]:
            return [t for f, to, t in self.lines if f.startswith("grove") and to == (where or self.nick)]

        return wait_until(
            self.cond,
            lambda: [got()] if len(got()) >= count else [],
            lambda: f"{self.nick} heard only {got()}",
            timeout,
        )[0]

    def close(self) -> None:
        self.sock.close()
