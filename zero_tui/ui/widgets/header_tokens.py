"""The open session's tokens, for the transcript's header: a mixin of the header widget.

`TranscriptHeader` has `SessionTokensHook` first among its bases, passes
`tokens=self.session_tokens` to `header_facts`, and redraws in `session_tokens_changed`.
The log's widget calls `read_session_tokens` when the transcript has loaded and when the
log grew (another process appending); the hook reads the usage events in a worker, at most
one read at a time and one every `REREAD_SECONDS` while the log keeps growing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work
from textual.widget import Widget
from textual.worker import get_current_worker

from zero_tui.store import SessionStore, StoreError
from zero_tui.store.token_counts import Tokens, session_tokens
from zero_tui.ui.messages import SessionTokensLoaded

REREAD_SECONDS = 2.0


if TYPE_CHECKING:
    _WidgetMixin = Widget
else:
    # a plain mixin at run time: Textual takes CSS and layout from the first base that is a
    # DOMNode, which must stay the widget mixed into (ui/widgets/ordered_keys.py does so too)
    _WidgetMixin = object


class SessionTokensHook(_WidgetMixin):
    """`session_tokens`: the open session's usage events added up (None until read, or
    when its log cannot be read)."""

    store: SessionStore

    @property
    def tokens_session_id(self) -> str | None:
        """The session whose tokens are shown (the widget says which)."""
        raise NotImplementedError

    session_tokens: Tokens | None = None
    _tokens_reading = False
    _tokens_wanted = False  # the log grew during a read, or a re-read is waiting its turn

    def session_tokens_changed(self) -> None:
        """The tokens changed: the screen redraws what shows them."""

    def read_session_tokens(self) -> None:
        """Read them now, or after the read in flight (then at most every REREAD_SECONDS)."""
        if self._tokens_reading:
            self._tokens_wanted = True
            return
        session_id = self.tokens_session_id
        if session_id is not None:
            self._tokens_reading = True
            self._read_tokens(session_id)

    @work(thread=True, exclusive=True, group="session-tokens", exit_on_error=False)
    def _read_tokens(self, session_id: str) -> None:
        try:
            tokens: Tokens | None = session_tokens(self.store, session_id)
        except (StoreError, OSError):
            tokens = None  # the transcript says why it cannot read the log
        if not get_current_worker().is_cancelled:
            self.post_message(SessionTokensLoaded(session_id, tokens))

    def on_session_tokens_loaded(self, message: SessionTokensLoaded) -> None:
        self._tokens_reading = False
        if message.session_id != self.tokens_session_id:
            self.read_session_tokens()  # another session opened meanwhile (/new, a fork)
            return
        if message.tokens != self.session_tokens:
            self.session_tokens = message.tokens
            self.session_tokens_changed()
        if self._tokens_wanted:
            self._tokens_wanted = False
            self._tokens_reading = True  # nothing starts another read before this one
            self.set_timer(REREAD_SECONDS, self._reread)

    def _reread(self) -> None:
        self._tokens_reading = False
        self._tokens_wanted = False  # this read covers whatever grew while it waited
        self.read_session_tokens()
