"""The picker's body: the current scope's rows, ranked for the query, beside the preview of
the highlighted one.

The screen hands the body the picker's state (`state`: attributes down) and says when to
show the scope again. The body ranks the rows in thread workers (by title, or by what was
said with ctrl+t), shows the result and posts `Shown` for the status line. Enter or a
click opens the highlighted session, at its content hit when there is one. `PreviewPane`
loads the highlighted session's preview in a worker of its own.
"""

from __future__ import annotations

from asyncio import sleep
from collections.abc import Callable, Collection, Mapping, Sequence
from datetime import datetime
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.cache import LRUCache
from textual.containers import Horizontal
from textual.message import Message
from textual.worker import Worker, WorkerState, get_current_worker

from zero_tui.agent.running import Running
from zero_tui.picker.content_search import StoresContentSearch
from zero_tui.picker.hint_keys import DEFAULT_HINT_KEYS
from zero_tui.picker.loader import load_preview
from zero_tui.picker.pinned_rows import PinnedRows, split_flag_words
from zero_tui.picker.preview_data import PreviewData
from zero_tui.picker.ranking import Ranking
from zero_tui.picker.scopes import RowRanker, ScopeKey
from zero_tui.picker.session_rows import PickerRow
from zero_tui.picker.shown_rows import HighlightLookup, NoteLookup, SnippetLine
from zero_tui.picker.state import PickerState
from zero_tui.search.query import SearchHit, highlight_term
from zero_tui.store import Metadata, SessionStore
from zero_tui.store.session_flags import EMPTY_BOOK, FlagBook, SessionFlags, parent_tags
from zero_tui.store.token_counts import Tokens
from zero_tui.text.sanitize import sanitize_line
from zero_tui.ui.messages import ContentResults, OpenSession, PreviewLoaded, RankingDone
from zero_tui.ui.widgets.preview import SessionPreview
from zero_tui.ui.widgets.session_list import SessionList

