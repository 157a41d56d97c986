"""Atomic file writes for the store and everyone above it; the implementation sits at the bottom layer
(grove.atomic_files) so config can use it too."""

from __future__ import annotations

from grove.atomic_files import (
    DEFAULT_MODE,
    PERMISSION_BITS,
    NotRegularFileError,
    atomic_write_at,
    atomic_write_bytes,
    atomic_write_text,
)

__all__ = [
    "DEFAULT_MODE",
    "PERMISSION_BITS",
    "NotRegularFileError",
    "atomic_write_at",
    "atomic_write_bytes",
    "atomic_write_text",
]
