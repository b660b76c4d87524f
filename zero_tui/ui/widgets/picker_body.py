"""The picker's body: the current scope's rows, ranked for the query, beside the preview of
the highlighted one.

The screen hands the body the picker's state (`state`: attributes down) and says when to
show the scope again. The body ranks the rows in thread workers (by title, or by what was
said with ctrl+t), shows the result and posts `Shown` for the status line. Enter or a
click opens the highlighted session, at its content hit when there is one. `PreviewPane`
loads the highlighted session's preview in a worker of its own.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.worker import Worker, WorkerState, get_current_worker

from zero_tui.picker.content_search import ContentSearch
from zero_tui.picker.loader import load_preview
from zero_tui.picker.ranking import Ranking
from zero_tui.picker.scopes import RowRanker, ScopeKey
from zero_tui.picker.session_rows import PickerRow
from zero_tui.picker.state import PickerState
from zero_tui.search.query import SearchHit, highlight_term
from zero_tui.store import SessionStore
from zero_tui.text.sanitize import sanitize_line
from zero_tui.ui.messages import ContentResults, OpenSession, PreviewLoaded, RankingDone
from zero_tui.ui.widgets.preview import SessionPreview
from zero_tui.ui.widgets.session_list import HighlightLookup, SessionList, SnippetLine

CONTENT_DEBOUNCE = 0.15  # seconds of typing pause before a content search starts


def snippet_line(hit: SearchHit) -> SnippetLine | None:
    """The line the list shows under a content hit (text made safe for the terminal)."""
    if hit.sequence is None:
        return None
    where = f"{hit.role or 'event'} #{hit.sequence}"
    if hit.compacted:
        where += " (compacted)"
    text = hit.snippet.text
    safe = sanitize_line(text)
    spans = hit.snippet.spans if safe == text else ()
    return SnippetLine(where, safe, spans)


class PreviewPane(SessionPreview):
    """The preview of the highlighted row, loaded in a worker: while one loads, the
    highlight may move on; the latest row is loaded next, those in between never."""

    def __init__(
        self,
        store: SessionStore,
        *,
        clock: Callable[[], datetime] | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self._store = store
        self._clock = clock
        self._loading = False
        self._wanted: PickerRow | None = None
        self._shown: str | None = None

    def on_mount(self) -> None:
        self.show_message("")

    def follow(self, row: PickerRow | None) -> None:
        """Show the preview of `row` (None: nothing)."""
        self._wanted = row
        if row is None:
            self._shown = None
            self.show_message("")
            return
        if self._loading or row.session_id == self._shown:
            return  # a running load hands over to the latest wish when it is done
        self._loading = True
        # After the next paint: the list's rows come before the preview's IO.
        self.call_after_refresh(self._start)

    def forget(self) -> None:
        """The shown session changed on disk (a rename): load it again when highlighted."""
        self._shown = None

    def _start(self) -> None:
        row = self._wanted
        if row is None:
            self._loading = False
            return
        self._loading = True
        self._shown = row.session_id
        self._load(row.session_id)

    @work(thread=True, exclusive=True, group="preview", exit_on_error=False)
    def _load(self, session_id: str) -> None:
        preview = load_preview(self._store, session_id, self._clock)
        if not get_current_worker().is_cancelled:
            self.post_message(PreviewLoaded(session_id, preview))

    def on_preview_loaded(self, message: PreviewLoaded) -> None:
        self._loading = False
        wanted = self._wanted
        if wanted is None:
            return
        if wanted.session_id != message.session_id:
            # The highlight moved on while this one loaded: load the latest only.
            self._start()
            return
        self.show(message.preview)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.group == "preview":
            self._loading = False
            self.show_message(f"preview failed: {event.worker.error}")


class PickerBody(Horizontal):
    """The list of the current scope's rows and the preview of the highlighted one."""

    class Shown(Message):
        """The list shows `count` rows now; `content_status`: what a content search said of
        them (None: no content search did)."""

        def __init__(self, count: int, content_status: str | None = None) -> None:
            super().__init__()
            self.count = count
            self.content_status = content_status

    def __init__(
        self,
        store: SessionStore,
        state: PickerState,
        *,
        cache_dir: Path | None = None,
        clock: Callable[[], datetime] | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.state = state  # the screen's: its watcher hands each new one down
        self._store = store
        self._clock = clock
        self._ranker = RowRanker()
        self._content = ContentSearch(store, cache_dir)
        self._content_hits: dict[str, SearchHit] = {}
        self._ranked_for: tuple[ScopeKey, str] | None = None
        self._last_ranking: Ranking | None = None  # of the titles shown
        self._open_when_ranked = False

    def compose(self) -> ComposeResult:
        yield SessionList(id="sessions")
        yield PreviewPane(self._store, clock=self._clock, id="preview")

    @property
    def session_list(self) -> SessionList:
        return self.query_one(SessionList)

    # --- what the screen asks for --------------------------------------------------------

    def show_scope(self, *, keep_cursor: bool) -> None:
        """Show the current scope: in recency order (`keep_cursor`: on the same session),
        or ranked for the query, with no unranked rows until the ranking arrives."""
        state = self.state
        scope = state.scope
        rows = scope.rows if scope is not None else ()
        session_list = self.session_list
        if state.query:
            if self._ranked_for is None or self._ranked_for[0] != state.scope_key:
                self._set_rows(rows, [])
            self._start_ranking()
        else:
            cursor = 0
            current = session_list.highlighted_row
            if keep_cursor and current is not None:
                cursor = next(
                    (i for i, row in enumerate(rows) if row.session_id == current.session_id),
                    session_list.cursor,
                )
            self._set_rows(rows, cursor=cursor)
        session_list.set_empty_message(state.list_empty_message())

    def show_query(self) -> None:
        """The query changed: rank the scope for it; none: back to recency order."""
        state = self.state
        if state.query:
            self._start_ranking()
            return
        self._ranked_for = None
        self._last_ranking = None
        scope = state.scope
        # Go: backspacing to an empty query restores recency order, selection stays 0.
        self._set_rows(scope.rows if scope is not None else (), cursor=0)
        self.session_list.set_empty_message(state.list_empty_message())

    def start_over(self, *, forget_hits: bool = False) -> None:
        """The scope or the search mode changed: show the scope as if for the first time;
        `forget_hits`: the last content search's hits go too."""
        self._ranked_for = None
        if forget_hits:
            self._content_hits = {}
        self.show_scope(keep_cursor=False)

    def rank_again(self) -> None:
        """The text index is complete: the complete results."""
        self._ranked_for = None
        self._start_ranking()

    def forget_ranking(self) -> None:
        """A new scan: its rows are ranked afresh."""
        self._ranker.forget()
        self._ranked_for = None

    def forget_preview(self) -> None:
        self.query_one(PreviewPane).forget()

    def open_highlighted(self) -> None:
        """Open the highlighted session; with a query not ranked yet (Enter typed right
        behind it), once the list is ranked for it."""
        state = self.state
        if state.query and self._ranked_for != (state.scope_key, state.query):
            self._open_when_ranked = True
            return
        row = self.session_list.highlighted_row
        if row is not None:
            self._open(row)

    # --- ranking -------------------------------------------------------------------------

    def _set_rows(
        self,
        rows: Sequence[PickerRow],
        order: Sequence[int] | None = None,
        highlight: HighlightLookup | None = None,
        *,
        cursor: int = 0,
        snippets: Callable[[int], SnippetLine | None] | None = None,
        content_status: str | None = None,
    ) -> None:
        session_list = self.session_list
        session_list.set_rows(
            rows,
            order,
            highlight,
            show_workspace=self.state.all_workspaces,
            cursor=cursor,
            snippets=snippets,
        )
        self.post_message(self.Shown(session_list.row_count, content_status))

    def _start_ranking(self) -> None:
        state = self.state
        scope = state.scope
        if scope is None:
            return
        if state.content_mode:
            self._content_search(
                state.scope_key, state.query, state.content_text, scope.rows, state.scan
            )
            return
        self._rank(state.scope_key, state.query, scope.rows)

    @work(thread=True, exclusive=True, group="rank", exit_on_error=False)
    def _rank(self, key: ScopeKey, query: str, rows: Sequence[PickerRow]) -> None:
        ranking = self._ranker.rank(key, rows, query, with_workspace=key[0])
        if not get_current_worker().is_cancelled:
            self.post_message(RankingDone(key, query, rows, ranking.indices, ranking))

    def on_ranking_done(self, message: RankingDone) -> None:
        state = self.state
        if message.key != state.scope_key or message.query != state.query:
            return
        if state.scope is None:
            return
        self._ranked_for = (message.key, message.query)
        ranking = self._last_ranking = message.ranking

        def highlight(line: int) -> tuple[int, ...]:
            return ranking[line].positions

        self._show_ranked(message.rows, message.order, highlight=highlight)

    @work(thread=True, exclusive=True, group="content", exit_on_error=False)
    def _content_search(
        self, key: ScopeKey, query: str, text: str, rows: Sequence[PickerRow], scan: int
    ) -> None:
        """Search the scope's sessions for `text` once typing pauses (debounced: the next
        keystroke cancels this worker while it waits)."""
        worker = get_current_worker()
        time.sleep(CONTENT_DEBOUNCE)
        if worker.is_cancelled:
            return
        outcome = self._content.search(text, rows, scan=scan, cancelled=lambda: worker.is_cancelled)
        if not worker.is_cancelled:
            self.post_message(ContentResults(key, query, rows, outcome))

    def on_content_results(self, message: ContentResults) -> None:
        state = self.state
        if not state.content_mode or message.key != state.scope_key:
            return
        if message.query != state.query or state.scope is None:
            return
        outcome = message.outcome
        self._ranked_for = (message.key, message.query)
        self._content_hits = {hit.session.session_id: hit for hit in outcome.hits}
        lines = [snippet_line(hit) for hit in outcome.hits]
        self._show_ranked(
            message.rows, outcome.order, snippets=lines.__getitem__, content_status=outcome.status
        )

    def _show_ranked(
        self,
        rows: Sequence[PickerRow],
        order: Sequence[int],
        *,
        highlight: HighlightLookup | None = None,
        snippets: Callable[[int], SnippetLine | None] | None = None,
        content_status: str | None = None,
    ) -> None:
        self._set_rows(rows, order, highlight, snippets=snippets, content_status=content_status)
        self.session_list.set_empty_message(self.state.list_empty_message())
        if self._open_when_ranked:
            self._open_when_ranked = False
            self.open_highlighted()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.group == "rank":
            self.notify(f"search failed: {event.worker.error}", severity="error")

    # --- opening -------------------------------------------------------------------------

    @on(SessionList.Highlighted)
    def _highlighted(self, event: SessionList.Highlighted) -> None:
        self.query_one(PreviewPane).follow(event.row)

    @on(SessionList.Selected)
    def _selected(self, event: SessionList.Selected) -> None:
        self._open(event.row)

    def _open(self, row: PickerRow) -> None:
        """Ask the app to open `row`'s session, at its content hit when it has one. Posted
        to the app: made while the screen calls in, the message would stop bubbling at the
        screen (Textual stops a message where it was made)."""
        state = self.state
        hit = self._content_hits.get(row.session_id) if state.content_mode else None
        if hit is None or hit.open_sequence is None:
            self.app.post_message(OpenSession(row.session_id))
            return
        mark = highlight_term(state.content_text)
        self.app.post_message(
            OpenSession(row.session_id, sequence=hit.open_sequence, highlight=mark)
        )
