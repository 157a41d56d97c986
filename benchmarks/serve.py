"""grove serve under load: requests/s and p50/p95 latency of /v1/chat/completions with 1, 8 and 32 concurrent
clients, and the server's memory (RSS) over 1,000 requests spread over 32 conversations. The server is the real
`grove serve` CLI in its own process on the script model (a fresh GROVE_HOME); clients are httpx on 127.0.0.1.

Run: python benchmarks/serve.py [--requests 200] [--memory-requests 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

SCRIPT = "- text: Hello from the script model.\n"


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def start_server(home: Path) -> tuple[subprocess.Popen[str], str, str]:
    env = {**os.environ, "GROVE_HOME": str(home), "GROVE_MODEL": f"script:{home / 'script.yaml'}"}
    home.mkdir(parents=True, exist_ok=True)
    (home / "script.yaml").write_text(SCRIPT)
    grove = shutil.which("grove") or sys.exit("grove is not on PATH (pip install -e '.[serve]')")
    key = subprocess.run(
        [grove, "serve", "keys", "add", "bench"], env=env, capture_output=True, text=True, check=True
    ).stdout.strip()
    proc = subprocess.Popen(
        [
            grove,
            "serve",
            "--port",
            "0",
            "--rate",
            "1000000",
            "--burst",
            "1000000",
            "-t",
            "",
            "--approvals",
            "deny",
            "--workspace",
            str(home / "ws"),
        ],
        env=env,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stderr is not None
    for line in proc.stderr:
        if match := re.search(r"base_url (http://\S+/v1)", line):
            return proc, match.group(1), key
    sys.exit(f"grove serve did not start (exit {proc.wait()})")


async def load(
    base: str, key: str, clients: int, total: int, conversations: int = 0
) -> tuple[float, list[float]]:
    """`total` requests from `clients` concurrent clients; returns (wall seconds, latencies)."""
    latencies: list[float] = []
    counter = iter(range(total))
    headers = {"Authorization": f"Bearer {key}"}

    async def client(http: httpx.AsyncClient) -> None:
        for i in counter:
            extra = {"X-Grove-Conversation": f"c{i % conversations}"} if conversations else {}
            body = {"model": "grove", "messages": [{"role": "user", "content": f"request {i}"}]}
            t = time.perf_counter()
            r = await http.post(f"{base}/chat/completions", json=body, headers={**headers, **extra})
            latencies.append(time.perf_counter() - t)
            if r.status_code != 200:
                raise SystemExit(f"request {i}: {r.status_code} {r.text[:200]}")

    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(timeout=120, limits=limits) as http:
        start = time.perf_counter()
        await asyncio.gather(*(client(http) for _ in range(clients)))
    return time.perf_counter() - start, latencies


def pct(values: list[float], p: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(p) - 1] * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200, help="requests per concurrency level")
    parser.add_argument("--memory-requests", type=int, default=1000)
    args = parser.parse_args()
    figures: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        proc, base, key = start_server(Path(tmp) / "home")
        try:
            asyncio.run(load(base, key, 4, 40))  # warm-up: imports, first sessions
            print(f"{'clients':>8} {'req/s':>8} {'p50 ms':>8} {'p95 ms':>8}")
            for clients in (1, 8, 32):
                wall, lat = asyncio.run(load(base, key, clients, args.requests))
                rps = len(lat) / wall
                print(f"{clients:>8} {rps:>8.1f} {pct(lat, 50):>8.1f} {pct(lat, 95):>8.1f}")
                figures |= {
                    f"rps_{clients}": f"{rps:.1f}",
                    f"p50_ms_{clients}": f"{pct(lat, 50):.1f}",
                    f"p95_ms_{clients}": f"{pct(lat, 95):.1f}",
                }
            n = args.memory_requests
            before = rss_mib(proc.pid)
            samples = [before]
            for _ in range(10):  # 32 conversations, each resumed ~n/32 times
                asyncio.run(load(base, key, 8, n // 10, conversations=32))
                samples.append(rss_mib(proc.pid))
            after = samples[-1]
            print(
                f"RSS over {n} requests (32 conversations, 8 clients): "
                + " ".join(f"{s:.0f}" for s in samples)
            )
            print(
                f"RSS {before:.1f} MiB -> {after:.1f} MiB (+{after - before:.1f}); max {max(samples):.1f} MiB"
            )
            figures |= {
                "rss_start_mib": f"{before:.1f}",
                "rss_end_mib": f"{after:.1f}",
                "rss_growth_mib": f"{after - before:.1f}",
            }
        finally:
            proc.terminate()
            proc.wait(30)
    print(" ".join(f"{k}={v}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
