"""What /retry and /edit work on (tui-behaviour §3.1), Textual-free.

The prompt last sent in this process (process memory only); else the session's last user
message, read from its log; else nothing, and the command says so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from zero_tui.transcript.answers import log_last_prompt
from zero_tui.transcript.log_index import LogIndex


@dataclass(frozen=True)
class PromptRecall:
    """/retry (send the prompt again) or /edit (put it back in the editor)."""

    command: Literal["retry", "edit"]
    remembered: str | None  # the prompt last sent in this process

    @property
    def sends(self) -> bool:
        return self.command == "retry"

    @property
    def title(self) -> str:
        return self.command.capitalize()

    @property
    def reads_log(self) -> bool:
        """Nothing was sent in this process: the session's log has the prompt."""
        return not self.remembered

    @property
    def nothing(self) -> str:
        """What the command says when there is no prompt to work on."""
        return f"no previous prompt to {'resend' if self.sends else 'recall'}."

    def from_log(
        self, index: LogIndex, order: Sequence[int], cancelled: Callable[[], bool]
    ) -> str | None:
        """The session's last user message (it reads the log: call it in a worker)."""
        return log_last_prompt(index, order, cancelled=cancelled)
