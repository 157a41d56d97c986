"""Images end to end: each provider's own request format (checked by fake servers on 127.0.0.1), `grove run
--image`, a resumed session that keeps its image, a model that cannot see refused, and old images not resent."""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from tests.clirun import grove
from tests.fakes.multimodal import FakeVisionAnthropicServer, FakeVisionOpenAIServer, images_in
from tests.fakes.openai_server import FakeReply
from tests.llm_local.default_model import SKIP_REASON, default_model_file, link_into

from grove.llm.anthropic_model import AnthropicModel
from grove.llm.errors import ModelError
from grove.llm.images import RESENT_NOTE, ImageError, image_part, recent_images_only, refuse_if_blind
from grove.llm.openai_compat import OpenAICompatModel
from grove.llm.profiles import profile_for
from grove.llm.types import ModelSettings

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 32  # the signature is what grove reads; the fakes check the encoding


@pytest.fixture
def png(tmp_path: Path) -> Path:
    path = tmp_path / "shot.png"
    path.write_bytes(PNG)
    return path


def user_with_image(png: Path) -> list[dict]:
    return [{"role": "user", "content": [{"type": "text", "text": "what is this?"}, image_part(str(png))]}]


def test_openai_chat_completions_image_part(png: Path) -> None:
    with FakeVisionOpenAIServer(FakeReply(text="a cat")) as srv:
        model = OpenAICompatModel(name="openai-compat:fake", model="fake", base_url=srv.url, transport="http")
        assert model.complete(user_with_image(png), [], ModelSettings()).text == "a cat"
        sent = images_in(srv.requests[-1].body)
    data = base64.b64encode(PNG).decode()
    assert sent == [{"type": "image_url", "image_url": {"url": f"data:image/png;base64,{data}"}}]


def test_anthropic_messages_image_block(png: Path) -> None:
    with FakeVisionAnthropicServer(FakeReply(text="a cat")) as srv:
        model = AnthropicModel(name="anthropic:fake", model="claude-fake", api_key="k", base_url=srv.url)
        assert model.complete(user_with_image(png), [], ModelSettings()).text == "a cat"
        (block,) = images_in(srv.requests[-1].body)
    block.pop("cache_control", None)
    source = {"type": "base64", "media_type": "image/png", "data": base64.b64encode(PNG).decode()}
    assert block == {"type": "image", "source": source}


@pytest.mark.parametrize(
    ("server", "path", "part"),
    [
        (
            FakeVisionOpenAIServer,
            "/chat/completions",
            {"type": "image", "source": {"type": "url", "url": "x"}},
        ),
        (
            FakeVisionOpenAIServer,
            "/chat/completions",
            {"type": "image_url", "image_url": "data:image/png,abc"},
        ),
        (
            FakeVisionAnthropicServer,
            "/v1/messages",
            {"type": "image_url", "image_url": {"url": "https://x/a.png"}},
        ),
        (
            FakeVisionAnthropicServer,
            "/v1/messages",
            {"type": "image", "source": {"type": "base64", "data": "AA=="}},
        ),
    ],
)
def test_fakes_refuse_the_wrong_shape(server: type, path: str, part: dict) -> None:
    body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": [part]}]}
    with server(FakeReply(text="no")) as srv:
        request = urllib.request.Request(srv.url + path, json.dumps(body).encode(), method="POST")
        request.add_header("content-type", "application/json")
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(request, timeout=10)
    assert e.value.code == 400


def test_grove_run_image_then_resume(capsys: pytest.CaptureFixture[str], png: Path) -> None:
    with FakeVisionOpenAIServer(FakeReply(text="a cat")) as srv:
        spec = f"openai-compat:fake@{srv.url}"
        code, out, err = grove(capsys, "run", "-m", spec, "-t", "", "--image", str(png), "what is this?")
        assert (code, out.strip()) == (0, "a cat"), err
        code, out, err = grove(capsys, "run", "-m", spec, "-t", "", "--resume", "last", "and its colour?")
        assert code == 0, err
        first, resumed = (images_in(r.body) for r in srv.requests)
    # the resumed session sends the stored image as the same structured part, not as a JSON string
    assert len(first) == 1 and resumed == first


