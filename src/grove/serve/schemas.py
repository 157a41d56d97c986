"""The request and response shapes of the OpenAI-compatible endpoints. Fields beyond these are kept (extra) so
grove.serve.fields can honour or refuse each one by name, never ignore it silently."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class TextPart(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: str = Field(max_length=64)
    text: str | None = Field(None, max_length=1_000_000)


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[TextPart] | None = Field(None, max_length=1_000_000)
    name: str | None = Field(default=None, max_length=256)

    def text(self) -> str:
        if self.content is None:
            return ""
        if isinstance(self.content, str):
            return self.content
        return "\n".join(p.text for p in self.content if p.type in TEXT_PARTS and p.text)

    def other_parts(self) -> list[str]:
        """The types of content parts that are neither text nor images (audio, files)."""
        if not isinstance(self.content, list):
            return []
        return [p.type for p in self.content if p.type not in TEXT_PARTS + IMAGE_PARTS]

    def image_urls(self) -> list[str]:
        """The URLs (data: or http(s):) of the message's image parts, in either API's shape: chat's
        {"type": "image_url", "image_url": {"url": ...}} or the Responses {"type": "input_image", "image_url": ...}."""
        if not isinstance(self.content, list):
            return []
        urls = []
        for part in self.content:
            if part.type not in IMAGE_PARTS:
                continue
            given = (part.model_extra or {}).get("image_url")
            url = given.get("url") if isinstance(given, dict) else given
            urls.append(url if isinstance(url, str) else "")
        return urls


TEXT_PARTS = ("text", "input_text", "output_text")
IMAGE_PARTS = ("image_url", "input_image")


class ChatCompletionRequest(BaseModel):
    model_config = ConfigDict(extra="allow")
    model: str = Field(max_length=256, examples=["grove"])
    messages: list[ChatMessage] = Field(min_length=1, max_length=10_000)
    stream: bool = False
    stream_options: dict[str, Any] | None = None
    user: str | None = Field(None, max_length=256)  # attribution only, never the conversation
    metadata: dict[str, str] | None = None
    max_tokens: int | None = Field(None, ge=1)
    max_completion_tokens: int | None = Field(None, ge=1)
    temperature: float | None = Field(None, ge=0, le=2)
    seed: int | None = None


class InputItem(BaseModel):
    """One item of a Responses `input`: a message (with or without `type: message`) or another item type."""

    model_config = ConfigDict(extra="allow")
    type: str | None = Field(None, max_length=64)
    role: Literal["system", "developer", "user", "assistant"] | None = None
    content: str | list[TextPart] | None = Field(None, max_length=1_000_000)

    def message(self) -> ChatMessage | None:
        if self.type not in (None, "message") or self.role is None:
            return None
        return ChatMessage(role=self.role, content=self.content)


class ResponsesRequest(BaseModel):
    model_config = ConfigDict(extra="allow")
    model: str = Field(max_length=256, examples=["grove"])
    input: str | list[InputItem] = Field(min_length=1, max_length=1_000_000)
    instructions: str | None = Field(None, max_length=1_000_000)
    previous_response_id: str | None = Field(None, max_length=256)
    user: str | None = Field(None, max_length=256)
    metadata: dict[str, str] | None = None
    stream: bool = False
    store: bool = True
    max_output_tokens: int | None = Field(None, ge=1)
    temperature: float | None = Field(None, ge=0, le=2)


class UsageOut(BaseModel):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class AssistantMessage(BaseModel):
    role: Literal["assistant"] = "assistant"
    content: str


class Choice(BaseModel):
    index: int = 0
    message: AssistantMessage
    finish_reason: str = "stop"


class ClaimVerdict(BaseModel):
    """grove's check of one claim the answer made about its own work, against the turn's tool calls."""

    claim: str
    kind: str
    target: str | None = None
    verdict: Literal["supported", "contradicted", "unverifiable"]
    reason: str


class ChatCompletion(BaseModel):
    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    choices: list[Choice]
    usage: UsageOut
    grove_claims: list[ClaimVerdict] = []  # a grove extension; OpenAI clients ignore it


class ModelCard(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int = 0
    owned_by: str = "grove"
    description: str = ""


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelCard]


class ErrorBody(BaseModel):
    message: str
    type: str
    code: str | None = None
    param: str | None = None


class ErrorResponse(BaseModel):
    error: ErrorBody


def error(message: str, type_: str, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "code": code, "param": None}}
