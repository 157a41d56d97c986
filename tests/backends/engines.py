"""A container engine for tests where the machine can run one: Podman (or Docker) with an image built from
scratch out of Debian's busybox-static (no registry is reachable), imported once per test session."""

from __future__ import annotations

import shutil
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

IMAGE = "localhost/grove-test-busybox:1"  # bump the tag when APPLETS change: an existing image is reused
BUSYBOX = "/bin/busybox"
APPLETS = (
    "sh",
    "true",
    "env",
    "kill",
    "ps",
    "ls",
    "cat",
    "echo",
    "pwd",
    "mkdir",
    "rm",
    "sleep",
    "head",
    "tr",
    "timeout",
    "id",
    "wc",
    "grep",
)


@dataclass
class Engine:
    name: str
    args: list[str]  # global flags the machine needs (e.g. --runtime runc on a hybrid cgroup host)


def _image_tar(tmp: Path) -> Path:
    tar = tmp / "busybox.tar"
    with tarfile.open(tar, "w") as t:
        for folder in ("bin", "tmp", "workspace"):
            info = tarfile.TarInfo(folder)
            info.type, info.mode = tarfile.DIRTYPE, 0o1777 if folder == "tmp" else 0o755
            t.addfile(info)
        t.add(BUSYBOX, "bin/busybox")
        for applet in APPLETS:
            info = tarfile.TarInfo(f"bin/{applet}")
            info.type, info.linkname = tarfile.SYMTYPE, "busybox"
            t.addfile(info)
    return tar


def find_engine(tmp: Path) -> tuple[Engine | None, str]:
    """(an engine that runs the test image, '') or (None, why not)."""
    engine = next((e for e in ("podman", "docker") if shutil.which(e)), None)
    if engine is None:
        return None, "neither podman nor docker is installed (Debian: apt-get install -y podman runc)"
    if not Path(BUSYBOX).exists():
        return (
            None,
            f"{BUSYBOX} is missing to build a test image from (Debian: apt-get install -y busybox-static)",
        )
    try:
        have = subprocess.run([engine, "image", "inspect", IMAGE], capture_output=True, timeout=60)
        if have.returncode != 0:  # imported once per machine: the image is 2 MB of busybox
            made = subprocess.run(
                [engine, "import", str(_image_tar(tmp)), IMAGE], capture_output=True, text=True, timeout=60
            )
            if made.returncode != 0:
                return None, f"{engine} import failed: {made.stderr.strip()[-300:]}"
        why = ""
        for args in ([], ["--runtime", "runc"]):
            ran = subprocess.run(
                [engine, *args, "run", "--rm", "--network", "none", "--ulimit", "nofile=1024:1024",
                 "--ulimit", "nproc=256:256", IMAGE, "/bin/true"],
                capture_output=True, text=True, timeout=60,
            )  # fmt: skip
            if ran.returncode == 0:
                return Engine(engine, args), ""
            why = why or ran.stderr.strip()[-300:]
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"{engine} did not answer: {e}"
    return None, f"{engine} cannot run a container here: {why}"


PY_IMAGE = "localhost/grove-test-python:1"  # the busybox image plus this machine's python3, for code skills
PY_SKIP = ("test", "idlelib", "lib2to3", "ensurepip", "tkinter", "turtledemo", "pydoc_data", "__pycache__")


def python_image(engine: Engine, tmp: Path) -> tuple[str | None, str]:
    """(the image, '') with /usr/bin/python3, its libraries and its standard library copied in, or (None, why)."""
    import os
    import sys

    exe = Path("/usr/bin/python3").resolve()
    stdlib = Path(f"/usr/lib/python{sys.version_info.major}.{sys.version_info.minor}")
    if not exe.exists() or not stdlib.is_dir() or not Path(f"{stdlib}/json").is_dir():
        stdlib = next(Path("/usr/lib").glob("python3.*[0-9]"), stdlib)
    if not exe.exists() or not stdlib.is_dir():
        return None, "no /usr/bin/python3 with its standard library under /usr/lib to copy into an image"
    have = subprocess.run([engine.name, *engine.args, "image", "inspect", PY_IMAGE], capture_output=True)
    if have.returncode == 0:
        return PY_IMAGE, ""
    ldd = subprocess.run(["ldd", str(exe)], capture_output=True, text=True)
    libs = [p for p in ldd.stdout.split() if p.startswith("/")]
    tar = _image_tar(tmp)
    with tarfile.open(tar, "a") as t:
        t.add(str(exe), "usr/bin/python3")
        for lib in libs:
            t.add(os.path.realpath(lib), lib.lstrip("/"))
        t.add(str(stdlib), str(stdlib).lstrip("/"), filter=lambda i: None if any(
            part in PY_SKIP for part in i.name.split("/")) else i)  # fmt: skip
    made = subprocess.run(
        [engine.name, *engine.args, "import", str(tar), PY_IMAGE], capture_output=True, text=True, timeout=300
    )
    if made.returncode != 0:
        return None, f"{engine.name} import failed: {made.stderr.strip()[-300:]}"
    return PY_IMAGE, ""
