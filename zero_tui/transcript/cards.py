"""Rows that come from no event: the welcome row and command cards such as the resume
summary (tui-behaviour §1.4). No Textual or Rich import here.
"""

from __future__ import annotations

from collections.abc import Sequence

from zero_tui.store import Metadata
from zero_tui.store.gotext import collapse_space, trim_space
from zero_tui.transcript.row_model import Row, RowKind

WELCOME_TEXT = "Welcome to Zero. Type /help for commands."
RESUMED_HEADING = "Resumed Zero session"
NEW_SESSION_HEADING = "New Zero session"  # a conversation started in this transcript


def welcome_row() -> Row:
    return Row(kind=RowKind.WELCOME, text=WELCOME_TEXT)


def card_row(lines: Sequence[str]) -> Row:
    """A command card (e.g. the resume summary): its title line, then its lines."""
    return Row(kind=RowKind.CARD, text="\n".join(lines))


STATUS_OK = "status: ok"


def folded_card(row: Row) -> str | None:
    """The one line a card shows folded (its title, status and event count: the header
    says the rest), or None for a card that always shows whole (one with problems)."""
    if row.kind is not RowKind.CARD:
        return None
    lines = row.text.split("\n")
    if len(lines) < 3 or lines[1] != STATUS_OK:
        return None
    events = [line.strip() for line in lines if line.strip().startswith("events: ")]
    return " · ".join([lines[0], STATUS_OK, *events[:1]])


def _display_value(value: str, fallback: str) -> str:
    trimmed = trim_space(value)
    return trimmed if trimmed else fallback


def _recorded_suffix(recorded: str, current: str) -> str:
    recorded = trim_space(recorded)
    if recorded and recorded.lower() != current.lower():
        return f"  (recorded: {recorded})"
    return ""


def resume_card(
    meta: Metadata,
    event_count: int,
    *,
    model: str = "",
    provider: str = "",
    problems: Sequence[str] = (),
    heading: str = RESUMED_HEADING,
) -> list[str]:
    """The §1.4 resume summary card, one string per line (`heading`: its title; a
    conversation begun here is not "resumed").

    `model`/`provider` are the UI's own; a UI without them passes the session's values, and
    then no `(recorded: …)` suffix appears. Lines are whitespace-collapsed as Go's card
    renderer does (secret redaction is not applied). `problems` (a missing log, unreadable
    lines) make it `status: error` with a Problems section instead of `status: ok`.
    """
    section = [
        "id: " + meta.session_id,
        "title: " + _display_value(meta.title, "untitled"),
        "model: " + _display_value(model, "none") + _recorded_suffix(meta.model_id, model),
        "provider: " + _display_value(provider, "none") + _recorded_suffix(meta.provider, provider),
        f"events: {event_count}",
    ]
    goal = meta.goal
    if goal is not None:
        line = f"goal: {goal.status} — {goal.objective}"
        if goal.status == "active":
            line += " (run /goal resume to continue)"
        section.append(line)
    status = "status: error" if problems else STATUS_OK
    lines = [heading, status, "Session"]
    lines += ["  " + text for text in (collapse_space(line) for line in section) if text]
    if problems:
        lines.append("Problems")
        lines += ["  " + collapse_space(problem) for problem in problems]
    return lines
