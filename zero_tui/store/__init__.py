"""Zero's session store, byte-compatible with the Go agent (no Textual import here).

The names below are imported from their modules when first asked for: importing one light
module of the package (`zero_tui.store.workspace`, `zero_tui.store.root`) does not load the
store and its event decoders (about 30 ms), which the picker's first frame does without.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zero_tui.lazy_names import lazy_names

if TYPE_CHECKING:
    from zero_tui.store.errors import SessionBusyError, StoreError
    from zero_tui.store.models import Event, Goal, Metadata
    from zero_tui.store.root import default_root
    from zero_tui.store.store import SessionStore, valid_session_id

_HOMES = {
    "Event": "zero_tui.store.models",
    "Goal": "zero_tui.store.models",
    "Metadata": "zero_tui.store.models",
    "SessionBusyError": "zero_tui.store.errors",
    "SessionStore": "zero_tui.store.store",
    "StoreError": "zero_tui.store.errors",
    "default_root": "zero_tui.store.root",
    "valid_session_id": "zero_tui.store.store",
}

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

__getattr__ = lazy_names(__name__, _HOMES, globals())
