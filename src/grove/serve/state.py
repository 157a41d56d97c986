"""What the running server shares between its routes (API and dashboard): settings, home, the approval queue."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from grove.config import Settings
from grove.serve.approvals import ApprovalQueue


@dataclass
class ServeState:
    settings: Settings
    approvals: ApprovalQueue = field(default_factory=ApprovalQueue)
    started_at: float = field(default_factory=time.time)
    # the key names the dashboard may show; filled by the app (never the keys themselves)
    host: str = "127.0.0.1"
    port: int = 0

    @property
    def home(self) -> Path:
        return self.settings.home
