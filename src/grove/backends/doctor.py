"""For `grove doctor`: each configured backend (`backends.use` and every `backends.named` one) reached and tried
with one command; the local one is the sandbox check's business."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from grove.backends.base import BackendError

if TYPE_CHECKING:
    from grove.config import Settings


def backend_checks(settings: Settings) -> list[tuple[str, Callable[[], tuple[bool, str]]]]:
    """(label, check) per configured non-local backend, in config order, each spec once."""
    config = settings.backends
    wanted: dict[str, str] = {}
    if config.use != "local":
        wanted[config.use] = "backend"
    for name in config.named:
        wanted.setdefault(name, f"backend {name}")
    return [(label, _checker(text, settings)) for text, label in wanted.items()]


def _checker(text: str, settings: Settings) -> Callable[[], tuple[bool, str]]:
    def check() -> tuple[bool, str]:
        from grove.backends.local import LocalBackend
        from grove.backends.open import open_backend

        try:
            backend = open_backend(text, settings, lambda: LocalBackend(Path.cwd(), settings=settings))
        except BackendError as e:
            return False, str(e)
        if backend is None:
            return True, f"{text}: local (see the sandbox check)"
        try:
            return backend.check()
        finally:
            backend.close()

    return check
