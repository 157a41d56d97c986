"""Escape attempts against every sandbox backend this machine offers; prints contained/escaped per attempt.

The main attempts were written before the defences of issue 13; the held-out ones were never tuned on.
Heavy by design (writes 2 GB, allocates 4.5 GB): run on a machine with room. Usage:
    python benchmarks/sandbox_escape.py [--only NAME,NAME] [--backends bwrap,landlock,rlimit]
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from grove.sandbox import Limits, make_scratch, run
from grove.sandbox.backend import detect_backend, landlock_info

PY = "/usr/bin/python3"
GiB = 1 << 30
CONNECT_UNIX = (
    "import socket, sys\nkind = socket.SOCK_DGRAM if sys.argv[2] == 'dgram' else socket.SOCK_STREAM\n"
    "s = socket.socket(socket.AF_UNIX, kind)\n"
    "try:\n target = sys.argv[1].replace('@', chr(0), 1)\n"
    " s.sendto(b'x', target) if kind == socket.SOCK_DGRAM else s.connect(target)\n print('CONNECTED')\n"
    "except OSError as e: print('REFUSED', e)\n"
)


@dataclass
class Ctx:
    backend: str
    parent: Path  # a host dir every uid may traverse; the workspace is inside it
    workspace: Path


Attempt = Callable[[Ctx], bool]  # True: escaped


def _unix(ctx: Ctx, where: str, kind: str = "stream") -> bool:
    if where == "abstract":
        target = f"@grove-escape-{os.getpid()}-{ctx.backend}-{kind}"
    elif where == "parent":
        target = str(ctx.parent / f"{kind}.sock")
    else:
        d = Path(tempfile.mkdtemp(prefix="grove-escape-sock-"))
        d.chmod(0o755)
        target = str(d / f"{kind}.sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM if kind == "dgram" else socket.SOCK_STREAM)
    server.bind(target.replace("@", "\0", 1))
    if kind == "stream":
        server.listen(8)
    if not target.startswith("@"):
        os.chmod(target, 0o777)
    try:
        r = run(
            [PY, "-c", CONNECT_UNIX, target, kind], ctx.workspace, Limits(timeout=10), backend=ctx.backend
        )
    finally:
        server.close()
        if not target.startswith("@"):
            os.unlink(target)
    return "CONNECTED" in r.stdout


def _usage(path: Path) -> int:
    return sum(p.stat().st_blocks * 512 for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def disk_2gb_in_10_files(ctx: Ctx) -> bool:
    code = (
        "for i in range(10):\n with open(f'big{i}', 'wb') as f:\n"
        "  for _ in range(205): f.write(b'x' * (1 << 20))\nprint('done')\n"
    )
    run([PY, "-c", code], ctx.workspace, Limits(timeout=120), backend=ctx.backend)
    written = _usage(ctx.workspace)
    print(f"      disk: {written / GiB:.2f} GiB written")
    return written > 1.5 * GiB


def _memory(ctx: Ctx, how: str) -> bool:
    hold = (
        "b = b'x' * (1536 << 20)"
        if how == "heap"
        else "fd = os.memfd_create('m')\nfor _ in range(1536): os.write(fd, b'x' * (1 << 20))"
    )
    code = (
        "import os, time\npids = []\nfor _ in range(3):\n pid = os.fork()\n if pid == 0:\n"
        + "".join(f"  {line}\n" for line in hold.splitlines())
        + "  print('held', flush=True); time.sleep(6); print('survived', flush=True); os._exit(0)\n"
        " pids.append(pid)\n"
        "for p in pids: os.waitpid(p, 0)\n"
    )
    r = run([PY, "-c", code], ctx.workspace, Limits(timeout=60), backend=ctx.backend)
    # all three allocate within the first seconds and then sleep 6 s: three survivors held 4.5 GiB at once
    # (counting "held" alone was wrong: the kernel may kill a process after it printed)
    held, survived = r.stdout.count("held"), r.stdout.count("survived")
    print(f"      memory ({how}): {held} of 3 processes held 1.5 GiB, {survived} kept it to the end")
    return survived == 3


def _fork_bomb(ctx: Ctx, threads: bool) -> bool:
    spawn = (
        "threading.Thread(target=time.sleep, args=(5,), daemon=True).start()"
        if threads
        else "pid = os.fork()\n if pid == 0: time.sleep(5); os._exit(0)"
    )
    code = (
        "import os, time, threading\nn = 0\nfor _ in range(3000):\n try:\n"
        + "".join(f"  {line.strip()}\n" for line in spawn.splitlines())
        + " except (OSError, RuntimeError): break\n n += 1\nprint('spawned', n, flush=True)\n"
    )
    r = run([PY, "-c", code], ctx.workspace, Limits(timeout=30), backend=ctx.backend)
    n = int(r.stdout.split()[1]) if r.stdout.startswith("spawned") else 0
    print(f"      {'threads' if threads else 'processes'}: {n} started")
    return n > 512


def setsid_child_survives(ctx: Ctx) -> bool:
    marker = f"escapesetsid{os.getpid()}{ctx.backend}"
    script = f"setsid /bin/sh -c 'exec -a {marker} sleep 60' & echo started"
    run(["/bin/bash", "-c", script], ctx.workspace, Limits(timeout=5), backend=ctx.backend)
    time.sleep(0.5)
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    os.kill(int(entry.name), 9)
                    return True
            except OSError:
                continue
    return False


def read_root(ctx: Ctx) -> bool:
    code = "import os\ntry: print('LISTED', os.listdir('/root'))\nexcept OSError as e: print('DENIED')\n"
    r = run([PY, "-c", code], ctx.workspace, backend=ctx.backend)
    return "LISTED" in r.stdout and r.stdout.strip() != "LISTED []"


def write_usr(ctx: Ctx) -> bool:
    target = f"/usr/grove-escape-{os.getpid()}"
    run(["/bin/sh", "-c", f"echo x > {target}"], ctx.workspace, backend=ctx.backend)
    escaped = os.path.exists(target)
    if escaped:
        os.unlink(target)
    return escaped


def network(ctx: Ctx) -> bool:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    code = f"import socket\nsocket.create_connection(('127.0.0.1', {server.getsockname()[1]}), 2); print('CONNECTED')"
    try:
        r = run([PY, "-c", code], ctx.workspace, Limits(timeout=10), backend=ctx.backend)
    finally:
        server.close()
    return "CONNECTED" in r.stdout


def env_secrets(ctx: Ctx) -> bool:
    os.environ["GROVE_ESCAPE_API_KEY"] = "canary-env-51e2"
    code = (
        "import os, glob\nseen = repr(dict(os.environ))\nfor p in glob.glob('/proc/*/environ'):\n"
        " try: seen += open(p, 'rb').read().decode(errors='replace')\n except OSError: pass\n"
        "print('canary-env-51e2' in seen)\n"
    )
    try:
        r = run(
            [PY, "-c", code], ctx.workspace, env={"OPENAI_API_KEY": "canary-env-51e2"}, backend=ctx.backend
        )
    finally:
        del os.environ["GROVE_ESCAPE_API_KEY"]
    return r.stdout.strip() != "False"


def proc1_environ(ctx: Ctx) -> bool:
    code = "try: print('READ', len(open('/proc/1/environ', 'rb').read()))\nexcept OSError: print('DENIED')"
    r = run([PY, "-c", code], ctx.workspace, backend=ctx.backend)
    return r.stdout.startswith("READ") and r.stdout.strip() != "READ 0"


def dev_shm_fill(ctx: Ctx) -> bool:
    script = "dd if=/dev/zero of=/dev/shm/grove-escape bs=1M count=2048 2>&1 | tail -1; rm -f /dev/shm/grove-escape"
    r = run(["/bin/sh", "-c", script], ctx.workspace, Limits(timeout=60), backend=ctx.backend)
    return "2147483648 bytes" in r.stdout


def many_small_files(ctx: Ctx) -> bool:
    code = "data = b'x' * (200 << 10)\nfor i in range(10000): open(f's{i}', 'wb').write(data)\nprint('done')"
    run([PY, "-c", code], ctx.workspace, Limits(timeout=120), backend=ctx.backend)
    written = _usage(ctx.workspace)
    print(f"      small files: {written / GiB:.2f} GiB written")
    return written > 1.5 * GiB


def git_usage(ctx: Ctx) -> bool:
    """'Escaped' here means git did not work: status, log, diff and commit in a workspace repo, over two runs."""
    first = "git init -q && echo a > f && git add f && git commit -qm one && git log --oneline && git diff"
    second = (
        "echo b >> f && git status --short && git diff --stat && git commit -qam two && git log --oneline"
    )
    for script in (first, second):
        r = run(
            ["/bin/sh", "-c", f"set -e; {script}"], ctx.workspace, Limits(timeout=30), backend=ctx.backend
        )
        if r.exit_code != 0:
            print(f"      git failed: {r.output.strip()[-200:]}")
            return True
    return False


MAIN: dict[str, Attempt] = {
    "unix_socket_tmp": lambda c: _unix(c, "tmp"),
    "unix_socket_parent": lambda c: _unix(c, "parent"),
    "unix_socket_abstract": lambda c: _unix(c, "abstract"),
    "disk_2gb_10_files": disk_2gb_in_10_files,
    "mem_3x1.5gb": lambda c: _memory(c, "heap"),
    "fork_bomb": lambda c: _fork_bomb(c, threads=False),
    "setsid_child": setsid_child_survives,
    "read_root": read_root,
    "write_usr": write_usr,
    "network": network,
    "env_secrets": env_secrets,
    "proc1_environ": proc1_environ,
    "git": git_usage,
}
HELD_OUT: dict[str, Attempt] = {
    "unix_dgram_sendto": lambda c: _unix(c, "tmp", "dgram"),
    "unix_dgram_abstract": lambda c: _unix(c, "abstract", "dgram"),
    "memfd_3x1.5gb": lambda c: _memory(c, "memfd"),
    "thread_bomb": lambda c: _fork_bomb(c, threads=True),
    "dev_shm_2gb": dev_shm_fill,
    "small_files_2gb": many_small_files,
}


def _attempt(backend: str, name: str, fn: Attempt) -> bool:
    parent = Path(tempfile.mkdtemp(prefix="grove-escape-"))
    parent.chmod(0o755)
    try:
        return fn(Ctx(backend, parent, make_scratch(parent)))
    except Exception as e:  # an attempt that crashes the runner is a finding, not a containment
        print(f"      {name}: runner raised {type(e).__name__}: {e}")
        return True
    finally:
        subprocess.run(["rm", "-rf", str(parent)], check=False)


def _unattended_refused() -> bool:
    ws = make_scratch()
    try:
        r = run(["/bin/sh", "-c", "touch ran"], ws, backend="rlimit", unattended=True)  # type: ignore[call-arg]
        return not (ws / "ran").exists() and r.exit_code != 0
    except TypeError:
        return False  # no such option: unattended runs go on without isolation
    finally:
        shutil.rmtree(ws, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="", help="comma-separated attempt names")
    parser.add_argument("--backends", default="", help="comma-separated backends (default: all available)")
    args = parser.parse_args()
    info = detect_backend()
    backends = list(dict.fromkeys([info.name, *(["landlock"] if landlock_info() else []), "rlimit"]))
    if args.backends:
        backends = [b for b in backends if b in args.backends.split(",")]
    only = set(filter(None, args.only.split(",")))
    print(f"active backend: {info.name} ({info.reason}); uid {os.geteuid()}")
    escapes: dict[str, dict[str, list[str]]] = {}
    for group, attempts in (("main", MAIN), ("held-out", HELD_OUT)):
        for backend in backends:
            found = escapes.setdefault(group, {}).setdefault(backend, [])
            print(f"{group} / {backend}:")
            for name, fn in attempts.items():
                if only and name not in only:
                    continue
                if name == "read_root" and os.geteuid() != 0:
                    print(f"  {name:<22} n/a (not root)")
                    continue
                t = time.monotonic()
                escaped = _attempt(backend, name, fn)
                print(f"  {name:<22} {'ESCAPED' if escaped else 'contained'}  ({time.monotonic() - t:.1f}s)")
                if escaped:
                    found.append(name)
    refused = _unattended_refused()
    print(f"rlimit backend, unattended run: {'refused' if refused else 'RAN WITHOUT ISOLATION'}")
    main_found, held = escapes.get("main", {}), escapes.get("held-out", {})

    def held_by_all(name: str) -> int:
        isolated = [b for b in backends if b != "rlimit"]
        return int(all(name not in main_found.get(b, []) for b in isolated))

    figures = {f"{b}_escapes": len([n for n in main_found.get(b, []) if n != "git"]) for b in backends}
    figures |= {f"heldout_{b}_escapes": len(held.get(b, [])) for b in backends}
    figures |= {
        "unix_socket_blocked": int(
            all(held_by_all(n) for n in ("unix_socket_tmp", "unix_socket_parent", "unix_socket_abstract"))
        ),
        "disk_cap_enforced": held_by_all("disk_2gb_10_files"),
        "mem_cap_enforced": held_by_all("mem_3x1.5gb"),
        "procs_cap_enforced": held_by_all("fork_bomb"),
        "git_ok": int(all("git" not in main_found.get(b, []) for b in backends)),
        "rlimit_unattended_refused": int(refused),
    }
    print(" ".join(f"{k}={v}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
