"""Continuing a session through the real agent: `zero exec` stream-json (no Textual import)."""
