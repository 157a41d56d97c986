"""Fake servers on 127.0.0.1 that stand in for model providers and chat platforms, so tests never touch the network."""
