"""The picker's delete (F8) and its count of the trash: a widget with nothing to show.

`delete(row, running)` refuses a session an agent is writing now (one line, the CLI's
words), else asks first in a `ConfirmDialog` naming the session, and only on yes moves it
to zero-tui's trash in a worker, through `guarded_delete.delete_session`, the CLI's `delete`.
The worker posts `SessionDeleted`; the widget says how it went and counts the trash again,
and the message goes on up to the screen, which takes the row out. `count()` reads how many
of the store's sessions are in the trash in a worker, posting `TrashCounted`; the picker
asks it again whenever the store changes (a delete or restore elsewhere) and on ctrl+r.
The delete itself asks once more, under the session's lock, whether anyone could be
writing it (`guarded_delete.delete_session`): the row's running mark is only what was seen.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from textual import work
from textual.widget import Widget

from zero_tui.agent.guarded_delete import delete_session
from zero_tui.agent.running import Running
from zero_tui.commands import running_refusal
from zero_tui.picker.session_rows import PickerRow
from zero_tui.store import SessionStore
from zero_tui.store.trash import trash_state, trashed
from zero_tui.text.labels import counted
from zero_tui.ui.messages import BulkDeleted, SessionDeleted, TrashCounted

TITLE = "Delete"


def delete_question(row: PickerRow) -> str:
    """What the dialog asks (made safe for the terminal by the dialog)."""
    return (
        f"Move “{row.title}” ({row.session_id}) to zero-tui's trash? Zero will no longer "
        f"list it; zero-tui restore {row.session_id} brings it back."
    )


class SessionTrash(Widget):
    """Deletes the picker's sessions into the trash and counts what the trash holds."""

    DEFAULT_CSS = """
    SessionTrash {
        display: none;
    }
    """

    def __init__(self, store: SessionStore, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._store = store
        self._counted: tuple[int, ...] | None = None  # the trash's state when last counted

    def on_mount(self) -> None:
        self.count()

    def delete(self, row: PickerRow, running: Running | None) -> None:
        """Ask, then move `row`'s session to the trash; never one that runs now."""
        from zero_tui.ui.screens.dialogs import ConfirmDialog  # 37 ms of the start

        if running is not None:
            message = running_refusal(row.session_id, running)
            self.notify(message, title=TITLE, severity="error", markup=False)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._delete(row.session_id)
            else:
                self.notify("nothing deleted", title=TITLE, markup=False)

        dialog = ConfirmDialog(
            "Move this session to the trash?", delete_question(row), "move it to the trash"
        )
        self.app.push_screen(dialog, answered)

    def delete_many(self, rows: Sequence[PickerRow], running: Mapping[str, Running]) -> None:
        """The marked sessions: those running now are refused by name, the rest moved to
        the trash after one question that says how many."""
        from zero_tui.ui.screens.dialogs import ConfirmDialog

        refused = [row.session_id for row in rows if row.session_id in running]
        if refused:
            message = f"not deleting {', '.join(refused)}: running now"
            self.notify(message, title=TITLE, severity="error", markup=False)
        ids = [row.session_id for row in rows if row.session_id not in running]
        if not ids:
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._delete_many(ids)
            else:
                self.notify("nothing deleted", title=TITLE, markup=False)

        count = counted(len(ids), "session")
        dialog = ConfirmDialog(
            f"Move {count} to the trash?",
            f"Zero will no longer list them; zero-tui restore ID brings each back. ({count})",
            "move them to the trash",
        )
        self.app.push_screen(dialog, answered)

    @work(thread=True, group="delete", exit_on_error=False)
    def _delete(self, session_id: str) -> None:
        self.post_message(SessionDeleted(session_id, delete_session(self._store, session_id)))

    @work(thread=True, group="delete", exit_on_error=False)
    def _delete_many(self, session_ids: list[str]) -> None:
        failures: list[str] = []
        for session_id in session_ids:
            outcome = delete_session(self._store, session_id)
            if outcome.ok:
                self.post_message(SessionDeleted(session_id, outcome, quiet=True))
            else:
                failures.append(outcome.message)
        moved = counted(len(session_ids) - len(failures), "session")
        said = f"moved {moved} to the trash (zero-tui trash lists them)"
        self.post_message(BulkDeleted("; ".join([said, *failures]), bool(failures)))

    def on_bulk_deleted(self, message: BulkDeleted) -> None:
        if message.failed:
            self.notify(message.said, title=TITLE, severity="error", markup=False)
        else:
            self.notify(message.said, title=TITLE, markup=False)
        self.count()

    @work(thread=True, exclusive=True, group="trash-count", exit_on_error=False)
    def count(self, *, again: bool = False) -> None:
        """Count the store's sessions in the trash (posted as `TrashCounted`), unless no
        entry went in or out since the last count (`again`: count all the same)."""
        state = trash_state(self._store)
        if state == self._counted and not again:
            return
        self._counted = state
        self.post_message(TrashCounted(len(trashed(self._store))))

    def on_session_deleted(self, message: SessionDeleted) -> None:
        outcome = message.outcome
        if message.quiet:
            return  # one of several: `BulkDeleted` says how they went
        if not outcome.ok:
            self.notify(outcome.message, title=TITLE, severity="error", markup=False)
            return
        self.notify(outcome.message, title=TITLE, markup=False)
        self.count()
