"""One session's log as the transcript shows it: the header (`TranscriptHeader`) and the rows.

The log is read in thread workers that only post what `transcript.follower` returns: opened
(a huge log's latest events first), then looked at every POLL_SECONDS while another process
appends to it. The widget also opens at a search hit, and searches the log for ctrl+f and
for the prompt /retry and /edit recall.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.worker import get_current_worker

from zero_tui.store import Metadata, SessionStore
from zero_tui.transcript.follower import (
    Grown,
    LogFollower,
    LogLook,
    Replaced,
    UnreadableLog,
    open_log,
)
from zero_tui.transcript.log_index import LogIndex, matching_positions
from zero_tui.transcript.recall import PromptRecall
from zero_tui.ui.messages import (
    EventLocated,
    LogPolled,
    MatchesFound,
    PromptRecalled,
    TranscriptFailed,
    TranscriptLoaded,
)
from zero_tui.ui.widgets.find_bar import RowFinder
from zero_tui.ui.widgets.transcript_header import TranscriptHeader
from zero_tui.ui.widgets.transcript_view import TranscriptView

POLL_SECONDS = 0.5


class TranscriptLog(Vertical):
    """The header and rows of one session (a new conversation: none until it is saved)."""

    # The header spans the screen; the rows stop two columns short of its edge, where the
    # screen's vertical layout put them when they were its child: it narrows a 1fr-tall
    # child by its siblings' widest horizontal margin (the editor's and the status line's).
    DEFAULT_CSS = """
    TranscriptLog {
        width: 100%;
        & > TranscriptView { margin-right: 2; }
    }
    """

    @dataclass
    class Read(Message):
        """A read of the log is over: the whole log is shown, or it could not be read."""

    @dataclass
    class Extended(Message):
        """Rows were added at the end: the log grew (another process's run)."""

    def __init__(
        self,
        store: SessionStore,
        session_id: str | None,
        *,
        notice: str | None,
        workspace: str,
        clock: Callable[[], datetime] | None,
        at_sequence: int | None,
        mark: str,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.store = store
        self.follower = LogFollower(session_id)
        self.header = TranscriptHeader(
            store, self.follower, notice=notice, workspace=workspace, clock=clock
        )
        self.view = TranscriptView(id="transcript-view")
        self.painted = False  # rows were drawn once, since the log was last read
        self._following = True  # False while the screen's own run appends (read again after)
        self._missed = False  # a look that found new lines came back while not following
        self._finder = RowFinder()
        self._open_at = at_sequence
        self._mark = mark

    def compose(self) -> ComposeResult:
        yield self.header
        yield self.view

    def on_mount(self) -> None:
        """Start reading the log: the header is composed by now, which the screen's own
        mount does not promise (a screen pushed while the app shuts down mounts without
        it)."""
        session_id = self.follower.session_id
        if session_id is not None:
            self._load(self.follower.load_id, session_id)
        self.set_interval(POLL_SECONDS, self._poll)

    def on_unmount(self) -> None:
        self.follower.close()

    def named(self, session_id: str) -> None:
        """A new conversation's first run named its session."""
        self.follower.session_id = session_id
        self.header.named(session_id)

    def renamed(self, meta: Metadata) -> None:
        self.follower.meta = meta
        self.header.show()
        if self.follower.loaded:
            self.view.replace_prelude(self.follower.prelude())

    def reload(self) -> None:
        """Read the log again, from the start (it was replaced, or a run ended)."""
        session_id = self.follower.session_id
        self._missed = False
        if session_id is not None:
            self.painted = False
            self._load(self.follower.restart(), session_id)

    # -- reading ----------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="transcript-load", exit_on_error=False)
    def _load(self, load_id: int, session_id: str, *, latest_first: bool = True) -> None:
        """Index the log. A huge one shows its latest events first: they are posted on their
        own, and the whole log is indexed once they are painted (`_load` again)."""
        worker = get_current_worker()
        log = open_log(
            self.store,
            session_id,
            latest_first=latest_first,
            cancelled=lambda: worker.is_cancelled,
        )
        if isinstance(log, UnreadableLog):
            self.post_message(TranscriptFailed(load_id, log.error, log.removed))
        elif log is not None:
            self.post_message(TranscriptLoaded(load_id, log))

    def on_transcript_loaded(self, message: TranscriptLoaded) -> None:
        self.header.read_session_tokens()
        log = message.log
        if not self.follower.is_current(message.load_id):
            log.index.close()
            return
        swap = self.follower.take(log)
        self._finder.forget()
        if log.partial:
            self.view.set_source(log.index, log.order, [])
            self.header.show()
            self.call_after_refresh(self._latest_painted, message.load_id)
            return
        if swap.stale_index is not None:
            swap.stale_index.close()
        prelude = self.follower.prelude()
        if swap.shift is not None:  # the whole log replaces the look at its latest events
            self.view.replace_source(
                log.index, log.order, prelude, shift=swap.shift, facts=log.facts
            )
        else:
            self.view.set_source(log.index, log.order, prelude, log.facts)
        self.call_after_refresh(self._rows_painted)
        self.header.loaded()
        self.post_message(self.Read())
        if self._open_at is not None:
            self._locate(log.index, log.order, self._open_at)
            self._open_at = None

    def _latest_painted(self, load_id: int) -> None:
        self.painted = True
        session_id = self.follower.session_id
        if self.follower.is_current(load_id) and session_id is not None:
            self._load(load_id, session_id, latest_first=False)

    def _rows_painted(self) -> None:
        self.painted = True

    def on_transcript_failed(self, message: TranscriptFailed) -> None:
        if self.follower.is_current(message.load_id):
            self.follower.unreadable(message.error, removed=message.removed)
            self.header.unreadable()
            self.post_message(self.Read())

    # -- following --------------------------------------------------------------------

    def _poll(self) -> None:
        if self.following and (look := self.follower.next_look()) is not None:
            self._poll_log(look)

    @work(thread=True, group="transcript-poll", exit_on_error=False)
    def _poll_log(self, look: LogLook) -> None:
        """One look at the log's end; the answer always comes back, as `LogPolled`."""
        self.post_message(LogPolled(look.run(self.store)))

    @property
    def following(self) -> bool:
        return self._following

    @following.setter
    def following(self, value: bool) -> None:
        self._following = value
        if value and self._missed:  # what a dropped look found is read with the rest
            self._missed = False
            self.reload()

    def on_log_polled(self, message: LogPolled) -> None:
        if message.end.first_changed is not None or message.end.replaced:
            self.header.read_session_tokens()  # during the screen's own run too
        if not self._following:
            # a look sent before the screen's own run began, back once it appends: its
            # events are the run's, shown live now and read with the log after the run
            self._missed = self._missed or message.end.first_changed is not None
            self.follower.take_end(replace(message.end, first_changed=None, replaced=False))
            return
        change = self.follower.take_end(message.end)
        if isinstance(change, Replaced):
            self.reload()
        elif isinstance(change, Grown):
            self._finder.forget()  # the new rows may match too
            follower = self.follower
            self.view.extend_source(
                follower.order, change.first_position, follower.facts, change.stale
            )
            self.header.show()
            self.post_message(self.Extended())

    # -- searching --------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="transcript-locate", exit_on_error=False)
    def _locate(self, index: LogIndex, order: Sequence[int], sequence: int) -> None:
        """Find the order position of the event with `sequence` (a search hit's)."""
        position = index.position_of_sequence(order, sequence)
        if not get_current_worker().is_cancelled:
            self.post_message(EventLocated(sequence, position))

    def on_event_located(self, message: EventLocated) -> None:
        if message.position is None:
            self.notify(f"event #{message.sequence} is not in this view", title="Search")
            return
        if self._mark:
            self.view.set_search(self._mark)
            self.view.reveal(message.position, self._mark, align_top=True)
        else:
            self.view.move_cursor(message.position, align_top=True)
        self.screen.set_focus(self.view)

    def find(self, query: str, backwards: bool) -> str | None:
        """ctrl+f: to the next (or previous) row matching `query`. What the find bar says:
        `searching…` when the rows must be searched first (MatchesFound follows); None when
        there is no log to search yet."""
        index = self.follower.index
        if index is None:
            return None
        self.view.set_search(query)
        positions = self._finder.known(query)
        if positions is None:
            self._search(index, self.follower.order, query, backwards)
            return "searching…"
        return self.go_to_match(query, positions, backwards)

    @work(thread=True, exclusive=True, group="transcript-find", exit_on_error=False)
    def _search(self, index: LogIndex, order: Sequence[int], query: str, backwards: bool) -> None:
        worker = get_current_worker()
        positions = matching_positions(
            index, order, query, facts=self.follower.facts, cancelled=lambda: worker.is_cancelled
        )
        if positions is not None and not worker.is_cancelled:
            self.post_message(MatchesFound(query, positions, backwards))

    def go_to_match(self, query: str, positions: Sequence[int], backwards: bool) -> str:
        """To the match of `query` after (or before) the cursor; what the find bar says."""
        cursor, count = self.view.cursor, len(self.follower.order)
        step = self._finder.step(query, positions, cursor, count, backwards=backwards)
        if step.position is not None:
            self.view.reveal(step.position, query)
        return step.status

    def recall(self, recall: PromptRecall) -> None:
        """The prompt /retry or /edit works on: PromptRecalled follows."""
        index = self.follower.index
        if recall.reads_log and self.follower.loaded and index is not None:
            self._read_last_prompt(recall, index, self.follower.order)
        else:
            self.post_message(PromptRecalled(recall, recall.remembered))

    @work(thread=True, exclusive=True, group="recall", exit_on_error=False)
    def _read_last_prompt(
        self, recall: PromptRecall, index: LogIndex, order: Sequence[int]
    ) -> None:
        worker = get_current_worker()
        prompt = recall.from_log(index, order, cancelled=lambda: worker.is_cancelled)
        if not worker.is_cancelled:
            self.post_message(PromptRecalled(recall, prompt))
