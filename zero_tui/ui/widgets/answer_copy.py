"""The transcript's /copy and ctrl+y: a widget with nothing to show, beside the screen.

`copy_answer` finds the answer `/copy [n] [code]` names in the log, in a worker
(`transcript.answers`); an answer with several code blocks asks which one
(`CodeBlockPicker`). `copy_text` copies a row's text. The copy itself runs in a worker too
(the terminal's clipboard can be slow: tmux, OSC 52 through SSH), and the widget says how
it went.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual import work
from textual.widget import Widget
from textual.worker import get_current_worker

from zero_tui.clipboard import CopyResult
from zero_tui.commands import CopyRequest
from zero_tui.transcript.answers import NO_ANSWER, code_blocks, log_answers
from zero_tui.transcript.log_index import LogIndex
from zero_tui.transcript.rows import LogFacts
from zero_tui.ui.copier import Copier, terminal_copier
from zero_tui.ui.messages import CodeBlocksFound, CopyDone

TITLE = "Copy"


class AnswerCopy(Widget):
    """Copies an answer, one of its code blocks, or a row's text to the clipboard."""

    DEFAULT_CSS = """
    AnswerCopy {
        display: none;
    }
    """

    def __init__(self, copier: Copier | None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._copier = copier

    @work(thread=True, exclusive=True, group="copy", exit_on_error=False)
    def copy_answer(
        self, index: LogIndex, order: Sequence[int], facts: LogFacts | None, request: CopyRequest
    ) -> None:
        """The answer `request` names (or its one code block), found in the log, copied."""
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

    @work(thread=True, exclusive=True, group="copy", exit_on_error=False)
    def copy_text(self, text: str) -> None:
        self._copy(text)

    def _copy(self, text: str) -> None:
        """Copy now (called from a worker thread)."""
        copier = self._copier or terminal_copier(self.app)
        self.post_message(CopyDone(copier(text)))

    def on_code_blocks_found(self, message: CodeBlocksFound) -> None:
        from zero_tui.ui.screens.dialogs import CodeBlockPicker  # 37 ms of the start

        if not message.blocks:
            self.notify(
                "that answer has no code block.", title=TITLE, severity="error", markup=False
            )
            return
        blocks = message.blocks

        def picked(choice: int | None) -> None:
            if choice is not None:
                self.copy_text(blocks[choice].text)

        self.app.push_screen(CodeBlockPicker(blocks), picked)

    def on_copy_done(self, message: CopyDone) -> None:
        result = message.result
        self.notify(
            result.message,
            title=TITLE,
            severity="information" if result.ok else "error",
            markup=False,
        )
