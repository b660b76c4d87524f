"""The resume picker: the sessions of this workspace, fuzzy-filtered as you type.

All store IO runs in thread workers that post messages (`zero_tui.ui.messages`); the handlers
here own every widget change. The scan serves the current scope first, in chunks, so the first
rows appear before a big store is fully read; the other scopes follow in the same worker.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Input, Static
from textual.worker import Worker, WorkerState, get_current_worker

from zero_tui.agent.settings import RunSettings
from zero_tui.commands import REGISTRY, CommandError, Context
from zero_tui.paths import default_cache_dir
from zero_tui.picker.head_cache import ScopeHead, head_path, load_head, save_head
from zero_tui.picker.preview_data import build_preview, missing_preview
from zero_tui.picker.ranking import Ranking
from zero_tui.picker.scopes import (
    ALL_SCOPES,
    HiddenCounts,
    RowRanker,
    ScopeKey,
    ScopeScan,
    empty_list_message,
    first_screen,
    hits_in_rows,
)
from zero_tui.picker.session_rows import (
    PickerRow,
    picker_rows,
    rescan_summary,
    scanning_text,
    status_text,
)
from zero_tui.search.catalog import SessionCatalog
from zero_tui.search.query import QueryError, SearchHit, highlight_term, parse_query, search
from zero_tui.store import Metadata, SessionStore, StoreError
from zero_tui.store.resumable import enclosing_workspaces
from zero_tui.store.store import UnreadableSession
from zero_tui.text.sanitize import sanitize_line
from zero_tui.ui.messages import (
    ContentResults,
    EnclosingFolders,
    IndexProgress,
    OpenSession,
    PreviewLoaded,
    RankingDone,
    RememberedRowsLoaded,
    ResumeRequest,
    ScanFailed,
    ScanProgress,
    ScopeLoaded,
    UnreadableFound,
)
from zero_tui.ui.screens.command_screen import CommandScreen, screen_bindings
from zero_tui.ui.screens.dialogs import UnreadableScreen
from zero_tui.ui.widgets.composer import Composer, EditorMove, EditorRun, SlashComplete
from zero_tui.ui.widgets.preview import SessionPreview
from zero_tui.ui.widgets.session_list import SessionList, SnippetLine

FIRST_CHUNK = 64  # sessions filtered before the first rows are posted
FIRST_SCREEN_ROWS = 60  # rows a cold start shows before every metadata file is read
FIRST_SCREEN_READS = 2048  # metadata files it reads for them at the most
CHUNK = 2048
CONTENT_DEBOUNCE = 0.15  # seconds of typing pause before a content search starts
CONTENT_LIMIT = 200


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


@dataclass
class ScopeRows:
    """One scope of the picker, as far as the scan has got."""

    rows: list[PickerRow]
    hidden: HiddenCounts = field(default_factory=HiddenCounts)
    complete: bool = False


class PickerScreen(CommandScreen):
    """Pick a session to resume. The query Input keeps the focus; keys move the list."""

    COMMAND_CONTEXT: ClassVar[Context] = Context.PICKER

    AUTO_FOCUS = "#query"

    BINDINGS: ClassVar[list[BindingType]] = screen_bindings(Context.PICKER)

    def __init__(
        self,
        store: SessionStore,
        *,
        workspace: str,
        all_workspaces: bool = False,
        clock: Callable[[], datetime] | None = None,
        cache_dir: Path | None = None,
        settings: RunSettings | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self.settings = settings or RunSettings()
        self._cache_dir = cache_dir
        self.store = store
        self.workspace = workspace
        self.all_workspaces = all_workspaces
        self.include_empty = False
        self._clock = clock
        self._scopes: dict[ScopeKey, ScopeRows] = {}
        self._scan_ids = itertools.count(1)
        self._scan_id = 0
        self._store_total: int | None = None
        self._rescan: tuple[int, ScopeKey, list[str]] | None = None  # ctrl+r, until done
        self._enclosing: list[tuple[str, int]] = []  # folders above with sessions
        self._scan_error: str | None = None
        self._unreadable: tuple[UnreadableSession, ...] = ()
        self._query = ""
        self._ranked_for: tuple[ScopeKey, str] | None = None
        self._ranker = RowRanker()
        self._last_ranking: Ranking | None = None
        self._open_when_ranked = False
        self.content_mode = False  # ctrl+t: search what was said instead of titles
        self._content_text = ""  # the query as typed (content queries keep their case)
        self._content_hits: dict[str, SearchHit] = {}
        self._content_status = ""
        self._index_progress: tuple[int, int] | None = None  # while the index is built
        self._scan_progress: tuple[int, int] | None = None  # while a cold scan reads
        self._index_ready = False
        self._metadata_for: tuple[int, dict[str, Metadata]] | None = None
        self._search_catalog: SessionCatalog | None = None
        self._preview_running = False
        self._preview_wanted: PickerRow | None = None
        self._preview_shown: str | None = None

    # --- layout --------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Static("Resume a session", id="picker-title", markup=False)
            yield Composer(
                Context.PICKER, placeholder="type to filter… · / for commands", id="query"
            )
            yield SlashComplete(id="picker-complete")
            with Horizontal(id="picker-body"):
                yield SessionList(id="sessions")
                yield SessionPreview(id="preview")
            yield Static("", id="empty-state", markup=False)
            yield Static("", id="status", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self._show_mode()
        self.query_one("#empty-state").display = False
        self.query_one(SessionPreview).show_message("")
        self.composer.attach(self.query_one(SlashComplete))
        self.start_scan()

    @property
    def composer(self) -> Composer:
        return self.query_one("#query", Composer)

    @property
    def session_list(self) -> SessionList:
        return self.query_one(SessionList)

    @property
    def scope_key(self) -> ScopeKey:
        return (self.all_workspaces, self.include_empty)

    def _now(self) -> tuple[datetime, tzinfo | None]:
        if self._clock is None:
            return datetime.now().astimezone(), None
        now = self._clock()
        return now, now.tzinfo

    # --- scanning ------------------------------------------------------------------------

    def start_scan(self) -> None:
        self._scan_id = next(self._scan_ids)
        self._scan_progress = None
        self._scopes.clear()
        self._ranker.forget()
        self._ranked_for = None
        self._refresh_status()
        self.workers.cancel_group(self, "scan")
        self._scan(self._scan_id, self.scope_key)

    @work(thread=True, exclusive=True, group="scan-head", exit_on_error=False)
    def _scan(self, scan_id: int, first: ScopeKey) -> None:
        """The rows remembered from the last run (no store IO): shown before the catalog."""
        cache_dir = self._cache_dir or default_cache_dir()
        remembered = head_path(cache_dir, self.store.root, self.workspace)
        now, tz = self._now()
        head = load_head(remembered, self.store.root, self.workspace).get(first)
        if head is not None and not head.sessions:
            head = None
        rows = picker_rows(head.sessions, now, tz) if head is not None else []
        if not get_current_worker().is_cancelled:
            self.post_message(RememberedRowsLoaded(scan_id, first, head, rows))

    def on_remembered_rows_loaded(self, message: RememberedRowsLoaded) -> None:
        if message.scan_id != self._scan_id:
            return
        head = message.head
        if head is None:
            self._scan_store(message.scan_id, message.key, shown=False)
            return
        self.on_scope_loaded(
            ScopeLoaded(
                scan_id=message.scan_id,
                key=message.key,
                rows=message.rows,
                other_workspace=head.other_workspace,
                empty_runs=head.empty_runs,
                not_resumable=head.not_resumable,
                store_total=head.store_total,
                complete=False,
                replace=True,
            )
        )
        # After these rows are painted: the catalog's work would compete with the paint.
        self.call_after_refresh(self._scan_store, message.scan_id, message.key, shown=True)

    @work(thread=True, exclusive=True, group="scan", exit_on_error=False)
    def _scan_store(self, scan_id: int, first: ScopeKey, *, shown: bool) -> None:
        """The catalog's rows, then the store's truth, every scope (the current one first)."""
        worker = get_current_worker()
        cache_dir = self._cache_dir or default_cache_dir()
        remembered = head_path(cache_dir, self.store.root, self.workspace)
        now, tz = self._now()
        catalog = SessionCatalog(self.store, self._cache_dir)
        cached = catalog.cached_sessions()
        if cached and not worker.is_cancelled:
            self._post_scope(
                scan_id, first, cached, catalog.has_content, now, tz, final=False, whole=shown
            )
            shown = True
        elif not shown:
            shown = self._post_first_screen(scan_id, first, catalog.has_content, now, tz)

        def progress(done: int, total: int) -> None:
            self.post_message(ScanProgress(scan_id, done, total))

        try:
            sessions = catalog.refresh(progress=None if cached else progress)
        except (StoreError, OSError) as error:
            self.post_message(ScanFailed(scan_id, str(error)))
            return
        self.post_message(UnreadableFound(scan_id, tuple(catalog.unreadable)))
        folders = enclosing_workspaces(sessions, self.workspace, catalog.has_content)
        self.post_message(EnclosingFolders(scan_id, folders))
        heads: dict[ScopeKey, ScopeHead] = {}
        for key in (first, *(key for key in ALL_SCOPES if key != first)):
            if worker.is_cancelled:
                return
            # Once rows are shown, one message per scope: no shrinking list while it refills.
            heads[key] = self._post_scope(
                scan_id, key, sessions, catalog.has_content, now, tz, final=True, whole=shown
            )
        catalog.close()
        save_head(remembered, self.store.root, self.workspace, heads)

    def _post_first_screen(
        self,
        scan_id: int,
        key: ScopeKey,
        content_check: Callable[[str], bool],
        now: datetime,
        tz: tzinfo | None,
    ) -> bool:
        """Nothing remembered (a cold start): the newest sessions by their files' times,
        shown while every metadata file is read. Whether any were posted."""
        worker = get_current_worker()
        first = first_screen(
            self.store,
            self.workspace,
            key,
            content_check,
            rows=FIRST_SCREEN_ROWS,
            reads=FIRST_SCREEN_READS,
            batch=FIRST_CHUNK,
            cancelled=lambda: worker.is_cancelled,
        )
        if first is None:
            return False
        self.post_message(
            ScopeLoaded(
                scan_id=scan_id,
                key=key,
                rows=picker_rows(first.sessions, now, tz),
                other_workspace=first.hidden.other_workspace,
                empty_runs=first.hidden.empty_runs,
                not_resumable=first.hidden.not_resumable,
                store_total=first.read,
                complete=False,
                replace=True,
            )
        )
        return True

    def _post_scope(
        self,
        scan_id: int,
        key: ScopeKey,
        sessions: list[Metadata],
        content_check: Callable[[str], bool],
        now: datetime,
        tz: tzinfo | None,
        *,
        final: bool,
        whole: bool = False,
    ) -> ScopeHead:
        """Filter `sessions` into one scope and post it, the newest chunk first."""
        worker = get_current_worker()
        scan = ScopeScan(self.store, self.workspace, key, sessions, content_check)
        first = len(sessions) if whole else FIRST_CHUNK
        for chunk in scan.chunks(first, CHUNK, cancelled=lambda: worker.is_cancelled):
            self.post_message(
                ScopeLoaded(
                    scan_id=scan_id,
                    key=key,
                    rows=picker_rows(chunk.sessions, now, tz),
                    other_workspace=chunk.hidden.other_workspace,
                    empty_runs=chunk.hidden.empty_runs,
                    not_resumable=chunk.hidden.not_resumable,
                    store_total=len(sessions),
                    complete=final and chunk.last,
                    replace=chunk.first,
                )
            )
        return scan.head()

    def on_scope_loaded(self, message: ScopeLoaded) -> None:
        if message.scan_id != self._scan_id:
            return
        if self._store_total != message.store_total:
            self._store_total = message.store_total
            self.refresh_bindings()
        self._scan_error = None
        scope = self._scopes.get(message.key)
        if scope is None:
            scope = self._scopes[message.key] = ScopeRows(rows=[])
        # A new list each time: rank workers hold on to the one they were given.
        scope.rows = list(message.rows) if message.replace else [*scope.rows, *message.rows]
        scope.hidden = HiddenCounts(
            message.other_workspace, message.empty_runs, message.not_resumable
        )
        scope.complete = message.complete
        if message.complete:
            self._scan_progress = None
        if message.key == self.scope_key and (message.rows or message.complete):
            self._show_scope(keep_cursor=True)
        self._refresh_status()
        if message.complete and self._rescan is not None:
            scan_id, key, before = self._rescan
            if (scan_id, key) == (message.scan_id, message.key):
                self._rescan = None
                after = [row.session_id for row in scope.rows]
                summary = rescan_summary(before, after, message.store_total)
                self.notify(summary, title="Rescan", markup=False)

    def on_scan_progress(self, message: ScanProgress) -> None:
        if message.scan_id != self._scan_id:
            return
        done = message.done < message.total
        self._scan_progress = (message.done, message.total) if done else None
        self._refresh_status()

    def on_unreadable_found(self, message: UnreadableFound) -> None:
        if message.scan_id != self._scan_id:
            return
        self._unreadable = message.sessions
        self.refresh_bindings()
        self._refresh_status()

    def on_enclosing_folders(self, message: EnclosingFolders) -> None:
        if message.scan_id == self._scan_id:
            self._enclosing = message.folders
            self.refresh_bindings()
            self._refresh_status()

    def action_go_up(self) -> None:
        """alt+up: list the sessions of the nearest enclosing folder that has some."""
        if not self._enclosing:
            return
        self.workspace = self._enclosing[0][0]
        self._enclosing = []
        self.query_one("#picker-title", Static).update(f"Resume a session · {self.workspace}")
        self.start_scan()

    def on_scan_failed(self, message: ScanFailed) -> None:
        if message.scan_id != self._scan_id:
            return
        self._scan_error = message.error
        self._store_total = 0
        self.refresh_bindings()
        self._show_scope(keep_cursor=False)
        self._refresh_status()

    # --- showing a scope -----------------------------------------------------------------

    def _show_scope(self, *, keep_cursor: bool) -> None:
        scope = self._scopes.get(self.scope_key)
        session_list = self.session_list
        rows = scope.rows if scope is not None else []
        empty_store = self._store_total == 0
        self.query_one("#empty-state").display = empty_store
        self.query_one("#picker-body").display = not empty_store
        if empty_store:
            self.query_one("#empty-state", Static).update(self._empty_state_text())
        if self._query:
            # Until the ranking of this scope arrives, show no unranked rows.
            if self._ranked_for is None or self._ranked_for[0] != self.scope_key:
                session_list.set_rows(rows, [], show_workspace=self.all_workspaces)
            self._start_ranking()
        else:
            cursor = 0
            current = session_list.highlighted_row
            if keep_cursor and current is not None:
                cursor = next(
                    (i for i, row in enumerate(rows) if row.session_id == current.session_id),
                    session_list.cursor,
                )
            session_list.set_rows(rows, show_workspace=self.all_workspaces, cursor=cursor)
        session_list.set_empty_message(self._list_empty_message(scope))

    def _list_empty_message(self, scope: ScopeRows | None) -> str:
        return empty_list_message(
            scope.hidden if scope is not None else None,
            scanned=scope is not None and (scope.complete or bool(scope.rows)),
            query=self._query,
            all_workspaces=self.all_workspaces,
            include_empty=self.include_empty,
        )

    def _empty_state_text(self) -> str:
        root = str(self.store.root)
        if self._scan_error is not None:
            return (
                "The session store could not be read.\n\n"
                f"  {self._scan_error}\n\n"
                f"Store: {root}\n"
                "Check the directory's permissions, or point zero-tui at another store "
                "with --store DIR."
            )
        return (
            "No Zero sessions yet.\n\n"
            f"Store: {root}\n\n"
            "Zero saves every conversation there: run `zero` in a project, chat, and the "
            "session shows up here.\n"
            "Other places: zero-tui --store DIR · a tour with sample sessions: zero-tui --demo\n\n"
            "ctrl+r scans again · ctrl+q quits"
        )

    def _refresh_status(self) -> None:
        status = self.query_one("#status", Static)
        scope = self._scopes.get(self.scope_key)
        if self._store_total == 0:
            status.update(f"0 sessions · store {self.store.root}")
            return
        if scope is None:
            status.update(scanning_text(self._scan_progress))
            return
        status.update(
            status_text(
                shown=self.session_list.row_count,
                total_in_scope=len(scope.rows),
                query=self._query,
                all_workspaces=self.all_workspaces,
                include_empty=self.include_empty,
                other_workspace=scope.hidden.other_workspace,
                empty_runs=scope.hidden.empty_runs,
                not_resumable=scope.hidden.not_resumable,
                unreadable=len(self._unreadable),
                loading=not scope.complete,
                scanned=self._scan_progress,
                enclosing=self._enclosing,
            )
            + self._content_status_text()
        )

    def _content_status_text(self) -> str:
        if not self.content_mode:
            return ""
        parts = ["content search"]
        if self._content_status:
            parts.append(self._content_status)
        if self._index_progress is not None:
            done, total = self._index_progress
            parts.append(f"indexing {done:,}/{total:,} · results may be incomplete")
        elif not self._index_ready:
            parts.append("indexing… · results may be incomplete")
        return " · " + " · ".join(parts)

    # --- ranking -------------------------------------------------------------------------

    @on(Input.Changed, "#query")
    def _query_changed(self, event: Input.Changed) -> None:
        if REGISTRY.starts_a_command(event.value):
            return  # a command, not a filter: the list stays as it is
        self._query = event.value.strip().lower()
        self._content_text = event.value.strip()
        if not self._query:
            self._ranked_for = None
            self._last_ranking = None
            scope = self._scopes.get(self.scope_key)
            rows = scope.rows if scope is not None else []
            # Go: backspacing to an empty query restores recency order, selection stays 0.
            self.session_list.set_rows(rows, show_workspace=self.all_workspaces, cursor=0)
            self.session_list.set_empty_message(self._list_empty_message(scope))
            self._refresh_status()
            return
        self._start_ranking()

    def _start_ranking(self) -> None:
        scope = self._scopes.get(self.scope_key)
        if scope is None:
            return
        if self.content_mode:
            self._content_search(self.scope_key, self._query, self._content_text, scope.rows)
            return
        self._rank(self.scope_key, self._query, scope.rows)

    # --- content search (ctrl+t) ----------------------------------------------------------

    def action_search_mode(self, mode: str) -> None:
        """ctrl+t: search what was said in the sessions, or their titles."""
        self.content_mode = mode == "content"
        self._ranked_for = None
        self._content_hits = {}
        self._content_status = ""
        self.refresh_bindings()
        self._show_mode()
        if self.content_mode:
            self._build_index()
        self._show_scope(keep_cursor=False)
        self._refresh_status()

    def _show_mode(self) -> None:
        mode = " · searching what was said (ctrl+t: titles)" if self.content_mode else ""
        self.query_one("#picker-title", Static).update(f"Resume a session · {self.workspace}{mode}")
        self.composer.placeholder = (
            'words, "a phrase", -word, title: model: id: after: before: · ctrl+t: titles'
            if self.content_mode
            else "type to filter titles… · ctrl+t: what was said · / for commands"
        )

    @work(thread=True, exclusive=True, group="index", exit_on_error=False)
    def _build_index(self) -> None:
        """Bring the text index up to date, newest sessions first (the picker keeps working
        meanwhile; queries say their results may be incomplete until it is done)."""
        worker = get_current_worker()
        with SessionCatalog(self.store, self._cache_dir) as catalog:
            sessions = catalog.refresh()

            def progress(done: int, total: int) -> None:
                self.post_message(IndexProgress(done, total))

            report = catalog.update_content(
                [meta.session_id for meta in sessions],
                progress=progress,
                cancelled=lambda: worker.is_cancelled,
            )
        if not worker.is_cancelled:
            self.post_message(IndexProgress(report.sessions, report.sessions, finished=True))

    def on_index_progress(self, message: IndexProgress) -> None:
        if message.finished:
            self._index_progress = None
            self._index_ready = True
            if self.content_mode and self._query:
                self._ranked_for = None
                self._start_ranking()  # the complete results
        else:
            self._index_progress = (message.done, message.total)
        self._refresh_status()

    def _scope_metadata(self, rows: Sequence[PickerRow], catalog: SessionCatalog) -> list[Metadata]:
        """The rows' metadata from the index (the scope, in the picker's order)."""
        cached = self._metadata_for
        if cached is None or cached[0] != self._scan_id or len(cached[1]) < len(rows):
            by_id = {meta.session_id: meta for meta in catalog.cached_sessions()}
            cached = self._metadata_for = (self._scan_id, by_id)
        by_id = cached[1]
        return [by_id[row.session_id] for row in rows if row.session_id in by_id]

    @work(thread=True, exclusive=True, group="content", exit_on_error=False)
    def _content_search(
        self, key: ScopeKey, query: str, text: str, rows: Sequence[PickerRow]
    ) -> None:
        """Search the scope's sessions for `text` once typing pauses (debounced: the next
        keystroke cancels this worker while it waits)."""
        worker = get_current_worker()
        time.sleep(CONTENT_DEBOUNCE)
        if worker.is_cancelled:
            return
        if self._search_catalog is None:
            self._search_catalog = SessionCatalog(self.store, self._cache_dir)
        catalog = self._search_catalog
        try:
            parsed = parse_query(text)
        except QueryError as error:
            self.post_message(ContentResults(key, query, rows, [], [], 0, str(error)))
            return
        sessions = self._scope_metadata(rows, catalog)
        result = search(
            catalog, parsed, sessions, limit=CONTENT_LIMIT, cancelled=lambda: worker.is_cancelled
        )
        if worker.is_cancelled:
            return
        hits, order = hits_in_rows(result.hits, rows)
        self.post_message(
            ContentResults(key, query, rows, order, hits, result.matched, None, result.notices)
        )

    def on_content_results(self, message: ContentResults) -> None:
        if not self.content_mode or message.key != self.scope_key or message.query != self._query:
            return
        scope = self._scopes.get(message.key)
        if scope is None:
            return
        self._ranked_for = (message.key, message.query)
        self._content_hits = {hit.session.session_id: hit for hit in message.hits}
        if message.error is not None:
            self._content_status = message.error
        elif message.matched > len(message.hits):
            self._content_status = f"best {len(message.hits)} of {message.matched:,}"
        else:
            self._content_status = " · ".join(message.notices)
        lines = [snippet_line(hit) for hit in message.hits]
        self.session_list.set_rows(
            message.rows,
            message.order,
            show_workspace=self.all_workspaces,
            snippets=lines.__getitem__,
        )
        self.session_list.set_empty_message(self._list_empty_message(scope))
        self._refresh_status()
        if self._open_when_ranked:
            self._open_when_ranked = False
            self.action_open()

    def _open(self, row: PickerRow) -> None:
        hit = self._content_hits.get(row.session_id) if self.content_mode else None
        if hit is None or hit.open_sequence is None:
            self.post_message(OpenSession(row.session_id))
            return
        mark = highlight_term(self._content_text)
        self.post_message(OpenSession(row.session_id, sequence=hit.open_sequence, highlight=mark))

    @work(thread=True, exclusive=True, group="rank", exit_on_error=False)
    def _rank(self, key: ScopeKey, query: str, rows: Sequence[PickerRow]) -> None:
        ranking = self._ranker.rank(key, rows, query, with_workspace=key[0])
        if not get_current_worker().is_cancelled:
            self.post_message(RankingDone(key, query, rows, ranking.indices, ranking))

    def on_ranking_done(self, message: RankingDone) -> None:
        if message.key != self.scope_key or message.query != self._query:
            return
        scope = self._scopes.get(message.key)
        if scope is None:
            return
        self._ranked_for = (message.key, message.query)
        ranking = self._last_ranking = message.ranking

        def highlight(line: int) -> tuple[int, ...]:
            return ranking[line].positions

        self.session_list.set_rows(
            message.rows, message.order, highlight, show_workspace=self.all_workspaces
        )
        self.session_list.set_empty_message(self._list_empty_message(scope))
        self._refresh_status()
        if self._open_when_ranked:
            self._open_when_ranked = False
            self.action_open()

    # --- preview -------------------------------------------------------------------------

    @on(SessionList.Highlighted)
    def _highlighted(self, event: SessionList.Highlighted) -> None:
        row = self._preview_wanted = event.row
        if row is None:
            self._preview_shown = None
            self.query_one(SessionPreview).show_message("")
            return
        if self._preview_running or row.session_id == self._preview_shown:
            return  # a running load hands over to the latest wish when it is done
        self._preview_running = True
        # After the next paint: the list's rows come before the preview's IO.
        self.call_after_refresh(self._start_preview)

    def _start_preview(self) -> None:
        row = self._preview_wanted
        if row is None:
            self._preview_running = False
            return
        self._preview_running = True
        self._preview_shown = row.session_id
        self._load_preview(row.session_id)

    @work(thread=True, exclusive=True, group="preview", exit_on_error=False)
    def _load_preview(self, session_id: str) -> None:
        _now, tz = self._now()
        try:
            meta = self.store.get(session_id)
            if meta is None:
                preview = missing_preview(session_id, f"zero session not found: {session_id}")
            else:
                try:
                    events, notice = self.store.read_events_for_display(session_id)
                except StoreError as failure:
                    events, notice = [], str(failure)
                preview = build_preview(meta, events, tz=tz, error=notice or "")
        except StoreError as failure:
            preview = missing_preview(session_id, str(failure))
        if not get_current_worker().is_cancelled:
            self.post_message(PreviewLoaded(session_id, preview))

    def on_preview_loaded(self, message: PreviewLoaded) -> None:
        self._preview_running = False
        wanted = self._preview_wanted
        if wanted is None:
            return
        if wanted.session_id != message.session_id:
            # The highlight moved on while this one loaded: load the latest only.
            self._start_preview()
            return
        self.query_one(SessionPreview).show(message.preview)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state != WorkerState.ERROR:
            return
        error = event.worker.error
        if event.worker.group == "preview":
            self._preview_running = False
            self.query_one(SessionPreview).show_message(f"preview failed: {error}")
        elif event.worker.group in ("scan-head", "scan"):
            self.on_scan_failed(ScanFailed(self._scan_id, str(error)))
        elif event.worker.group == "rank":
            self.notify(f"search failed: {error}", severity="error")

    # --- commands (`/` as the first character of the query) ------------------------------

    @property
    def command_mode(self) -> bool:
        return self.composer.command_mode

    @on(EditorRun)
    def _composer_run(self, event: EditorRun) -> None:
        """Enter: run the command typed, else open the highlighted session."""
        event.stop()
        if self.command_mode:
            self._run_line()
        else:
            self.action_open()

    @on(EditorMove)
    def _composer_move(self, event: EditorMove) -> None:
        self.session_list.move(event.delta, wrap=True)

    def _run_line(self) -> None:
        if self.run_text(self.composer.value):
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
        return self._now()[0]

    def session_renamed(self, meta: Metadata) -> None:
        self._preview_shown = None
        self.start_scan()  # the new title, in its place (a rename keeps updatedAt)

    def command_resume(self, args: str) -> None:
        if not args:
            raise CommandError("this is the session picker: pick a session and press Enter")
        self.post_message(ResumeRequest(args))

    def system_commands(self) -> Iterable[SystemCommand]:
        """The picker's actions for the command palette."""
        yield from self.registry_commands()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "go_up":
            return bool(self._enclosing)
        if action == "scope":
            return parameters == (("this",) if self.all_workspaces else ("all",))
        if action == "empty":
            return parameters == (("hide",) if self.include_empty else ("show",))
        if action == "search_mode":
            return parameters == (("title",) if self.content_mode else ("content",))
        if action == "open" and self.is_mounted and self.session_list.highlighted_row is None:
            return False
        if action == "unreadable":
            return bool(self._unreadable)
        if action in ("export_dialog", "run_command"):  # the registry's keys act on a row
            return self._store_total != 0
        # Nothing to open or widen in an empty store: the footer offers only what works.
        return not (action in ("open", "scope", "empty") and self._store_total == 0)

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

    def action_open(self) -> None:
        if self.command_mode:
            if self.composer.completing:
                self.composer.accept_completion(explicit=False)
            self._run_line()
            return
        if self._query and self._ranked_for != (self.scope_key, self._query):
            # Enter typed right behind the query: open once the list is ranked for it
            self._open_when_ranked = True
            return
        row = self.session_list.highlighted_row
        if row is not None:
            self._open(row)

    @on(SessionList.Selected)
    def _selected(self, event: SessionList.Selected) -> None:
        self._open(event.row)

    def action_escape(self) -> None:
        """Esc: leave command mode or clear the query; with nothing to clear, say how to
        quit (Esc is pressed by reflex: it never quits)."""
        if self.command_mode or self.composer.text_value:
            self.composer.clear_line()
            return
        self.notify("ctrl+q quits zero-tui", title="Quit", markup=False)

    def action_scope(self, scope: str) -> None:
        """Tab: this workspace or all of them."""
        self.all_workspaces = scope == "all"
        self._scope_changed()

    def action_empty(self, show: str) -> None:
        """ctrl+e: show or hide the empty runs."""
        self.include_empty = show == "show"
        self._scope_changed()

    def action_rescan(self) -> None:
        """ctrl+r: scan the store again, and say what the scan found once it is done."""
        scope = self._scopes.get(self.scope_key)
        before = [row.session_id for row in scope.rows] if scope is not None else []
        self.start_scan()
        self._rescan = (self._scan_id, self.scope_key, before)

    def action_unreadable(self) -> None:
        """ctrl+g: the sessions that could not be read, with the reason."""
        self.app.push_screen(UnreadableScreen(self._unreadable))

    def _scope_changed(self) -> None:
        self._ranked_for = None
        self.refresh_bindings()
        if self.scope_key in self._scopes:
            self._show_scope(keep_cursor=False)
        else:
            self.session_list.set_rows([], show_workspace=self.all_workspaces)
            self.session_list.set_empty_message("scanning the session store…")
        self._refresh_status()
