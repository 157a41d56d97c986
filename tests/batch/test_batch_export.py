"""`grove batch` then `grove batch export`: labels from each verifier kind, and trajectories that validate against
models of the two formats (ShareGPT-style turns; OpenAI fine-tuning chat lines, no unknown keys), secrets masked."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field, model_validator
from tests.batch.conftest import write_dataset
from tests.clirun import grove

SECRET = "ghp_" + "Zq8Xw2Lk9Vb4Nm7Rt1Yp3Hs6Jd0Fg5Ca8Ue2"


# -- the OpenAI fine-tuning chat format (one line: messages, optional tools / parallel_tool_calls) ---------------
class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Function(Strict):
    name: str
    arguments: str

    @model_validator(mode="after")
    def _json(self) -> Function:
        json.loads(self.arguments)
        return self


class ToolCall(Strict):
    id: str
    type: Literal["function"]
    function: Function


class SystemMessage(Strict):
    role: Literal["system"]
    content: str
    name: str | None = None


class UserMessage(Strict):
    role: Literal["user"]
    content: str
    name: str | None = None


class AssistantMessage(Strict):
    role: Literal["assistant"]
    content: str | None = None
    tool_calls: list[ToolCall] | None = None
    weight: Literal[0, 1] | None = None

    @model_validator(mode="after")
    def _something(self) -> AssistantMessage:
        assert self.content is not None or self.tool_calls, "an assistant message needs content or tool_calls"
        return self


class ToolMessage(Strict):
    role: Literal["tool"]
    tool_call_id: str
    content: str


class FunctionDef(Strict):
    name: str
    description: str | None = None
    parameters: dict[str, Any]


class ToolDef(Strict):
    type: Literal["function"]
    function: FunctionDef


Message = Annotated[SystemMessage | UserMessage | AssistantMessage | ToolMessage, Field(discriminator="role")]


class ChatLine(Strict):
    messages: list[Message]
    tools: list[ToolDef] | None = None
    parallel_tool_calls: bool | None = None

    @model_validator(mode="after")
    def _order(self) -> ChatLine:
        pending: set[str] = set()
        for m in self.messages:
            if isinstance(m, AssistantMessage):
                pending |= {c.id for c in m.tool_calls or []}
            if isinstance(m, ToolMessage):
                assert m.tool_call_id in pending, f"tool result {m.tool_call_id} answers no call"
        assert isinstance(self.messages[-1], AssistantMessage), "a training example ends with the assistant"
        called = {
            c.function.name
            for m in self.messages
            if isinstance(m, AssistantMessage)
            for c in m.tool_calls or []
        }
        assert called <= {t.function.name for t in self.tools or []}, "a called tool has no definition"
        return self


# -- ShareGPT-style agent trajectories -------------------------------------------------------------------------
class Turn(Strict):
    from_: Literal["system", "human", "gpt", "tool"] = Field(alias="from")
    value: str


class ShareGPTLine(BaseModel):
    conversations: list[Turn]
    tools: str  # a JSON list of function definitions

    @model_validator(mode="after")
    def _order(self) -> ShareGPTLine:
        roles = [t.from_ for t in self.conversations]
        body = roles[1:] if roles and roles[0] == "system" else roles
        assert body and body[0] == "human" and body[-1] == "gpt", roles
        for a, b in itertools.pairwise(body):
            assert (a, b) in {("human", "gpt"), ("gpt", "tool"), ("tool", "gpt"), ("gpt", "human")}, roles
        for t in self.conversations:
            if t.from_ == "tool":
                assert t.value.startswith("<tool_response>") and t.value.endswith("</tool_response>")
            for block in t.value.split("<tool_call>\n")[1:]:
                call = json.loads(block.split("\n</tool_call>")[0])
                assert set(call) == {"name", "arguments"}
        [ToolDef.model_validate(d) for d in json.loads(self.tools)]
        return self


@pytest.fixture
def finished_batch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    script = tmp_path / "script.yaml"
    script.write_text(
        '- tool_calls: [{name: write_file, arguments: {path: out.txt, content: "ok token '
        + SECRET
        + '\\n"}}]\n'
        "- tool_calls: [{name: read_file, arguments: {path: out.txt}}, {name: search_files, arguments: {pattern: ok}}]\n"
        '- tool_calls: [{name: kanban_complete, arguments: {summary: "wrote ok", artifacts: [out.txt]}}]\n'
        "- text: done\n"
    )
    dataset = write_dataset(
        tmp_path / "exp.jsonl",
        [
            {"id": "file-ok", "prompt": "write out.txt", "verifier": {"file": "out.txt", "contains": "ok"}},
            {"id": "file-bad", "prompt": "write out.txt", "verifier": {"file": "out.txt", "equals": "no"}},
            {"id": "answer", "prompt": "answer", "verifier": {"output_regex": "^wrote"}},
            {"id": "command", "prompt": "run", "verifier": {"command": "grep -q ok out.txt", "exit": 0},
             "files": {"data/in.txt": "given\n"}},
        ],
    )  # fmt: skip
    code, out, err = grove(
        capsys, "batch", str(dataset), "-m", f"script:{script}", "-t", "files", "--tick", "0.2"
    )
    assert code == 0, out + err
    assert "4/4 labelled, 3 passed, 1 failed" in out
    assert "file-bad: failed (out.txt reads" in out
    return dataset


def test_export_validates_against_both_formats_and_masks_secrets(
    finished_batch: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], workspaces: Path
) -> None:
    assert (workspaces / "batch-exp" / "command" / "data" / "in.txt").read_text() == "given\n"
    share, chat = tmp_path / "out" / "share.jsonl", tmp_path / "out" / "chat.jsonl"
    code, out, _ = grove(
        capsys, "batch", "export", str(finished_batch), "--sharegpt", str(share), "--openai", str(chat)
    )
    assert (code, out.strip()) == (0, "exported 4 trajectories")
    share_lines = [json.loads(line) for line in share.read_text().splitlines()]
    chat_lines = [json.loads(line) for line in chat.read_text().splitlines()]
    assert len(share_lines) == len(chat_lines) == 4
    for line in chat_lines:
        ChatLine.model_validate(line)
    for line in share_lines:
        ShareGPTLine.model_validate(line)
    assert [(s["id"], s["label"]["passed"]) for s in share_lines] == [
        ("file-ok", True), ("file-bad", False), ("answer", True), ("command", True)
    ]  # fmt: skip
    assert SECRET not in share.read_text() + chat.read_text()
    assert "<tool_call>" in share.read_text() and '"role": "tool"' in chat.read_text()

    code, out, _ = grove(
        capsys, "batch", "export", str(finished_batch), "--openai", str(chat), "--only", "passed"
    )
    assert (code, out.strip()) == (0, "exported 3 trajectories, 1 left out by --only passed")


def test_bad_dataset_lines_are_refused_with_their_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = [
        ('{"id": "a", "prompt": "x"}\n{"id": "a", "prompt": "y"}\n', "ds.jsonl:2: id 'a' is also on line 1"),
        ('{"id": "a"}\n', "ds.jsonl:1: prompt: Field required"),
        ("not json\n", "ds.jsonl:1: not JSON"),
        ('{"id": "a", "prompt": "x", "verifier": {"file": "f", "equals": "1", "regex": "2"}}\n', "ds.jsonl:1: verifier"),
        ('{"id": "a", "prompt": "x", "files": {"../up": "x"}}\n', "must be a relative path inside the workspace"),
    ]  # fmt: skip
    for text, expected in cases:
        (tmp_path / "ds.jsonl").write_text(text)
        code, _, err = grove(capsys, "batch", str(tmp_path / "ds.jsonl"), "-m", "script:none.yaml")
        assert code == 2 and expected in err, (text, err)
    code, _, err = grove(capsys, "batch", "export", str(tmp_path / "ds.jsonl"))
    assert code == 2 and "--sharegpt FILE and/or --openai FILE" in err


def test_a_rerun_with_a_changed_prompt_keeps_the_card_and_says_so(
    finished_batch: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [json.loads(line) for line in finished_batch.read_text().splitlines()]
    lines[0]["prompt"] = "write something else"
    finished_batch.write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, out, err = grove(capsys, "batch", str(finished_batch), "-m", "script:unused.yaml", "--tick", "0.1")
    assert code == 0 and "4/4 labelled, 3 passed" in out
    assert "file-ok: its prompt changed since the card was made; the card keeps the old one" in err
