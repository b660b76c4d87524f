"""Deleting a session: a move to zero-tui's trash (restorable), never of a session an agent
could be writing. The picker's F8 and the CLI's `delete` both come here."""

from __future__ import annotations

from dataclasses import dataclass

from zero_tui.agent.running import refusal_while_written
from zero_tui.store import SessionStore, StoreError
from zero_tui.store.trash import move_to_trash


@dataclass(frozen=True, slots=True)
class Deletion:
    """Whether the session went to the trash, and what the user is told."""

    ok: bool
    message: str


def delete_session(store: SessionStore, session_id: str) -> Deletion:
    """Move the session to the trash unless someone could be writing it: asked under the
    session's lock, right before the move (`possible_writer`)."""
    refusal = refusal_while_written(store, session_id, "not deleting")
    try:
        item = move_to_trash(store, session_id, refuse=refusal)
    except StoreError as error:
        return Deletion(False, str(error))
    return Deletion(
        True, f"moved {item.session_id} to the trash (zero-tui restore {item.session_id})"
    )
