"""Persistence: state.db (SQLite, WAL, numbered migrations) and atomic file writes."""
