"""What reading a transcript does: the keys that move in the rows, find, copy.

`TranscriptReader` is the base of the transcript screen: everything here acts on the rows,
the find bar and the editor alone. `TranscriptScreen` (screens/transcript.py) composes the
widgets and adds continuing the session: the agent, /retry and /edit, the session commands.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual import on, work
from textual.worker import get_current_worker

from zero_tui.clipboard import CopyResult
from zero_tui.commands import CommandError, CopyRequest, parse_copy_args
from zero_tui.store.gotext import trim_space
from zero_tui.transcript.answers import NO_ANSWER, code_blocks, log_answers
from zero_tui.transcript.geometry import is_tool_card
from zero_tui.transcript.log_index import LogIndex
from zero_tui.transcript.rows import LogFacts
from zero_tui.ui.copier import Copier, terminal_copier
from zero_tui.ui.messages import CodeBlocksFound, CopyDone, MatchesFound, OpenSession
from zero_tui.ui.screens.command_screen import CommandScreen, command_action
from zero_tui.ui.screens.dialogs import CodeBlockPicker
from zero_tui.ui.widgets.composer import EditorMove, PromptEditor
from zero_tui.ui.widgets.find_bar import FindBar
from zero_tui.ui.widgets.transcript_log import TranscriptLog
from zero_tui.ui.widgets.transcript_view import TranscriptView

READ_ONLY_NOTICE = (
    "Read-only: this session (a specialist's sub-session, or another kind Zero does not "
    "resume) cannot be continued. Esc goes back."
)


class TranscriptReader(CommandScreen):
    """The rows of one session to read: move in them, find in them, copy from them."""

    transcript_log: TranscriptLog  # composed by the subclass

    def __init__(self, copier: Copier | None) -> None:
        super().__init__()
        self._copier = copier

    @property
    def session_id(self) -> str | None:
        return self.transcript_log.follower.session_id

    @property
    def view(self) -> TranscriptView:
        return self.transcript_log.view

    @property
    def find_bar(self) -> FindBar:
        return self.query_one(FindBar)

    @property
    def composer(self) -> PromptEditor:
        return self.query_one(PromptEditor)

    def _error(self, title: str, message: str) -> None:
        self.notify(message, title=title, severity="error", markup=False)

    def _loaded_index(self) -> LogIndex:
        log = self.transcript_log.follower
        if log.index is None or not log.loaded:
            raise CommandError("the transcript is still loading: try again in a moment")
        return log.index

    # -- moving in the rows ---------------------------------------------------------------

    def action_previous_turn(self) -> None:
        self.view.action_previous_turn()

    def action_next_turn(self) -> None:
        self.view.action_next_turn()

    def action_page(self, pages: int) -> None:
        self.view.page(pages)

    def action_top(self) -> None:
        self.view.action_jump_top()

    def action_bottom(self) -> None:
        self.view.action_jump_bottom()

    def action_toggle_card(self) -> None:
        self.view.toggle_card()

    @on(TranscriptView.ChildRequested)
    def _open_child(self, message: TranscriptView.ChildRequested) -> None:
        """A specialist's sub-session, read-only, on top of this one (Esc comes back)."""
        self.post_message(
            OpenSession(message.child_session_id, notice=READ_ONLY_NOTICE, above=True)
        )

    def action_quit_app(self) -> None:
        self.call_next(self.app.run_action, "app.quit")  # the app asks first mid-run

    # -- focus: the editor and the rows ----------------------------------------------

    def action_switch_focus(self, to: str) -> None:
        """Tab: from the editor to the rows and back (set_focus now, not the deferred
        `widget.focus()`: the next key, typed at once, must go to the new widget)."""
        self.set_focus(self.view if to == "rows" else self.composer)

    def on_descendant_focus(self) -> None:
        self.refresh_bindings()  # Tab's label: Rows or Prompt

    @on(EditorMove)
    def _composer_move(self, event: EditorMove) -> None:
        if event.delta < 0:
            self.view.action_cursor_up()
        else:
            self.view.action_cursor_down()

    # -- find -------------------------------------------------------------------------

    def action_find(self) -> None:
        self.find_bar.open()

    @on(FindBar.Changed)
    def _find_changed(self, message: FindBar.Changed) -> None:
        self.view.set_search(message.query)

    @on(FindBar.Find)
    def _find(self, message: FindBar.Find) -> None:
        status = self.transcript_log.find(message.query, message.backwards)
        if status is not None:
            self.find_bar.set_status(status)

    def on_matches_found(self, message: MatchesFound) -> None:
        if message.query == self.find_bar.text:
            log = self.transcript_log
            status = log.go_to_match(message.query, message.positions, message.backwards)
            self.find_bar.set_status(status)

    @on(FindBar.Closed)
    def _find_closed(self) -> None:
        self.view.set_search("")
        self.set_focus(self.view)

    # -- /copy, ctrl+y ----------------------------------------------------------------

    @command_action
    def action_copy(self, args: str) -> None:
        request = parse_copy_args(args)
        if self.session_id is None:
            raise CommandError(NO_ANSWER)
        index = self._loaded_index()
        log = self.transcript_log.follower
        self._find_answer(index, log.order, log.facts, request)

    @work(thread=True, exclusive=True, group="copy", exit_on_error=False)
    def _find_answer(
        self, index: LogIndex, order: Sequence[int], facts: LogFacts | None, request: CopyRequest
    ) -> None:
        worker = get_current_worker()
        answers = log_answers(
            index, order, request.nth, cancelled=lambda: worker.is_cancelled, facts=facts
        )
        if worker.is_cancelled:
            return
        if len(answers) < request.nth:
            message = (
                NO_ANSWER
                if not answers
                else f"there is no answer {request.nth} back: this session has {len(answers)}."
            )
            self.post_message(CopyDone(CopyResult(False, message)))
            return
        text = answers[request.nth - 1]
        if request.code:
            blocks = code_blocks(text)
            if len(blocks) != 1:
                self.post_message(CodeBlocksFound(blocks))
                return
            text = blocks[0].text
        self._copy(text)

    def on_code_blocks_found(self, message: CodeBlocksFound) -> None:
        if not message.blocks:
            self._error("Copy", "that answer has no code block.")
            return
        blocks = message.blocks

        def picked(choice: int | None) -> None:
            if choice is not None:
                self._copy_in_worker(blocks[choice].text)

        self.app.push_screen(CodeBlockPicker(blocks), picked)

    def _copy(self, text: str) -> None:
        """Copy now (called from a worker thread)."""
        copier = self._copier or terminal_copier(self.app)
        self.post_message(CopyDone(copier(text)))

    @work(thread=True, exclusive=True, group="copy", exit_on_error=False)
    def _copy_in_worker(self, text: str) -> None:
        self._copy(text)

    def on_copy_done(self, message: CopyDone) -> None:
        result = message.result
        self.notify(
            result.message,
            title="Copy",
            severity="information" if result.ok else "error",
            markup=False,
        )

    async def action_copy_highlighted(self) -> None:
        """ctrl+y: the highlighted message's text; with nothing highlighted, the last answer."""
        view = self.view
        row = view.row_at(view.cursor) if view.cursor is not None else None
        if row is None:
            await self.run_text("/copy")
            return
        text = row.detail if is_tool_card(row) and row.detail else row.text
        if not trim_space(text):
            self._error("Copy", "the highlighted row has no text to copy.")
            return
        self._copy_in_worker(text)