def test_grove_run_refuses_a_model_that_cannot_see(
    capsys: pytest.CaptureFixture[str], png: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeVisionOpenAIServer(FakeReply(text="never")) as srv:
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        monkeypatch.setenv("OPENAI_BASE_URL", srv.url)
        code, _, err = grove(capsys, "run", "-m", "openai:gpt-3.5-turbo", "-t", "", "--image", str(png), "hi")
        assert srv.requests == []  # refused before any request
    assert code == 1
    assert "cannot see images; pick one that can: --model" in err


def test_grove_run_bad_image(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "notes.png").write_text("not an image")
    code, _, err = grove(
        capsys,
        "run",
        "-m",
        "openai-compat:x@http://127.0.0.1:9",
        "--image",
        str(tmp_path / "notes.png"),
        "hi",
    )
    assert code == 2 and "not a PNG, JPEG, GIF or WebP" in err
    code, _, err = grove(
        capsys, "run", "-m", "openai-compat:x@http://127.0.0.1:9", "--image", str(tmp_path / "nope.png"), "hi"
    )
    assert code == 2 and "no image file" in err


def test_size_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("grove.llm.images.MAX_IMAGE_BYTES", 100)
    (tmp_path / "big.png").write_bytes(PNG + b"\0" * 200)
    with pytest.raises(ImageError, match="capped"):
        image_part(str(tmp_path / "big.png"))


def test_capability_lives_in_the_profiles() -> None:
    assert profile_for("local", "local", "local").vision is False
    assert profile_for("openai", "openai", "gpt-4").vision is False
    assert profile_for("openai", "openai", "gpt-4o-mini").vision is True
    assert profile_for("anthropic", "anthropic", "claude-sonnet-4-6").vision is True
    with pytest.raises(ModelError, match="cannot see images"):
        refuse_if_blind(
            [{"role": "user", "content": [image_part("https://example.org/a.png")]}], False, "local"
        )


def test_only_recent_images_are_resent() -> None:
    msgs = [{"role": "user", "content": [image_part(f"https://example.org/{i}.png")]} for i in range(4)]
    out = recent_images_only(msgs, keep=2)
    assert [m["content"][0].get("text") for m in out] == [RESENT_NOTE, RESENT_NOTE, None, None]
    assert msgs[0]["content"][0]["type"] == "image_url"  # the input (and state.db) untouched


def test_grove_run_refuses_images_for_the_embedded_local_model(
    capsys: pytest.CaptureFixture[str], png: Path, grove_home: Path
) -> None:
    from grove.llm.local_runtime import runtime_installed

    if not runtime_installed() or default_model_file() is None:
        pytest.skip(SKIP_REASON)
    link_into(grove_home)
    code, _, err = grove(capsys, "run", "-m", "local", "-t", "", "--image", str(png), "what is this?")
    assert code == 1 and "[local]: this model cannot see images; pick one that can: --model" in err


def test_an_image_is_estimated_at_a_fixed_cost_not_its_base64_length() -> None:
    from grove.llm.estimate import IMAGE_TOKENS, estimate_tokens

    big = {"type": "image_url", "image_url": {"url": "data:image/png;base64," + "A" * 4_000_000}}
    message = {"role": "user", "content": [{"type": "text", "text": "hi"}, big]}
    assert IMAGE_TOKENS <= estimate_tokens(message) < IMAGE_TOKENS + 100


def test_the_summariser_sees_an_image_mark_not_its_base64() -> None:
    from grove.context.summary import _lines

    part = {"type": "image_url", "image_url": {"url": "data:image/png;base64,QUJDREVGR0g="}}
    (line,) = _lines([{"role": "user", "content": [{"type": "text", "text": "look"}, part]}], 500, 500)
    assert "look [image]" in line and "QUJDREVGR0g" not in line
