"""Zero's session store, byte-compatible with the Go agent (no Textual import here)."""

from __future__ import annotations

from zero_tui.store.errors import SessionBusyError, StoreError
from zero_tui.store.models import Event, Goal, Metadata
from zero_tui.store.root import default_root
from zero_tui.store.store import SessionStore, valid_session_id

__all__ = [
    "Event",
    "Goal",
    "Metadata",
    "SessionBusyError",
    "SessionStore",
    "StoreError",
    "default_root",
    "valid_session_id",
]
