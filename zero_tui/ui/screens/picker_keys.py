"""What the picker's query line and keys do to the list: move in it, open a row, and run
a `/` command on the highlighted session.

`PickerKeys` is the base of the picker screen: everything here acts on the query line
(`Composer`), the list and the body alone, never on the picker's state.
`PickerScreen` (screens/picker.py) composes the widgets, holds the state and routes the
messages that change it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime

from textual import on
from textual.app import SystemCommand

from zero_tui.commands import CommandError
from zero_tui.picker.session_rows import local_now
from zero_tui.ui.messages import ResumeRequest
from zero_tui.ui.screens.command_screen import CommandScreen, command_action
from zero_tui.ui.widgets.composer import Composer, EditorMove, EditorRun
from zero_tui.ui.widgets.picker_body import PickerBody
from zero_tui.ui.widgets.session_list import SessionList


class PickerKeys(CommandScreen):
    """The picker's keys and the session its commands act on (the highlighted one)."""

    _clock: Callable[[], datetime] | None  # set by the subclass

    @property
    def composer(self) -> Composer:
        return self.query_one("#query", Composer)

    @property
    def body(self) -> PickerBody:
        return self.query_one(PickerBody)

    @property
    def session_list(self) -> SessionList:
        return self.query_one(SessionList)

    # --- commands (`/` as the first character of the query) ------------------------------

    @property
    def command_mode(self) -> bool:
        return self.composer.command_mode

    @on(EditorRun)
    async def _composer_run(self, event: EditorRun) -> None:
        """Enter: run the command typed, else open the highlighted session."""
        event.stop()
        if self.command_mode:
            await self._run_line()
        else:
            await self.action_open()

    @on(EditorMove)
    def _composer_move(self, event: EditorMove) -> None:
        self.session_list.move(event.delta, wrap=True)

    async def _run_line(self) -> None:
        if await self.run_text(self.composer.value):
            self.composer.clear_line()

    # /export and /rename (CommandScreen) act on the highlighted session

    def command_session(self) -> str:
        row = self.session_list.highlighted_row
        if row is None:
            raise CommandError("no session is highlighted")
        return row.session_id

    def current_title(self, session_id: str) -> str:
        row = self.session_list.highlighted_row
        if row is None or row.session_id != session_id or row.title == "untitled":
            return ""
        return row.title

    def command_time(self) -> datetime:
        return local_now(self._clock)[0]

    @command_action
    def action_resume(self, args: str) -> None:
        if not args:
            raise CommandError("this is the session picker: pick a session and press Enter")
        self.post_message(ResumeRequest(args))

    def system_commands(self) -> Iterable[SystemCommand]:
        """The picker's actions for the command palette."""
        yield from self.registry_commands()

    # --- keys ----------------------------------------------------------------------------

    def action_move(self, delta: int) -> None:
        if self.composer.completing:
            self.composer.action_popup_move(delta)
            return
        self.session_list.move(delta, wrap=True)

    def action_page(self, pages: int) -> None:
        self.session_list.page(pages)

    def action_first(self) -> None:
        self.session_list.first()

    def action_last(self) -> None:
        self.session_list.last()

    async def action_open(self) -> None:
        if self.command_mode:
            if self.composer.completing:
                self.composer.accept_completion(explicit=False)
            await self._run_line()
            return
        self.body.open_highlighted()

    def action_escape(self) -> None:
        """Esc: leave command mode or clear the query; with nothing to clear, say how to
        quit (Esc is pressed by reflex: it never quits)."""
        if self.command_mode or self.composer.text_value:
            self.composer.clear_line()
            return
        self.notify("ctrl+q quits zero-tui", title="Quit", markup=False)
