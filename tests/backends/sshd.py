"""A real OpenSSH server for tests: Debian's sshd in a temp dir on 127.0.0.1, its own host key, one authorized
client key, and an ssh config + known_hosts for the client, as the user's own would be."""

from __future__ import annotations

import getpass
import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

SSHD = "/usr/sbin/sshd"
SFTP_SERVERS = (
    "/usr/lib/openssh/sftp-server",
    "/usr/libexec/openssh/sftp-server",
    "/usr/libexec/sftp-server",
)
ALIAS = "grove-test"


def _keygen(path: Path) -> str:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True)
    return (path.with_suffix(".pub")).read_text().strip()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Sshd:
    dir: Path
    port: int
    host_pub: str
    ssh_config: Path
    known_hosts: Path
    remote_ws: Path
    proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [SSHD, "-D", "-e", "-f", str(self.dir / "sshd_config")],
            stdout=subprocess.DEVNULL,
            stderr=open(self.dir / "sshd.log", "ab"),  # noqa: SIM115 - kept open by the child
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"sshd exited {self.proc.returncode}: {(self.dir / 'sshd.log').read_text()[-800:]}"
                )
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("sshd did not start listening within 10 s")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(5)
        self.proc = None

    def kill_sessions(self) -> int:
        """SIGKILL every per-connection sshd child: each client's connection drops, the listener stays."""
        assert self.proc is not None
        killed = 0
        for pid in _children(self.proc.pid):
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except ProcessLookupError:
                pass
        return killed

    @property
    def spec(self) -> str:
        return f"ssh:{ALIAS}:{self.remote_ws}"


def _children(pid: int) -> list[int]:
    """Every descendant of `pid`: as root a connection is a monitor and its unprivileged child; without root
    sshd cannot separate privileges and the process holding the socket may sit a level further down."""
    out: list[int] = []
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except FileNotFoundError:
        return out
    for task in tasks:
        try:
            text = (task / "children").read_text().split()
        except FileNotFoundError:
            continue
        for child in map(int, text):
            out += [child, *_children(child)]
    return out


def unavailable() -> str | None:
    if not os.path.exists(SSHD):
        return f"{SSHD} is missing (Debian: apt-get install -y openssh-server)"
    if not shutil.which("ssh-keygen"):
        return "ssh-keygen is missing (Debian: apt-get install -y openssh-client)"
    if not any(os.path.exists(p) for p in SFTP_SERVERS):
        return "no sftp-server found"
    return None


def make_sshd(base: Path) -> Sshd:
    base.mkdir(parents=True, exist_ok=True)
    os.chmod(base, 0o755)
    host_pub = _keygen(base / "host_key")
    client_pub = _keygen(base / "client_key")
    (base / "authorized_keys").write_text(client_pub + "\n")
    remote_ws = base / "remote-ws"
    remote_ws.mkdir()
    port = _free_port()
    sftp = next(p for p in SFTP_SERVERS if os.path.exists(p))
    root = os.geteuid() == 0
    if root:
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # sshd's privilege separation folder
    (base / "sshd_config").write_text(
        f"""Port {port}
ListenAddress 127.0.0.1
HostKey {base}/host_key
PidFile {base}/sshd.pid
AuthorizedKeysFile {base}/authorized_keys
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PermitRootLogin {"prohibit-password" if root else "no"}
Subsystem sftp {sftp}
LogLevel ERROR
MaxStartups 50
"""
    )
    ssh_config = base / "ssh_config"
    known_hosts = base / "known_hosts"
    ssh_config.write_text(
        f"""Host {ALIAS}
  HostName 127.0.0.1
  Port {port}
  User {getpass.getuser()}
  IdentityFile {base}/client_key
  IdentitiesOnly yes
  UserKnownHostsFile {known_hosts}
"""
    )
    known_hosts.write_text(f"[127.0.0.1]:{port} {host_pub}\n")
    return Sshd(base, port, host_pub, ssh_config, known_hosts, remote_ws)
