"""Fake chat platforms on 127.0.0.1 (Telegram Bot API, Slack Web API, Discord REST + gateway) for gateway tests."""
