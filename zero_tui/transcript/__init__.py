"""Rehydrated session events -> transcript rows, and their text forms (no Textual import)."""

from zero_tui.transcript.rows import (
    Row,
    RowBuilder,
    RowKind,
    collapse_for_display,
    resume_card,
    rows_from_events,
    turn_start_indices,
    visible_row_indices,
)
from zero_tui.transcript.sanitize import sanitize_text

__all__ = [
    "Row",
    "RowBuilder",
    "RowKind",
    "collapse_for_display",
    "resume_card",
    "rows_from_events",
    "sanitize_text",
    "turn_start_indices",
    "visible_row_indices",
]
