"""Where a session's tools act: the local sandbox, or another machine (SSH). One interface, `Backend`, for running
commands and for the file tools' reads, writes and walks inside that backend's workspace root."""

from __future__ import annotations

from grove.backends.base import Backend, BackendError, Files, Spot

__all__ = ["Backend", "BackendError", "Files", "Spot"]
