"""The transcript's header: the session's title and facts, where a fork came from, notes.

The facts line says who writes the session now (looked at every RUNNING_POLL_SECONDS, in a
worker: agent.running) and its tokens (`SessionTokensHook`); the lineage line names a
fork's parent (looked up once, in a worker). What the header shows of the log (its
metadata, its events, why it cannot be read) is the `LogFollower` it is given, which
`TranscriptLog` keeps; the log's widget says when that changed (`loaded`, `grew`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from zero_tui.agent.running import running_now
from zero_tui.commands import REGISTRY, Context
from zero_tui.store import Metadata, SessionStore
from zero_tui.text.sanitize import home_relative, sanitize_line
from zero_tui.transcript.follower import LogFollower
from zero_tui.transcript.header import header_facts
from zero_tui.transcript.turns import ParentLink, parent_link
from zero_tui.ui.messages import ParentLinked, RunningLooked
from zero_tui.ui.widgets.header_tokens import SessionTokensHook

RUNNING_POLL_SECONDS = 1.0
TITLE_TOOLTIP_LIMIT = 2000


class TranscriptHeader(SessionTokensHook, Vertical):
    """The title, facts, lineage and note lines above the rows."""

    def __init__(
        self,
        store: SessionStore,
        follower: LogFollower,
        *,
        notice: str | None,
        workspace: str,
        clock: Callable[[], datetime] | None,
    ) -> None:
        super().__init__(id="transcript-header")
        self.store = store
        self.follower = follower
        self.notice = notice
        self.workspace = workspace
        self._clock = clock
        self.running: str | None = None  # where an agent writes this session now (describe())
        self.quiet_since: float | None = None  # the screen's own run on it ended then
        self.parent_link: ParentLink | None = None  # a fork's parent, once looked up
        self._linked: str | None = None  # the session whose parent was looked up
        # held, not queried: a header mounted while its screen is removed (a quit as a
        # session opens) gets no children, and its mount handler still runs
        title = follower.session_id or "New conversation"
        self._title_line = Static(Content(title), id="transcript-title")
        self._facts_line = Static(Content("loading…"), id="transcript-facts")
        self._lineage_line = Static(Content(""), id="transcript-lineage")
        self._note_line = Static(Content(""), id="transcript-note")

    def compose(self) -> ComposeResult:
        yield self._title_line
        yield self._facts_line
        yield self._lineage_line
        yield self._note_line

    def on_mount(self) -> None:
        self.show_note()
        if self.follower.session_id is None:
            self.show()
        self.set_interval(RUNNING_POLL_SECONDS, self.look_running)

    def on_resize(self) -> None:
        if self.follower.session_id is not None:
            self.show()  # the facts fitted to the new width

    def now(self) -> datetime:
        return self._clock() if self._clock is not None else datetime.now().astimezone()

    def named(self, session_id: str) -> None:
        """A new conversation's first run named its session."""
        self._title_line.update(Content(session_id))

    def loaded(self) -> None:
        """The whole log was read."""
        self.show()
        self.show_note()
        self._look_up_parent()

    def unreadable(self) -> None:
        """The log could not be read (the note says why)."""
        self.show_note()
        if self.follower.index is None:  # a read again keeps what was shown of the session
            self._facts_line.update(Content(""))

    def show(self) -> None:
        session_id, meta = self.follower.session_id, self.follower.meta
        title_line, facts_line = self._title_line, self._facts_line
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
        facts = header_facts(
            session_id,
            meta,
            self.follower.event_count,
            self.now(),
            running=self.running,
            tokens=self.session_tokens,
            width=facts_line.content_size.width or None,
        )
        facts_line.update(Content(facts))

    def show_note(self) -> None:
        notes = [note for note in (self.notice, self.follower.note) if note]
        widget = self._note_line
        widget.update(Content("\n".join(sanitize_line(note) for note in notes)))
        widget.display = bool(notes)

    # -- tokens (SessionTokensHook) -----------------------------------------------------

    @property
    def tokens_session_id(self) -> str | None:
        return self.follower.session_id

    def session_tokens_changed(self) -> None:
        self.show()

    # -- who writes the session now -----------------------------------------------------

    def look_running(self) -> None:
        """Look now who writes the session (every second, and when a run of this screen
        starts or ends)."""
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
            self.show()

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
        widget = self._lineage_line
        if link is None:
            widget.display = False
            return
        text = "↳ " + sanitize_line(link.describe())
        key = REGISTRY.action_key_for("open_parent", Context.TRANSCRIPT)
        if key is not None and not link.missing:
            text += f" · {key} opens it"
        widget.update(Content(text))
        widget.display = True
