"""A model that streams its answer (the echo of tests.serve.conftest) and, after its first word, waits until the
client says it has that word: a server that held the text back until the answer was done fails the wait."""

from __future__ import annotations

import threading
from typing import Any

from tests.serve.conftest import echo

from grove.llm.types import Completion, Usage


class StreamedEcho:
    name = "script:streamed"
    context_window = 128_000

    def __init__(self, wait_seconds: float = 20) -> None:
        self.wait_seconds = wait_seconds  # only bounds a failing run; a passing one never waits this long
        self._cond = threading.Condition()
        self._seen = 0
        self._streamed = 0
        self.waits: list[bool] = []  # per streamed call: did the client see the first word before the rest?
        self.requests: list[list[dict[str, Any]]] = []

    def client_saw_text(self) -> None:
        with self._cond:
            self._seen += 1
            self._cond.notify_all()

    def complete(
        self, messages: list[dict[str, Any]], tools: Any, settings: Any, on_text: Any = None
    ) -> Completion:
        self.requests.append([dict(m) for m in messages])
        text = echo(messages, tools)
        first, _, rest = text.partition(" ")
        if on_text:
            self._streamed += 1
            on_text(first + " ")
            with self._cond:
                self.waits.append(
                    self._cond.wait_for(lambda: self._seen >= self._streamed, self.wait_seconds)
                )
            words = rest.split(" ")
            for i, word in enumerate(words):
                on_text(word + (" " if i < len(words) - 1 else ""))
        return Completion(text=text, model=self.name, usage=Usage(len(messages), len(text.split())))
