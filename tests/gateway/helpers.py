"""What the platform tests share: a script model's tool call, the conversation every platform test walks through
(a greeting, a file made, a write outside the workspace that needs an approval), a gateway on a fake platform
with the test settings, and the port a receiving adapter bound."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

from grove.config import Settings
from grove.config.gateway import GatewayPlatformConfig
from grove.gateway.adapter import PlatformAdapter
from grove.gateway.core import Gateway
from grove.llm.script import ScriptModel, Step
from grove.llm.types import Model


def call(name: str, **args: object) -> dict[str, Any]:
    """A script step: one call of the tool `name`."""
    return {"tool_calls": [{"name": name, "arguments": args}]}


def conversation(*more: Step, greeting: str = "Hello Ada.") -> ScriptModel:
    """The model's side of the common walk-through: a greeting; out.txt written (sent back as a file); a write to
    ../../../outside/x.txt (outside the workspace: approved by the platform's own means); then `more`."""
    return ScriptModel(
        [
            {"text": greeting},
            call("write_file", path="out.txt", content="from grove\n"),
            {"text": "Made out.txt."},
            call("write_file", path="../../../outside/x.txt", content="ok\n"),
            {"text": "Written outside."},
            *more,
        ]
    )


def outside_folder(tmp_path: Path) -> Path:
    """The folder the walk-through's approved write lands in (three levels above a chat's workspace)."""
    folder = tmp_path / "outside"
    folder.mkdir()
    return folder


def gateway_on(
    adapter: type[PlatformAdapter],
    tmp_path: Path,
    model: Model,
    *,
    settings: Settings | None = None,
    **fields: Any,
) -> Gateway:
    """A gateway for `adapter` with chats under tmp_path/chats, the files toolset and no review; `fields` are the
    platform's config (owners, base_url, port, options...)."""
    config = GatewayPlatformConfig(
        **{"workspace": str(tmp_path / "chats"), "toolsets": ["files"], "review": "off", **fields}
    )
    base = settings or Settings()
    settings = dataclasses.replace(base, gateway={**base.gateway, adapter.name: config})
    return Gateway(settings, adapter(config), model=model)


def bound_port(gateway: Gateway) -> int:
    """The port a receiving adapter (webhooks, callbacks) listens on, once it has bound it."""
    adapter: Any = gateway.adapter
    deadline = time.monotonic() + 10
    while adapter._stop is None:
        assert time.monotonic() < deadline, f"{adapter.name} never started receiving"
        time.sleep(0.01)
    return int(adapter.port)


def published(gateway: Gateway) -> str:
    """The connection state the gateway published for its platform (what the dashboard shows), "" for none."""
    from grove.gateway.link_table import read_links

    found = [s for s in read_links(gateway.settings.home) if s.platform == gateway.platform]
    return found[0].state if found else ""
