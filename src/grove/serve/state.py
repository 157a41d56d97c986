"""What the running server shares between its routes (API and dashboard): settings, home, the approval queue."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from grove.config import Settings
from grove.serve.approvals import ApprovalQueue

if TYPE_CHECKING:
    from grove.serve.keys import KeyStore


@dataclass
class ServeState:
    settings: Settings
    approvals: ApprovalQueue = field(default_factory=ApprovalQueue)
    started_at: float = field(default_factory=time.time)
    host: str = "127.0.0.1"
    port: int = 0
    # the client keys (set by build_app): `keys.check(token)` tells a live key, for routes that need one
    keys: KeyStore | None = None

    @property
    def home(self) -> Path:
        return self.settings.home
