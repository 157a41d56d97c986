"""A throwaway PostgreSQL cluster in a temp dir (initdb + pg_ctl, trust auth on 127.0.0.1) for tests and the
chaos benchmark. As root the server runs as an unprivileged user (PostgreSQL refuses root)."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path


def find_initdb() -> str | None:
    found = shutil.which("initdb")
    if found:
        return found
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return candidates[-1] if candidates else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Cluster:
    root: Path
    port: int
    bindir: str
    user: str | None  # the OS user the server runs as (None: this one)

    def url(self, db: str = "postgres") -> str:
        return f"postgresql://grove@127.0.0.1:{self.port}/{db}"

    def create_db(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            # a name the tests choose; psycopg's types want a literal (or sql.SQL) query
            conn.execute(f'CREATE DATABASE "{name}"')  # pyright: ignore[reportCallIssue, reportArgumentType]
        return self.url(name)

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        prefix = ["runuser", "-u", self.user, "--"] if self.user else []
        return subprocess.run([*prefix, *args], capture_output=True, text=True, timeout=120, check=False)

    def stop(self) -> None:
        self._run(f"{self.bindir}/pg_ctl", "stop", "-D", str(self.root / "data"), "-m", "immediate", "-w")
        shutil.rmtree(self.root, ignore_errors=True)


def start_cluster() -> Cluster:
    """Start one; raises RuntimeError with the server's words when it cannot."""
    initdb = find_initdb()
    if initdb is None:
        raise RuntimeError("initdb not found (install PostgreSQL: apt-get install postgresql)")
    bindir = str(Path(initdb).parent)
    root = Path(tempfile.mkdtemp(prefix="grove-pg-"))
    root.chmod(0o755)
    user = None
    if os.geteuid() == 0:
        user = "nobody"
        shutil.chown(root, user=user)
    cluster = Cluster(root, _free_port(), bindir, user)
    steps = [
        [initdb, "-D", str(root / "data"), "-U", "grove", "-A", "trust", "-E", "UTF8", "--no-sync"],
        [
            f"{bindir}/pg_ctl",
            "start",
            "-D",
            str(root / "data"),
            "-l",
            str(root / "log"),
            "-w",
            "-o",
            f"-p {cluster.port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200",
        ],
    ]
    for step in steps:
        done = cluster._run(*step)
        if done.returncode != 0:
            log = (root / "log").read_text(errors="replace") if (root / "log").exists() else ""
            shutil.rmtree(root, ignore_errors=True)
            raise RuntimeError(
                f"{Path(step[0]).name} failed: {done.stderr.strip() or done.stdout.strip()} {log[-500:]}"
            )
    return cluster
