"""One session's log as the transcript shows it: the header, and the rows under it.

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
from textual.content import Content
from textual.message import Message
from textual.widgets import Static
from textual.worker import get_current_worker

from zero_tui.agent.running import running_now
from zero_tui.commands import REGISTRY, Context
from zero_tui.store import Metadata, SessionStore
from zero_tui.text.sanitize import home_relative, sanitize_line
from zero_tui.transcript.follower import (
    Grown,
    LogFollower,
    LogLook,
    Replaced,
    UnreadableLog,
    open_log,
)
from zero_tui.transcript.header import header_facts
from zero_tui.transcript.log_index import LogIndex, matching_positions
from zero_tui.transcript.recall import PromptRecall
from zero_tui.transcript.turns import ParentLink, parent_link
from zero_tui.ui.messages import (
    EventLocated,
    LogPolled,
    MatchesFound,
    ParentLinked,
    PromptRecalled,
    RunningLooked,
    TranscriptFailed,
    TranscriptLoaded,
)
from zero_tui.ui.widgets.find_bar import RowFinder
from zero_tui.ui.widgets.session_tokens import SessionTokensHook
from zero_tui.ui.widgets.transcript_view import TranscriptView

POLL_SECONDS = 0.5
RUNNING_POLL_SECONDS = 1.0
TITLE_TOOLTIP_LIMIT = 2000


class TranscriptLog(SessionTokensHook, Vertical):
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
        self.view = TranscriptView(id="transcript-view")
        self.notice = notice
        self.workspace = workspace
        self.painted = False  # rows were drawn once, since the log was last read
        self._following = True  # False while the screen's own run appends (read again after)
        self._missed = False  # a look that found new lines came back while not following
        self._finder = RowFinder()
        self.running: str | None = None  # where an agent writes this session now (describe())
        self.quiet_since: float | None = None  # the screen's own run on it ended then
        self._clock = clock
        self._open_at = at_sequence
        self._mark = mark
        self.parent_link: ParentLink | None = None  # a fork's parent, once looked up
        self._linked: str | None = None  # the session whose parent was looked up

    def compose(self) -> ComposeResult:
        with Vertical(id="transcript-header"):
            title = self.follower.session_id or "New conversation"
            yield Static(Content(title), id="transcript-title")
            yield Static(Content("loading…"), id="transcript-facts")
            yield Static(Content(""), id="transcript-lineage")
            yield Static(Content(""), id="transcript-note")
        yield self.view

    def on_mount(self) -> None:
        """Show the header and start reading the log: the header's widgets are composed
        by now, which the screen's own mount does not promise (a screen pushed while the
        app shuts down mounts without them)."""
        self._show_note()
        session_id = self.follower.session_id
        if session_id is None:
            self._show_header()
        else:
            self._load(self.follower.load_id, session_id)
        self.set_interval(POLL_SECONDS, self._poll)
        self.set_interval(RUNNING_POLL_SECONDS, self._look_running)

    def on_unmount(self) -> None:
        self.follower.close()

    def now(self) -> datetime:
        return self._clock() if self._clock is not None else datetime.now().astimezone()

    def named(self, session_id: str) -> None:
        """A new conversation's first run named its session."""
        self.follower.session_id = session_id
        self.query_one("#transcript-title", Static).update(Content(session_id))

    def renamed(self, meta: Metadata) -> None:
        self.follower.meta = meta
        self._show_header()
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
        log = message.log
        if not self.follower.is_current(message.load_id):
            log.index.close()
            return
        swap = self.follower.take(log)
        self._finder.forget()
        if log.partial:
            self.view.set_source(log.index, log.order, [])
            self._show_header()
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
        self._show_header()
        self._show_note()
        self._look_up_parent()
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
            self._show_note()
            if self.follower.index is None:  # a read again keeps what was shown of the session
                self.query_one("#transcript-facts", Static).update(Content(""))
            self.post_message(self.Read())

    def _show_header(self) -> None:
        session_id, meta = self.follower.session_id, self.follower.meta
        title_line = self.query_one("#transcript-title", Static)
        facts_line = self.query_one("#transcript-facts", Static)
        if session_id is None:
            title_line.update(Content("New conversation"))
            where = home_relative(sanitize_line(self.workspace))
            facts_line.update(Content("the first prompt starts a session in " + where))
            return
        if meta is not None and meta.title:
            title = sanitize_line(meta.title)
        elif meta is None and self.follower.started_new:
            title = "New conversation"  # named by the agent, not read yet
        else:
            title = "untitled"
        title_line.update(Content(title))
        # one line, cut with an ellipsis; the whole title (up to a screenful) on hover
        title_line.tooltip = Content(title[:TITLE_TOOLTIP_LIMIT])
        shown = self.follower.event_count
        facts = header_facts(
            session_id,
            meta,
            shown,
            self.now(),
            running=self.running,
            tokens=self.session_tokens,
        )
        facts_line.update(Content(facts))

    @property
    def tokens_session_id(self) -> str | None:
        return self.follower.session_id

    def session_tokens_changed(self) -> None:
        self._show_header()

    # -- where a fork came from ---------------------------------------------------------

    def _look_up_parent(self) -> None:
        meta, session_id = self.follower.meta, self.follower.session_id
        if meta is None or session_id is None or not meta.parent_session_id:
            return
        if self._linked != session_id:
            self._linked = session_id
            self._link_parent(session_id, meta)

    @work(thread=True, exclusive=True, group="transcript-parent", exit_on_error=False)
    def _link_parent(self, session_id: str, meta: Metadata) -> None:
        self.post_message(ParentLinked(session_id, parent_link(self.store, meta)))

    def on_parent_linked(self, message: ParentLinked) -> None:
        if message.session_id != self.follower.session_id:
            return
        self.parent_link = link = message.link
        widget = self.query_one("#transcript-lineage", Static)
        if link is None:
            widget.display = False
            return
        text = "↳ " + sanitize_line(link.describe())
        key = REGISTRY.action_key_for("open_parent", Context.TRANSCRIPT)
        if key is not None and not link.missing:
            text += f" · {key} opens it"
        widget.update(Content(text))
        widget.display = True

    def _show_note(self) -> None:
        notes = [note for note in (self.notice, self.follower.note) if note]
        widget = self.query_one("#transcript-note", Static)
        widget.update(Content("\n".join(sanitize_line(note) for note in notes)))
        widget.display = bool(notes)

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
            self._show_header()
            self.post_message(self.Extended())

    # -- running now ------------------------------------------------------------------

    def look_running(self) -> None:
        """Look now who writes the session (a run of this screen starts or ends)."""
        self._look_running()

    def _look_running(self) -> None:
        session_id = self.follower.session_id
        if session_id is not None:
            self._find_running(session_id, self.quiet_since)

    @work(thread=True, exclusive=True, group="transcript-running", exit_on_error=False)
    def _find_running(self, session_id: str, quiet_since: float | None) -> None:
        """Who writes the session now (agent.running: this or another zero-tui, a `zero`
        process naming it, Zero's TUI mid-turn, a log written just now and not by the
        screen's own run, which ended at `quiet_since`)."""
        found = running_now(self.store, session_id, quiet_since=quiet_since)
        self.post_message(RunningLooked(session_id, found.describe() if found else None))

    def on_running_looked(self, message: RunningLooked) -> None:
        if message.session_id == self.follower.session_id and message.where != self.running:
            self.running = message.where
            self._show_header()

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
            self.view.move_cursor(step.position, align_top=False)
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
