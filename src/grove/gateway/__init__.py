"""Chat gateways: Telegram, Slack, Discord (and any platform a plugin adds) in front of the one runtime.

Adapters (one module per platform) only speak their platform; `core.Gateway` holds what they share."""
