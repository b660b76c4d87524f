"""The resume picker: the sessions of this workspace, fuzzy-filtered as you type.

The screen composes the widgets and routes messages. What it shows is one `PickerState`
(zero_tui.picker.state) in the reactive `state`, whose watcher redraws the title, the
status line, the empty state and the footer's keys. The rows come from a `PickerLoader`
(zero_tui.picker.loader), run in a thread worker whose stages arrive as `ScanStage`
messages; `PickerBody` ranks and shows the current scope's rows and the preview.

Once a scan is done the picker follows the store live: a `StoreWatcher` thread (inotify,
else polling) says which sessions changed, and the loader's `changes` step reads those
again, one batch at a time, in a worker; its stages fold into the state like a scan's.
The same step says which sessions run now: after each batch, and every few seconds while
some session runs.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import ClassVar, assert_never

from textual import on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import BindingType
from textual.containers import Vertical
from textual.reactive import var
from textual.widgets import Footer, Input, Static
from textual.worker import Worker, WorkerState, get_current_worker

from zero_tui.agent.settings import RunSettings
from zero_tui.commands import REGISTRY, CommandError, Context, ScreenAction
from zero_tui.picker.content_search import build_index
from zero_tui.picker.head_cache import RememberedHead
from zero_tui.picker.live import RunningFound, StoreChanged
from zero_tui.picker.loader import (
    ChangesDone,
    EnclosingFolders,
    LoadStage,
    LoadStep,
    PickerLoader,
    RememberedRows,
    ScanDone,
    ScanFailed,
    ScanProgress,
    ScopeLoaded,
    UnreadableFound,
    UsageFound,
)
from zero_tui.picker.scopes import ScopeKey
from zero_tui.picker.session_rows import PickerRow, local_now, rescan_summary
from zero_tui.picker.state import PickerState
from zero_tui.picker.store_watch import StoreWatcher
from zero_tui.store import Metadata, SessionStore
from zero_tui.ui.messages import (
    IndexProgress,
    ResumeRequest,
    ScanStage,
    SessionDeleted,
    StoreChanges,
    TrashCounted,
    WatchMode,
)
from zero_tui.ui.screens.command_screen import CommandScreen, screen_bindings
from zero_tui.ui.widgets.composer import Composer, EditorMove, EditorRun, SlashComplete
from zero_tui.ui.widgets.picker_body import PickerBody, PreviewPane
from zero_tui.ui.widgets.session_list import SessionList
from zero_tui.ui.widgets.session_trash import SessionTrash

RUNNING_REFRESH_SECONDS = 3.0
"""While a session runs, how often the picker looks again at which do (a run can end
without a last write: its process exits)."""


class PickerScreen(CommandScreen):
    """Pick a session to resume. The query Input keeps the focus; keys move the list."""

    COMMAND_CONTEXT: ClassVar[Context] = Context.PICKER

    AUTO_FOCUS = "#query"

    BINDINGS: ClassVar[list[BindingType]] = screen_bindings(Context.PICKER)

    # The watcher runs at every assignment (no comparing of whole scopes of rows) and
    # redraws what changed; a `var`, not a `reactive`: no repaint of the whole screen.
    state: var[PickerState] = var(PickerState, always_update=True, init=False)

    def __init__(
        self,
        store: SessionStore,
        *,
        workspace: str,
        all_workspaces: bool = False,
        clock: Callable[[], datetime] | None = None,
        cache_dir: Path | None = None,
        settings: RunSettings | None = None,
        remembered: RememberedHead | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self._remembered = remembered  # read by the command line: the first scan's first rows
        self.settings = settings or RunSettings()
        self.store = store
        self._cache_dir = cache_dir
        self._clock = clock
        self._scans = itertools.count(1)
        self._loader: PickerLoader | None = None
        self._rescan: tuple[int, ScopeKey, tuple[PickerRow, ...]] | None = None  # ctrl+r
        self._changed: set[str] = set()  # sessions changed since the last `changes` step
        self._following = False  # a `changes` step is running
        self._watch_stop = threading.Event()
        first = PickerState(str(store.root), workspace, all_workspaces=all_workspaces)
        self.set_reactive(PickerScreen.state, first)

    @property
    def workspace(self) -> str:  # type: ignore[override]  # CommandScreen only reads it
        """The workspace listed (alt+up moves it to an enclosing folder)."""
        return self.state.workspace

    # --- layout --------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Static("Resume a session", id="picker-title", markup=False)
            yield Composer(
                Context.PICKER, placeholder="type to filter… · / for commands", id="query"
            )
            yield SlashComplete(id="picker-complete")
            yield PickerBody(
                self.store,
                self.state,
                cache_dir=self._cache_dir,
                clock=self._clock,
                id="picker-body",
            )
            yield Static("", id="empty-state", markup=False)
            yield Static("", id="status", markup=False)
        yield SessionTrash(self.store, id="trash")
        yield Footer()

    def on_mount(self) -> None:
        self.watch_state(None, self.state)
        self.composer.attach(self.query_one(SlashComplete))
        self.start_scan()
        self._start_watching()
        self._running_timer = self.set_interval(
            RUNNING_REFRESH_SECONDS, self._refresh_running, pause=True
        )

    def on_unmount(self) -> None:
        self._watch_stop.set()
        if self._loader is not None and not self._following:
            self._loader.close()

    @property
    def composer(self) -> Composer:
        return self.query_one("#query", Composer)

    @property
    def body(self) -> PickerBody:
        return self.query_one(PickerBody)

    @property
    def session_list(self) -> SessionList:
        return self.query_one(SessionList)

    def watch_state(self, old: PickerState | None, state: PickerState) -> None:
        """Redraw what shows the state (`old` None: all of it). The rows are the body's to
        show: the handlers say when."""
        self.body.state = state
        status = state.status()
        if old is None or status != old.status():
            self.query_one("#status", Static).update(status)
        empty_store = state.store_total == 0
        self.query_one("#empty-state").display = empty_store
        self.body.display = not empty_store
        if empty_store:
            self.query_one("#empty-state", Static).update(state.empty_state())
        if old is None or old.title() != state.title():
            self.query_one("#picker-title", Static).update(state.title())
            self.composer.placeholder = state.placeholder()
        if old is not None and old.offer_facts() != state.offer_facts():
            self.refresh_bindings()
        if old is None or old.running is not state.running:
            self.body.show_running(state.running)
        if old is None or old.usage is not state.usage:
            self.body.show_usage(state.usage)

    # --- scanning ------------------------------------------------------------------------

    def start_scan(self) -> None:
        self.body.forget_ranking()
        if self._loader is not None and not self._following:
            self._loader.close()  # a step still following it lets go of it when it is done
        self._changed.clear()  # the scan reads every session
        self._following = False  # a step of the last scan may run on: its stages are dropped
        state = self.state = replace(
            self.state, scan=next(self._scans), scopes={}, scan_progress=None, live=False
        )
        self._loader = PickerLoader(
            self.store,
            state.workspace,
            state.scope_key,
            cache_dir=self._cache_dir,
            clock=self._clock,
        )
        remembered, self._remembered = self._remembered, None
        if remembered is not None and self._loader.knows(remembered):
            # The rows of the first frame, at once: no empty list between it and them.
            self.on_scan_stage(ScanStage(state.scan, self._loader.remembered_rows(remembered.head)))
            return
        self._load(state.scan, self._loader.remembered)

    def _load_store(self, scan: int, *, shown: bool) -> None:
        """The loader's scan of the store, unless a newer scan has started meanwhile."""
        if scan == self.state.scan and self._loader is not None:
            self._load(scan, partial(self._loader.scan, shown=shown))

    @work(thread=True, exclusive=True, group="scan", exit_on_error=False)
    def _load(self, scan: int, step: LoadStep) -> None:
        """Run one step of the loader, posting its stages until the worker is cancelled."""
        worker = get_current_worker()

        def post(stage: LoadStage) -> None:
            if not worker.is_cancelled:
                self.post_message(ScanStage(scan, stage))

        step(post, lambda: worker.is_cancelled)

    # --- following the store ------------------------------------------------------------

    def _start_watching(self) -> None:
        """Watch the store in a thread of its own for as long as the picker is open (not a
        worker: it never ends, and a worker's group would never be complete)."""

        def mode_changed(mode: str) -> None:
            self.post_message(WatchMode(mode))

        watcher = StoreWatcher(self.store.root, on_mode=mode_changed)

        def emit(session_ids: set[str]) -> None:
            self.post_message(StoreChanges(frozenset(session_ids)))

        threading.Thread(
            target=watcher.run,
            args=(emit, self._watch_stop),
            name="zero-tui store watcher",
            daemon=True,
        ).start()

    def on_watch_mode(self, message: WatchMode) -> None:
        self.state = replace(self.state, watch_mode=message.mode)

    def on_store_changes(self, message: StoreChanges) -> None:
        if not message.session_ids:
            self.start_scan()  # the store itself came or went: read all of it
            return
        self._changed |= message.session_ids
        self._follow_store()

    @on(PreviewPane.Differs)
    def _preview_differs(self, message: PreviewPane.Differs) -> None:
        """The preview read a session otherwise than its row shows it: read it again."""
        self._changed.add(message.session_id)
        self._follow_store()

    def _refresh_running(self) -> None:
        if self.state.running:
            self._follow_store(running=True)

    def _follow_store(self, *, running: bool = False) -> None:
        """Read the changed sessions again (`running`: also when none changed, to see
        which run now), one step at a time, once the scan is done."""
        loader = self._loader
        if self._following or not self.state.live or loader is None:
            return
        if not self._changed and not running:
            return
        changed = frozenset(self._changed)
        self._changed.clear()
        self._following = True
        self._follow(self.state.scan, partial(loader.changes, changed))

    @work(thread=True, group="follow", exit_on_error=False)
    def _follow(self, scan: int, step: LoadStep) -> None:
        """Run one `changes` step of the loader, posting its stages."""
        worker = get_current_worker()

        def post(stage: LoadStage) -> None:
            if not worker.is_cancelled:
                self.post_message(ScanStage(scan, stage))

        step(post, lambda: worker.is_cancelled)

    def _store_changed(self, changed: StoreChanged) -> None:
        self.state = self.state.with_changes(changed)
        self.body.forget_preview([change.session_id for change in changed.changes])
        self.body.show_scope(keep_cursor=True)

    def _running_found(self, found: RunningFound) -> None:
        self.state = replace(self.state, running=found.running)
        if found.running:
            self._running_timer.resume()
        else:
            self._running_timer.pause()

    def _changes_done(self, done: ChangesDone) -> None:
        self._following = False
        if done.indexed and self.state.content_mode and self.state.query:
            self.body.rank_again()  # what was said in them is searchable now
        self._follow_store()

    # --- the loader's stages ---------------------------------------------------------------

    def on_scan_stage(self, message: ScanStage) -> None:
        if message.scan != self.state.scan:
            return  # a stage of an older scan
        stage = message.stage
        match stage:
            case RememberedRows(scope=ScopeLoaded() as remembered):
                self._rows_loaded(remembered)
                # After these rows are painted: the catalog's work would compete with the paint.
                self.call_after_refresh(self._load_store, message.scan, shown=True)
            case RememberedRows():
                self._load_store(message.scan, shown=False)
            case ScopeLoaded():
                self._rows_loaded(stage)
            case ScanProgress(done=done, total=total):
                scanned = (done, total) if done < total else None
                self.state = replace(self.state, scan_progress=scanned)
            case UnreadableFound(sessions=sessions):
                self.state = replace(self.state, unreadable=sessions)
            case EnclosingFolders(folders=folders):
                self.state = replace(self.state, enclosing=folders)
            case ScanFailed(error=error):
                self.state = replace(self.state, scan_error=error, store_total=0)
                self.body.show_scope(keep_cursor=False)
            case ScanDone(sessions=sessions):
                self.state = replace(self.state, live=True, sessions=sessions)
                self._follow_store(running=True)  # and what changed while it read
            case StoreChanged():
                self._store_changed(stage)
            case RunningFound():
                self._running_found(stage)
            case UsageFound(usage=usage):
                self.state = self.state.with_usage(usage)
            case ChangesDone():
                self._changes_done(stage)
            case _:
                assert_never(stage)

    def _rows_loaded(self, loaded: ScopeLoaded) -> None:
        state = self.state = self.state.with_rows(loaded)
        if loaded.key == state.scope_key and (loaded.rows or loaded.complete):
            self.body.show_scope(keep_cursor=True)
        rescan = self._rescan
        if loaded.complete and rescan is not None and rescan[:2] == (state.scan, loaded.key):
            self._rescan = None
            after = state.scopes[loaded.key].rows
            summary = rescan_summary(rescan[2], after, loaded.store_total)
            self.notify(summary, title="Rescan", markup=False)

    def on_picker_body_shown(self, message: PickerBody.Shown) -> None:
        status = message.content_status
        self.state = replace(
            self.state,
            shown=message.count,
            content_status=self.state.content_status if status is None else status,
        )

    @on(Input.Changed, "#query")
    def _query_changed(self, event: Input.Changed) -> None:
        if REGISTRY.starts_a_command(event.value):
            return  # a command, not a filter: the list stays as it is
        text = event.value.strip()
        self.state = replace(self.state, query=text.lower(), content_text=text)
        self.body.show_query()

    @work(thread=True, exclusive=True, group="index", exit_on_error=False)
    def _build_index(self) -> None:
        """Bring the text index up to date (the picker keeps working meanwhile; queries say
        their results may be incomplete until it is done)."""
        worker = get_current_worker()

        def progress(done: int, total: int) -> None:
            self.post_message(IndexProgress(done, total))

        sessions = build_index(
            self.store, self._cache_dir, progress=progress, cancelled=lambda: worker.is_cancelled
        )
        if not worker.is_cancelled:
            self.post_message(IndexProgress(sessions, sessions, finished=True))

    def on_index_progress(self, message: IndexProgress) -> None:
        if not message.finished:
            self.state = replace(self.state, index_progress=(message.done, message.total))
            return
        self.state = replace(self.state, index_progress=None, index_ready=True)
        if self.state.content_mode and self.state.query:
            self.body.rank_again()  # the complete results

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.group == "scan":
            failed = ScanFailed(str(event.worker.error))
            self.post_message(ScanStage(self.state.scan, failed))
        elif event.state == WorkerState.ERROR and event.worker.group == "follow":
            self._following = False
            self.notify(
                f"could not follow the store: {event.worker.error} (ctrl+r scans again)",
                title="Sessions",
                severity="warning",
                markup=False,
            )

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
        return local_now(self._clock)[0]

    def session_renamed(self, meta: Metadata) -> None:
        self._changed.add(meta.session_id)  # the new title, in its place (updatedAt is kept)
        self._follow_store()

    def command_resume(self, args: str) -> None:
        if not args:
            raise CommandError("this is the session picker: pick a session and press Enter")
        self.post_message(ResumeRequest(args))

    def system_commands(self) -> Iterable[SystemCommand]:
        """The picker's actions for the command palette."""
        yield from self.registry_commands()

    def action_help(self, action: ScreenAction) -> str:
        if action.action == "rescan":
            return f"{action.help} · {self.state.live_note()}"
        return action.help

    def help_notes(self) -> list[str]:
        return [f"The list follows the store: {self.state.live_note()}."]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        highlighted = not self.is_mounted or self.session_list.highlighted_row is not None
        return self.state.offers(action, parameters, row_highlighted=highlighted)

    # --- keys ----------------------------------------------------------------------------

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
        self.body.open_highlighted()

    def action_escape(self) -> None:
        """Esc: leave command mode or clear the query; with nothing to clear, say how to
        quit (Esc is pressed by reflex: it never quits)."""
        if self.command_mode or self.composer.text_value:
            self.composer.clear_line()
            return
        self.notify("ctrl+q quits zero-tui", title="Quit", markup=False)

    def action_scope(self, scope: str) -> None:
        """Tab: this workspace or all of them."""
        self.state = replace(self.state, all_workspaces=scope == "all")
        self.body.start_over()

    def action_empty(self, show: str) -> None:
        """ctrl+e: show or hide the empty runs."""
        self.state = replace(self.state, include_empty=show == "show")
        self.body.start_over()

    def action_search_mode(self, mode: str) -> None:
        """ctrl+t: search what was said in the sessions, or their titles."""
        content = mode == "content"
        self.state = replace(self.state, content_mode=content, content_status="")
        if content:
            self._build_index()
        self.body.start_over(forget_hits=True)

    def action_rescan(self) -> None:
        """ctrl+r: scan the store again, and say what the scan found once it is done."""
        scope = self.state.scope
        before = scope.rows if scope is not None else ()
        self.start_scan()
        self._rescan = (self.state.scan, self.state.scope_key, before)

    def action_unreadable(self) -> None:
        """ctrl+g: the sessions that could not be read, with the reason."""
        from zero_tui.ui.screens.dialogs import UnreadableScreen

        self.app.push_screen(UnreadableScreen(self.state.unreadable))

    def action_delete_session(self) -> None:
        """F8: move the highlighted session to the trash, once the user says yes."""
        row = self.session_list.highlighted_row
        if row is not None:
            self.query_one(SessionTrash).delete(row, self.state.running.get(row.session_id))

    def on_trash_counted(self, message: TrashCounted) -> None:
        self.state = replace(self.state, trash_count=message.count)

    def on_session_deleted(self, message: SessionDeleted) -> None:
        """Its row goes at once; the store's follower then says what else moved."""
        if message.outcome.ok:
            self.state = self.state.without_session(message.session_id)
            self.body.remove_session(message.session_id)
            self._changed.add(message.session_id)
            self._follow_store()

    def action_go_up(self) -> None:
        """alt+up: list the sessions of the nearest enclosing folder that has some."""
        enclosing = self.state.enclosing
        if enclosing:
            self.state = replace(self.state, workspace=enclosing[0][0], enclosing=())
            self.start_scan()