CONTENT_DEBOUNCE = 0.15  # seconds of typing pause before a content search starts
PREVIEW_PAUSE = 0.05  # seconds the highlight rests before its preview is read (key repeat: less)
INLINE_RANK_ROWS = 2_000
"""A scope of at most this many rows is ranked for the query on the event loop (under a
millisecond: less than a thread worker's start and its messages); a bigger one in a
thread worker."""


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
    """The preview of the highlighted row, loaded in a worker once the highlight rests (a
    burst of ↓ reads the row it stops on): while one loads, the highlight may move on; the
    latest row is loaded next, those in between never. A
    preview that finds the session other than its row says so (`Differs`): the picker
    then reads that session again, so that the row and the preview agree."""

    class Differs(Message):
        """The files say something else of `session_id` than its row (an older row)."""

        def __init__(self, session_id: str, host: str | None = None) -> None:
            super().__init__()
            self.session_id = session_id
            self.host = host  # the session is in this host's mirror

    def __init__(
        self,
        store: SessionStore,
        *,
        clock: Callable[[], datetime] | None = None,
        host_stores: Mapping[str, SessionStore] | None = None,
        archive_key: str = DEFAULT_HINT_KEYS.archived,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.archive_key = archive_key
        self._store = store
        self._host_stores = host_stores or {}  # each host's mirror, for its rows
        self._clock = clock
        self._loading = False  # a read, or the pause before one, is under way
        self._wishes = 0  # rows highlighted whose preview was not at hand: counted, not read
        self._wanted: PickerRow | None = None
        self._shown: str | None = None
        self._reported: PreviewData | None = None  # the last preview said to differ
        self._previews: LRUCache[str, PreviewData] = LRUCache(64)  # read, unchanged since
        self._loading_key = ""  # the row whose preview is read now
        self.running: Mapping[str, Running] = {}
        self.usage: Mapping[str, Tokens] = {}
        self.flags: FlagBook = EMPTY_BOOK

    def follow(self, row: PickerRow | None) -> None:
        """Show the preview of `row` (None: nothing)."""
        self._wanted = row
        if row is None:
            self._shown = None
            self.show_message("")
            return
        if row.key == self._shown or self._show_known(row):
            return
        self._wishes += 1
        if self._loading:
            return  # a running load or pause hands over to the latest wish when it is done
        self._loading = True
        self._read_at_rest()

    def forget(self, session_ids: Collection[str] | None = None) -> None:
        """These sessions changed on disk (None: which ones is not known): their previews
        are read again when highlighted next."""
        if session_ids is None or self._loading_key in session_ids:
            self._loading_key = ""
        if session_ids is None:
            self._previews.clear()
            self._shown = None
            return
        for session_id in session_ids:
            self._previews.discard(session_id)
        if self._shown in session_ids:
            self._shown = None

    def show_usage_of(self, usage: Mapping[str, Tokens]) -> None:
        """Each session's tokens: the preview says the shown one's."""
        self.usage = usage
        if self._shown is not None:
            self.show_tokens(usage.get(self._shown))

    def show_flags_of(self, book: FlagBook) -> None:
        """The pins and tags: the preview says the shown session's, and its parent's tags."""
        self.flags = book
        if self._shown is not None:
            self.show_flags(*self._flags_of(self._shown))

    def _flags_of(self, session_id: str) -> tuple[SessionFlags, str]:
        wanted = self._wanted
        parent = wanted.parent_id if wanted is not None and wanted.session_id == session_id else ""
        return self.flags.of(session_id), parent_tags(self.flags, parent)

    def show_running_of(self, running: Mapping[str, Running]) -> None:
        """The sessions running now: the preview says whether the shown one is."""
        self.running = running
        if self._shown is not None:
            self.show_running(running.get(self._shown))

    @work(exclusive=True, group="preview-pause", exit_on_error=False)
    async def _read_at_rest(self) -> None:
        """Read the highlighted row's preview once the highlight rests for PREVIEW_PAUSE:
        key repeat moves it on faster, and only the row it stops on is read and drawn."""
        while True:
            wishes = self._wishes
            await sleep(PREVIEW_PAUSE)
            if wishes == self._wishes:
                break
        self._start()

    def _start(self) -> None:
        row = self._wanted
        if row is None:
            self._loading = False
            return
        if self._show_known(row):
            self._loading = False
            return
        self._loading = True
        self._shown = self._loading_key = row.key
        store = self._store if row.host is None else self._host_stores[row.host]
        self._load(store, row.session_id)

    def _show_known(self, row: PickerRow) -> bool:
        """Show `row`'s preview if it was read before (and its session unchanged since):
        no IO again. Whether it was."""
        known = self._previews.get(row.key)
        if known is None:
            return False
        self._shown = row.key
        self._show(known, row)
        return True

    @work(thread=True, exclusive=True, group="preview", exit_on_error=False)
    def _load(self, store: SessionStore, session_id: str) -> None:
        preview = load_preview(store, session_id, self._clock)
        if not get_current_worker().is_cancelled:
            self.post_message(PreviewLoaded(session_id, preview))

    def on_preview_loaded(self, message: PreviewLoaded) -> None:
        self._loading = False
        if self._loading_key:  # not changed on disk while it was read
            self._previews[self._loading_key] = message.preview
        wanted = self._wanted
        if wanted is None:
            return
        if wanted.session_id != message.session_id:
            # The highlight moved on while this one loaded: the latest only, once it rests.
            self._loading = True
            self._read_at_rest()
            return
        self._show(message.preview, wanted)

    def _show(self, preview: PreviewData, wanted: PickerRow) -> None:
        """Show `preview`, the highlighted row's (`wanted`), and say when it differs."""
        self.show(
            preview,
            self.running.get(preview.session_id),
            self.usage.get(preview.session_id),
            self._flags_of(preview.session_id),
        )
        differs = (preview.title, preview.event_count) != (wanted.title, wanted.event_count)
        if differs and preview != self._reported:
            self._reported = preview
            self.post_message(self.Differs(preview.session_id, wanted.host))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.group.startswith("preview"):
            self._loading = False
            self.show_message(f"preview failed: {event.worker.error}")


class PickerBody(Horizontal):
    """The list of the current scope's rows and the preview of the highlighted one."""

    class Shown(Message):
        """The list shows `count` rows now; `content_status`: what a content search said of
        them (None: no content search did)."""

        def __init__(
            self, count: int, content_status: str | None = None, archived_hidden: int = 0
        ) -> None:
            super().__init__()
            self.count = count
            self.content_status = content_status
            self.archived_hidden = archived_hidden

    def __init__(
        self,
        store: SessionStore,
        state: PickerState,
        *,
        cache_dir: Path | None = None,
        clock: Callable[[], datetime] | None = None,
        host_stores: Mapping[str, SessionStore] | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.state = state  # the screen's: its watcher hands each new one down
        self._store = store
        self._host_stores = host_stores or {}
        self._clock = clock
        self._ranker = RowRanker()
        self._pinned = PinnedRows()
        self._archived_hidden = 0  # of the rows last listed
        self._content = StoresContentSearch(store, cache_dir, host_stores)
        self._content_hits: dict[str, SearchHit] = {}
        self._ranked_for: tuple[ScopeKey, str] | None = None
        self._ranked_rows: Sequence[PickerRow] | None = None  # the rows it ranked
        self._last_ranking: Ranking | None = None  # of the titles shown
        self._rank_due = False  # a ranking on the event loop is asked for
        self._prepared_for: tuple[int, ScopeKey] | None = None  # the scan and scope indexed
        self._content_due = False  # a content search waits for typing to rest
        self._content_wishes = 0  # content queries typed, counted while it waits
        # Enter pressed before the list was settled: open once it is, for this scope and query
        self._open_pending: tuple[ScopeKey, str] | None = None

    def compose(self) -> ComposeResult:
        yield SessionList(id="sessions")
        yield PreviewPane(
            self._store,
            clock=self._clock,
            host_stores=self._host_stores,
            archive_key=self.state.keys.archived,
            id="preview",
        )

    @property
    def session_list(self) -> SessionList:
        return self.query_one(SessionList)

    def _listed(self) -> Sequence[PickerRow]:
        """The current scope's rows as the list has them: the pinned first, the archived
        left out unless shown, the query's flag words applied (the same object while
        nothing of that changes: what is cached by it stays cached)."""
        state = self.state
        scope = state.scope
        rows: Sequence[PickerRow] = scope.rows if scope is not None else ()
        words = split_flag_words(state.query)[1]
        listed, self._archived_hidden = self._pinned.rows(
            rows, state.flags, show_archived=state.show_archived, words=words
        )
        return listed

    def show_flags(self) -> None:
        """The pins, tags or the archive changed (`state.flags`): draw and list them."""
        flags = self.state.flags
        self.session_list.set_flags(flags)
        self.query_one(PreviewPane).show_flags_of(flags)
        self._content.flags = flags
        self._ranked_for = None
        self.show_scope(keep_cursor=True)

    def show_marked(self, marked: frozenset[str]) -> None:
        self.session_list.set_marked(marked)

    # --- what the screen asks for --------------------------------------------------------

    def show_scope(self, *, keep_cursor: bool) -> None:
        """Show the current scope: in recency order, or ranked for the query, with no
        unranked rows until the ranking arrives. `keep_cursor`: the highlight stays on its
        session if the user moved it there, else it goes to the first row (the newest)."""
        state = self.state
        rows = self._listed()
        session_list = self.session_list
        if not keep_cursor:
            session_list.shown.user_moved = False
        if state.query:
            if self._ranked_for is None or self._ranked_for[0] != state.scope_key:
                self._set_rows(rows, [])
            self._start_ranking()
        else:
            self._set_rows(rows, cursor=self._cursor_in(rows, range(len(rows))))
            # After the rows are painted: the build would compete with the paint for the GIL.
            self.call_after_refresh(self._prepare_ranking)
        session_list.set_empty_message(state.list_empty_message())

    def _cursor_in(self, rows: Sequence[PickerRow], order: Sequence[int]) -> int:
        current = self.session_list.highlighted_row
        if current is None:
            return 0
        return self.session_list.cursor_on(current.session_id, order, rows)

    def show_query(self) -> None:
        """The query changed: rank the scope for it; none: back to recency order. Either
        way the highlight starts on the first row."""
        state = self.state
        self.session_list.shown.user_moved = False
        if state.query:
            self._start_ranking()
            return
        self._ranked_for = None
        self._last_ranking = None
        # Go: backspacing to an empty query restores recency order, selection stays 0.
        self._set_rows(self._listed(), cursor=0)
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

    def rank_as_indexed(self) -> None:
        """The text index grew while it is built: the results so far, unless a content
        search is under way (typing goes first; the next progress asks again)."""
        searching = any(
            worker.node is self
            and worker.group in ("content", "content-pause")
            and worker.state in (WorkerState.PENDING, WorkerState.RUNNING)
            for worker in self.workers
        )
        if not searching:
            self.rank_again()

    def forget_ranking(self) -> None:
        """A new scan: its rows are ranked afresh."""
        self._ranker.forget()
        self._ranked_for = None
        self.query_one(PreviewPane).forget()

    def forget_preview(self, session_ids: Collection[str] | None = None) -> None:
        """These sessions changed on disk (their keys; None: which ones is not known): their
        previews are read again."""
        self.query_one(PreviewPane).forget(session_ids)

    def show_usage(self, usage: Mapping[str, Tokens]) -> None:
        """Each session's tokens, in the list's column and the preview."""
        self.session_list.set_usage(usage)
        self.query_one(PreviewPane).show_usage_of(usage)

    def remove_session(self, session_id: str) -> None:
        """The user deleted `session_id`: show the scope without it, the highlight on the
        row that takes its line."""
        self.session_list.shown.removing(session_id)
        self.show_scope(keep_cursor=True)

    def show_running(self, running: Mapping[str, Running]) -> None:
        """Mark the sessions an agent is writing now, in the rows and the preview."""
        self.session_list.set_running(frozenset(running))
        self.query_one(PreviewPane).show_running_of(running)

    def open_highlighted(self) -> None:
        """Open the highlighted session once the list is settled: ranked for the query
        typed (Enter typed right behind it), and, before the user has moved, in the store's
        final order (the remembered first screen may be stale; the highlight then goes to
        the newest session). Enter before that opens what the list then highlights."""
        state = self.state
        if not self._settled():
            self._open_pending = (state.scope_key, state.query)
            return
        self._open_pending = None
        row = self.session_list.highlighted_row
        if row is not None:
            self._open(row)

    def _settled(self) -> bool:
        """Whether the list shows what Enter should act on now."""
        state = self.state
        scope = state.scope
        if scope is None:
            return False
        if state.query and (
            self._ranked_for != (state.scope_key, state.query)
            or self._ranked_rows is not self._listed()
        ):
            return False
        return scope.complete or self.session_list.shown.user_moved

    def _open_if_pending(self) -> None:
        """Enter was pressed before the list settled: open now if it has, for the scope
        and query it was pressed for (another query typed since drops it)."""
        pending = self._open_pending
        if pending is None:
            return
        state = self.state
        if pending != (state.scope_key, state.query):
            self._open_pending = None
        elif self._settled():
            self.open_highlighted()

    # --- ranking -------------------------------------------------------------------------

    def _set_rows(
        self,
        rows: Sequence[PickerRow],
        order: Sequence[int] | None = None,
        highlight: HighlightLookup | None = None,
        *,
        cursor: int = 0,
        snippets: Callable[[int], SnippetLine | None] | None = None,
        notes: NoteLookup | None = None,
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
            notes=notes,
        )
        self.post_message(self.Shown(session_list.row_count, content_status, self._archived_hidden))
        self._open_if_pending()

    def _start_ranking(self) -> None:
        state = self.state
        scope = state.scope
        if scope is None:
            return
        rows = self._listed()
        if state.content_mode:
            self.workers.cancel_group(self, "content")  # a search for an older query
            self._content_wishes += 1
            if not self._content_due:
                self._content_due = True
                self._search_at_rest()
            return
        if len(rows) > INLINE_RANK_ROWS:
            self._rank(state.scope_key, state.query, rows)
        elif not self._rank_due:
            self._rank_due = True  # once for the keys already queued: the last one wins
            self.call_later(self._rank_here)

    def _rank_here(self) -> None:
        """Rank a small scope for the query typed, on the event loop."""
        self._rank_due = False
        state = self.state
        if state.scope is None or not state.query or state.content_mode:
            return
        rows = self._listed()
        if len(rows) > INLINE_RANK_ROWS:
            self._start_ranking()
            return
        key, query = state.scope_key, state.query
        self._show_ranking(key, query, rows, self._ranking(key, query, rows, wait=False))

    def _ranking(
        self, key: ScopeKey, query: str, rows: Sequence[PickerRow], *, wait: bool = True
    ) -> Ranking:
        titles = split_flag_words(query)[0]  # the flag words were applied to the rows
        return self._ranker.rank(key, rows, titles, with_workspace=key[0], wait=wait)

    def _prepare_ranking(self) -> None:
        """A big scope read whole, no query yet: build its ranking index in a thread now,
        once per scan and scope, so that the first key finds it built (10,000 rows: a
        few hundred ms). Rows that change later are indexed again at the next key."""
        state = self.state
        scope = state.scope
        if scope is None or not scope.complete or state.query or state.content_mode:
            return
        prepared = (state.scan, state.scope_key)
        if prepared == self._prepared_for:
            return
        rows = self._listed()
        if len(rows) > INLINE_RANK_ROWS:
            self._prepared_for = prepared
            self._prepare(state.scope_key, rows)

    @work(thread=True, group="rank-prepare", exit_on_error=False, description="rank index")
    def _prepare(self, key: ScopeKey, rows: Sequence[PickerRow]) -> None:
        self._ranker.prepare(key, rows, with_workspace=key[0])

    # A description of its own: Textual's would be the repr of every row, at every key.
    @work(thread=True, exclusive=True, group="rank", exit_on_error=False, description="rank")
    def _rank(self, key: ScopeKey, query: str, rows: Sequence[PickerRow]) -> None:
        ranking = self._ranking(key, query, rows)
        if not get_current_worker().is_cancelled:
            self.post_message(RankingDone(key, query, rows, ranking.indices, ranking))

    def on_ranking_done(self, message: RankingDone) -> None:
        self._show_ranking(message.key, message.query, message.rows, message.ranking)

    def _show_ranking(
        self, key: ScopeKey, query: str, rows: Sequence[PickerRow], ranking: Ranking
    ) -> None:
        """Show the rows ranked for `query`, unless the scope or the query changed since."""
        state = self.state
        if key != state.scope_key or query != state.query or state.scope is None:
            return
        self._ranked_for = (key, query)
        self._ranked_rows = rows
        self._last_ranking = ranking

        def highlight(line: int) -> tuple[int, ...]:
            return ranking[line].positions

        def note(line: int) -> str:
            return ranking[line].reason

        self._show_ranked(rows, ranking.indices, highlight=highlight, notes=note)

    @work(exclusive=True, group="content-pause", exit_on_error=False)
    async def _search_at_rest(self) -> None:
        """Search the content once typing rests for CONTENT_DEBOUNCE: one wait per burst of
        keys (not a worker per key), for the query the last key made."""
        while True:
            wishes = self._content_wishes
            await sleep(CONTENT_DEBOUNCE)
            if wishes == self._content_wishes:
                break
        self._content_due = False
        state = self.state
        if state.scope is None or not state.content_mode or not state.query:
            return  # a query deleted meanwhile: the scope shows in recency order
        self._content_search(
            state.scope_key,
            state.query,
            state.content_text,
            self._listed(),
            state.scan,
            state.sessions,
        )

    @work(
        thread=True,
        exclusive=True,
        group="content",
        exit_on_error=False,
        description="content search",
    )
    def _content_search(
        self,
        key: ScopeKey,
        query: str,
        text: str,
        rows: Sequence[PickerRow],
        scan: int,
        sessions: Mapping[str, Metadata] | None,
    ) -> None:
        """Search the scope's sessions for `text` (the next keystroke cancels it)."""
        worker = get_current_worker()
        outcome = self._content.search(
            text, rows, scan=scan, sessions=sessions, cancelled=lambda: worker.is_cancelled
        )
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
        self._ranked_rows = message.rows
        rows = message.rows
        self._content_hits = {
            rows[index].key: hit for index, hit in zip(outcome.order, outcome.hits, strict=True)
        }
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
        notes: NoteLookup | None = None,
        content_status: str | None = None,
    ) -> None:
        cursor = self._cursor_in(rows, order)
        self.session_list.set_empty_message(self.state.list_empty_message())
        self._set_rows(
            rows,
            order,
            highlight,
            cursor=cursor,
            snippets=snippets,
            notes=notes,
            content_status=content_status,
        )

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.group == "rank":
            self.notify(f"search failed: {event.worker.error}", severity="error")

    # --- opening -------------------------------------------------------------------------

    @on(SessionList.Highlighted)
    def _highlighted(self, event: SessionList.Highlighted) -> None:
        if event.by_user:
            self._open_pending = None  # Enter pressed before: the user chooses again
        self.query_one(PreviewPane).follow(event.row)

    @on(SessionList.Selected)
    def _selected(self, event: SessionList.Selected) -> None:
        self._open(event.row)

    def _open(self, row: PickerRow) -> None:
        """Ask the app to open `row`'s session, at its content hit when it has one. Posted
        to the app: made while the screen calls in, the message would stop bubbling at the
        screen (Textual stops a message where it was made)."""
        state = self.state
        hit = self._content_hits.get(row.key) if state.content_mode else None
        if hit is None or hit.open_sequence is None:
            self.app.post_message(OpenSession(row.session_id, host=row.host))
            return
        mark = highlight_term(state.content_text)
        self.app.post_message(
            OpenSession(row.session_id, host=row.host, sequence=hit.open_sequence, highlight=mark)
        )
