"""Where the picker's rows come from: the loader's workers, the store's watcher, the text
index. A widget with nothing to show.

`start` begins a scan: a new `PickerLoader` (zero_tui.picker.loader), whose steps run in
thread workers that post each stage as a `ScanStage` carrying the scan's number. The
screen folds each stage of the current scan into its state and then hands it back
(`stage_folded`), and the feed takes the next step: the store's scan once the remembered
rows are painted, following the store once the scan is done, the next batch of changes
once one is read.

Once a scan is done the feed follows the store: a `StoreWatcher` thread (inotify, else
polling; started as the first scan of the store starts) posts which sessions changed
(`StoreChanges`) and how it finds them (`WatchMode`); `follow` reads changed sessions
again, one batch at a time, in a worker (the loader's `changes` step), and also says which
sessions run now: after each batch, and every few seconds while some session runs.
`build_index` brings the text index up to date for a content search (`IndexProgress`).
Every message goes on up to the screen.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterable
from datetime import datetime
from functools import partial
from pathlib import Path

from textual import work
from textual.widget import Widget
from textual.worker import Worker, WorkerState, get_current_worker

from zero_tui.picker.content_search import build_index
from zero_tui.picker.hint_keys import DEFAULT_HINT_KEYS
from zero_tui.picker.host_rows import on_host
from zero_tui.picker.live import RunningFound
from zero_tui.picker.loader import (
    ChangesDone,
    LoadStage,
    LoadStep,
    PickerLoader,
    RememberedRows,
    ScanDone,
    ScanFailed,
)
from zero_tui.picker.scopes import ScopeKey
from zero_tui.picker.store_watch import StoreWatcher
from zero_tui.store import SessionStore
from zero_tui.ui.messages import IndexProgress, ScanStage, StoreChanges, WatchMode

RUNNING_REFRESH_SECONDS = 3.0
"""While a session runs, how often the picker looks again at which do (a run can end
without a last write: its process exits)."""


class StoreFeed(Widget):
    """The picker's scans of `store` and its following of it, posted as messages.
    `cache_dir` and `clock` are the loader's."""

    DEFAULT_CSS = """
    StoreFeed {
        display: none;
    }
    """

    def __init__(
        self,
        store: SessionStore,
        *,
        cache_dir: Path | None = None,
        clock: Callable[[], datetime] | None = None,
        host: str | None = None,
        rescan_key: str = DEFAULT_HINT_KEYS.rescan,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.host = host  # `store` mirrors this host's: its messages say so, its rows too
        self._rescan_key = rescan_key  # the key that scans again, as the user moved it
        self._store = store
        self._cache_dir = cache_dir
        self._clock = clock
        self._scans = itertools.count(1)
        self._scan = 0  # the current scan: a step of an older one posts nothing more
        self._loader: PickerLoader | None = None
        self._live = False  # the current scan is done: the store is followed
        self._changed: set[str] = set()  # sessions changed since the last `changes` step
        self._following = False  # a `changes` step is running
        self._watch_stop = threading.Event()
        self._watching = False  # the watcher thread is started (with the first scan)

    def on_mount(self) -> None:
        self._running_timer = self.set_interval(
            RUNNING_REFRESH_SECONDS, self._refresh_running, pause=True
        )

    def on_unmount(self) -> None:
        self._watch_stop.set()
        if self._loader is not None and not self._following:
            self._loader.close()

    # --- scanning ------------------------------------------------------------------------

    def start(self, workspace: str, first: ScopeKey) -> int:
        """Start a scan of `workspace`'s sessions, the scope `first` first; its number."""
        if self._loader is not None and not self._following:
            self._loader.close()  # a step still following it lets go of it when it is done
        self._changed.clear()  # the scan reads every session
        self._following = False  # a step of the last scan may run on: its stages are dropped
        self._live = False
        scan = self._scan = next(self._scans)
        loader = self._loader = PickerLoader(
            self._store,
            workspace,
            first,
            cache_dir=self._cache_dir,
            clock=self._clock,
        )
        self._load(scan, loader.remembered)
        return scan

    def stage_folded(self, stage: LoadStage) -> None:
        """The screen took `stage` of the current scan in: take the step that follows it."""
        match stage:
            case RememberedRows(scope=None):
                self._load_store(self._scan, shown=False)
            case RememberedRows():
                # After these rows are painted: the catalog's work would compete with the paint.
                self.call_after_refresh(self._load_store, self._scan, shown=True)
            case ScanDone():
                self._live = True
                self.follow(running=True)  # and what changed while it read
            case RunningFound(running=running):
                if running:
                    self._running_timer.resume()
                else:
                    self._running_timer.pause()
            case ChangesDone():
                self._following = False
                self.follow()

    def _load_store(self, scan: int, *, shown: bool) -> None:
        """The loader's scan of the store, unless a newer scan has started meanwhile; the
        watcher starts with the first scan, after the remembered rows are painted (its
        child process's start competed with the first paint)."""
        if scan == self._scan and self._loader is not None:
            if not self._watching:
                self._watching = True
                self._start_watching()
            self._load(scan, partial(self._loader.scan, shown=shown))

    @work(thread=True, exclusive=True, group="scan", exit_on_error=False)
    def _load(self, scan: int, step: LoadStep) -> None:
        """Run one step of the loader, posting its stages until the worker is cancelled."""
        self._run_step(scan, step)

    def _run_step(self, scan: int, step: LoadStep) -> None:
        worker = get_current_worker()

        host = self.host

        def post(stage: LoadStage) -> None:
            if not worker.is_cancelled:
                tagged = stage if host is None else on_host(stage, host)
                self.post_message(ScanStage(scan, tagged, host))

        step(post, lambda: worker.is_cancelled)

    # --- following the store ------------------------------------------------------------

    def _start_watching(self) -> None:
        """Watch the store in a thread of its own for as long as the picker is open (not a
        worker: it never ends, and a worker's group would never be complete)."""

        def mode_changed(mode: str) -> None:
            self.post_message(WatchMode(mode, self.host))

        watcher = StoreWatcher(self._store.root, on_mode=mode_changed)

        def emit(session_ids: set[str]) -> None:
            self.post_message(StoreChanges(frozenset(session_ids), self.host))

        threading.Thread(
            target=watcher.run,
            args=(emit, self._watch_stop),
            name="zero-tui store watcher",
            daemon=True,
        ).start()

    def _refresh_running(self) -> None:
        self.follow(running=True)  # the timer runs only while some session runs

    def follow(self, session_ids: Iterable[str] = (), *, running: bool = False) -> None:
        """Read `session_ids` again, with the others changed meanwhile (`running`: also
        when none changed, to see which run now), one step at a time, once the scan is
        done."""
        self._changed.update(session_ids)
        loader = self._loader
        if self._following or not self._live or loader is None:
            return
        if not self._changed and not running:
            return
        changed = frozenset(self._changed)
        self._changed.clear()
        self._following = True
        self._follow(self._scan, partial(loader.changes, changed))

    @work(thread=True, group="follow", exit_on_error=False)
    def _follow(self, scan: int, step: LoadStep) -> None:
        """Run one `changes` step of the loader, posting its stages."""
        self._run_step(scan, step)

    @work(thread=True, exclusive=True, group="index", exit_on_error=False)
    def build_index(self) -> None:
        """Bring the text index up to date (the picker keeps working meanwhile; queries say
        their results may be incomplete until it is done)."""
        worker = get_current_worker()

        def progress(done: int, total: int) -> None:
            self.post_message(IndexProgress(done, total, host=self.host))

        sessions = build_index(
            self._store, self._cache_dir, progress=progress, cancelled=lambda: worker.is_cancelled
        )
        if not worker.is_cancelled:
            self.post_message(IndexProgress(sessions, sessions, finished=True, host=self.host))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.group == "scan":
            failed = ScanFailed(str(event.worker.error))
            self.post_message(ScanStage(self._scan, failed, self.host))
        elif event.state == WorkerState.ERROR and event.worker.group == "follow":
            self._following = False
            again = f"{self._rescan_key} scans again"
            self.notify(
                f"could not follow the store: {event.worker.error} ({again})",
                title="Sessions",
                severity="warning",
                markup=False,
            )
