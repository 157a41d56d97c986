"""A GGUF's chat template rendered to the exact prompt text, as llama-cpp-python's Jinja2ChatFormatter renders it
(sandboxed Jinja, trimmed blocks, generation prompt appended), for every local runtime alike."""

from __future__ import annotations

import datetime
from typing import Any

# Used when a GGUF carries no chat template; SmolLM2 (and many small models) speak ChatML.
CHATML = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>'"
    " + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


class ChatTemplate:
    """`render(messages)` is the prompt a chat template makes of `messages`, generation prompt included."""

    def __init__(self, template: str, bos_token: str, eos_token: str) -> None:
        from jinja2 import BaseLoader
        from jinja2.sandbox import ImmutableSandboxedEnvironment

        self.source = template or CHATML
        self.bos_token = bos_token
        self.eos_token = eos_token
        env = ImmutableSandboxedEnvironment(loader=BaseLoader(), trim_blocks=True, lstrip_blocks=True)
        self._template = env.from_string(self.source)

    def render(self, messages: list[dict[str, Any]]) -> str:
        def raise_exception(message: str) -> None:
            raise ValueError(message)

        return self._template.render(
            messages=messages,
            eos_token=self.eos_token,
            bos_token=self.bos_token,
            raise_exception=raise_exception,
            add_generation_prompt=True,
            functions=None,
            function_call=None,
            tools=None,
            tool_choice=None,
            strftime_now=lambda fmt: datetime.datetime.now().strftime(fmt),
        )

    def end_of_turn(self) -> str:
        """The template's end-of-turn text, a stop string in case it is not a special token."""
        return "<|im_end|>" if "<|im_end|>" in self.source else self.eos_token
