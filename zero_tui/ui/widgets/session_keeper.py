"""The picker's pins, tags and archive (alt+p, alt+t, alt+a): a widget with nothing to show.

`read()` reads the store's flags in a worker (`store.session_flags`, the CLI's), posting
`FlagsRead`; `pin`, `archive` and `tag` change them for one session or every marked one —
several only after one question that names how many (the tag dialog is that question) —
in a worker that posts `FlagsRead` with what it did. The message goes on up to the screen,
which shows the new flags.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from textual import work
from textual.widget import Widget

from zero_tui.store import SessionStore, StoreError
from zero_tui.store.session_flags import (
    FlagBook,
    SessionFlags,
    read_flags,
    update_flags,
)
from zero_tui.text.labels import counted
from zero_tui.ui.messages import FlagsRead

Change = Callable[[SessionFlags], SessionFlags]


def _sessions(ids: Sequence[str]) -> str:
    return ids[0] if len(ids) == 1 else counted(len(ids), "session")


class SessionKeeper(Widget):
    """Reads and changes the pins, tags and archive of the picker's store."""

    DEFAULT_CSS = """
    SessionKeeper {
        display: none;
    }
    """

    def __init__(self, store: SessionStore, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._store = store

    def on_mount(self) -> None:
        self.read()

    @work(thread=True, exclusive=True, group="flags-read", exit_on_error=False)
    def read(self) -> None:
        self.post_message(FlagsRead(read_flags(self._store.root)))

    def pin(self, ids: Sequence[str], book: FlagBook) -> None:
        """Pin them, or unpin them when every one is pinned."""
        pin = not all(book.of(session_id).pinned for session_id in ids)
        verb = "Pin" if pin else "Unpin"
        self._asked(ids, verb, lambda flags: replace(flags, pinned=pin))

    def archive(self, ids: Sequence[str], book: FlagBook) -> None:
        """Archive them, or bring them back when every one is archived."""
        archive = not all(book.of(session_id).archived for session_id in ids)
        verb = "Archive" if archive else "Unarchive"
        self._asked(ids, verb, lambda flags: replace(flags, archived=archive))

    def tag(self, ids: Sequence[str], book: FlagBook) -> None:
        """Ask for the tags to add and remove (the dialog names how many sessions)."""
        from zero_tui.ui.screens.dialogs import TagDialog  # 37 ms of the start

        current = sorted({tag for session_id in ids for tag in book.of(session_id).tags})

        def answered(changes: tuple[list[str], list[str]] | None) -> None:
            if changes is not None:
                added, removed = changes
                said = " ".join([*(f"+{tag}" for tag in added), *(f"-{tag}" for tag in removed)])
                self._change(
                    list(ids),
                    lambda flags: flags.with_tags(added, removed),
                    f"tagged {_sessions(ids)} {said}",
                )

        self.app.push_screen(TagDialog(f"Tag {_sessions(ids)}", current), answered)

    def _asked(self, ids: Sequence[str], verb: str, change: Change) -> None:
        """One session at once; several after one question naming how many."""
        from zero_tui.ui.screens.dialogs import ConfirmDialog  # 37 ms of the start

        said = f"{verb.lower()}{'ned' if verb.endswith('n') else 'd'} {_sessions(ids)}"
        if len(ids) == 1:
            self._change(list(ids), change, said)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._change(list(ids), change, said)

        question = f"{verb} {counted(len(ids), 'session')}?"
        dialog = ConfirmDialog(question, f"{verb} the {len(ids)} marked sessions.", verb.lower())
        self.app.push_screen(dialog, answered)

    @work(thread=True, group="flags-change", exit_on_error=False)
    def _change(self, ids: list[str], change: Change, said: str) -> None:
        try:
            book = update_flags(self._store.root, ids, change)
        except StoreError as error:
            self.post_message(FlagsRead(read_flags(self._store.root), failed=str(error)))
            return
        self.post_message(FlagsRead(book, said=said))

    def on_flags_read(self, message: FlagsRead) -> None:
        if message.failed:
            self.notify(message.failed, title="Flags", severity="error", markup=False)
        elif message.said:
            self.notify(message.said, title="Flags", markup=False)
        elif message.book.warning:
            self.notify(message.book.warning, title="Flags", severity="warning", markup=False)
