"""The resume picker: the sessions of this workspace, fuzzy-filtered as you type.

The screen composes the widgets and routes messages. What it shows is one `PickerState`
(zero_tui.picker.state) in the reactive `state`, whose watcher redraws the title, the
status line, the empty state and the footer's keys. The rows come from a `StoreFeed`
(ui/widgets/store_feed.py), which runs the `PickerLoader`'s steps in workers and follows
the store once a scan is done: its stages arrive as `ScanStage` messages, which the screen
folds into the state (`PickerState.with_stage`) before it hands them back to the feed for
the next step. `PickerBody` ranks and shows the current scope's rows and the preview;
`SessionTrash` deletes (F8). The keys that act on the query and the list alone move in the
list, open a row, and run a `/` command on the highlighted session.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import BindingType
from textual.containers import Vertical
from textual.reactive import var
from textual.widgets import Input, Static

from zero_tui.agent.settings import RunSettings
from zero_tui.commands import (
    REGISTRY,
    CommandError,
    Context,
    ExportRequest,
    ScreenAction,
    export_many,
)
from zero_tui.hosts.registry import Host, mirror_root
from zero_tui.picker.hint_keys import DEFAULT_HINT_KEYS, HintKeys
from zero_tui.picker.host_rows import HostSync
from zero_tui.picker.live import StoreChanged
from zero_tui.picker.loader import (
    ChangesDone,
    LoadStage,
    RememberedRows,
    ScanFailed,
    ScopeLoaded,
)
from zero_tui.picker.scopes import ScopeKey
from zero_tui.picker.session_rows import PickerRow, local_now, rescan_summary
from zero_tui.picker.state import PickerState
from zero_tui.store import Metadata, SessionStore
from zero_tui.text.labels import counted
from zero_tui.ui.messages import (
    CommandDone,
    FlagsRead,
    HostSynced,
    IndexProgress,
    ResumeRequest,
    ScanStage,
    SessionDeleted,
    StoreChanges,
    TrashCounted,
    WatchMode,
)
from zero_tui.ui.mounting import composed
from zero_tui.ui.screens.command_screen import CommandScreen, command_action, screen_bindings
from zero_tui.ui.widgets.composer import Composer, EditorRun, SlashComplete
from zero_tui.ui.widgets.host_syncer import HostSyncer
from zero_tui.ui.widgets.picker_body import PickerBody, PreviewPane
from zero_tui.ui.widgets.session_keeper import SessionKeeper
from zero_tui.ui.widgets.session_list import SessionList
from zero_tui.ui.widgets.session_trash import SessionTrash
from zero_tui.ui.widgets.steady_footer import SteadyFooter
from zero_tui.ui.widgets.store_feed import StoreFeed

if TYPE_CHECKING:
    from zero_tui.agent.zero_commands import ZeroRunner


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
        hosts: Sequence[Host] = (),
        sync_seconds: float = 0,
        keys: HintKeys = DEFAULT_HINT_KEYS,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self.settings = settings or RunSettings()
        self.store = store
        self._cache_dir = cache_dir
        self._clock = clock
        self._rescan: tuple[int, ScopeKey, tuple[PickerRow, ...]] | None = None  # ctrl+r
        self._highlighted = True  # a row is highlighted (check_action's word before mount)
        # each host's mirror is read as a store of its own, its rows tagged with the host
        self.hosts = tuple(hosts)
        self.host_stores = {host.name: SessionStore(mirror_root(host.name)) for host in hosts}
        self._sync_seconds = sync_seconds
        first = PickerState(
            str(store.root),
            workspace,
            all_workspaces=all_workspaces,
            hosts={
                name: PickerState(str(mirror.root), workspace, all_workspaces=all_workspaces)
                for name, mirror in self.host_stores.items()
            },
            syncs={host.name: HostSync(host.name) for host in hosts},
            host_time=local_now(clock) if hosts else None,
            keys=keys,
        )
        self.set_reactive(PickerScreen.state, first)

    @property
    def workspace(self) -> str:  # type: ignore[override]  # CommandScreen only reads it
        """The workspace listed (alt+up moves it to an enclosing folder)."""
        return self.state.workspace

    @property
    def composer(self) -> Composer:
        return self.query_one("#query", Composer)

    @property
    def body(self) -> PickerBody:
        return self.query_one(PickerBody)

    @property
    def session_list(self) -> SessionList:
        return self.query_one(SessionList)

    # --- commands (`/` as the first character of the query) ------------------------------

    @property
    def command_mode(self) -> bool:
        return self.composer.command_mode

    @on(EditorRun)
    async def _composer_run(self, event: EditorRun) -> None:
        """Enter: run the command typed, else open the highlighted session."""
        event.stop()
        if self.command_mode:
            await self._run_line()
        else:
            await self.action_open()

    async def _run_line(self) -> None:
        if await self.run_text(self.composer.value):
            self.composer.clear_line()

    # /export and /rename (CommandScreen) act on the highlighted session

    def command_session(self) -> str:
        row = self.session_list.highlighted_row
        if row is None:
            raise CommandError("no session is highlighted")
        return row.session_id

    def command_store(self) -> SessionStore:
        row = self.session_list.highlighted_row
        if row is None or row.host is None:
            return self.store
        return self.host_stores[row.host]

    def zero_runner(self) -> ZeroRunner | None:
        """The highlighted row's host, whose Zero keeps that session's sandbox grants."""
        from zero_tui.remote.host_sessions import zero_runner_on  # 30 ms of the start

        row = self.session_list.highlighted_row
        if row is None or row.host is None:
            return None
        return zero_runner_on(next(host for host in self.hosts if host.name == row.host))

    def refusal_on_host(self, operation: str) -> str | None:
        from zero_tui.remote.host_sessions import refusal  # 30 ms of the start

        row = self.session_list.highlighted_row
        return refusal(operation, row.host) if row is not None and row.host else None

    def current_title(self, session_id: str) -> str:
        row = self.session_list.highlighted_row
        if row is None or row.session_id != session_id or row.title == "untitled":
            return ""
        return row.title

    def command_time(self) -> datetime:
        return local_now(self._clock)[0]

    @command_action
    def action_resume(self, args: str) -> None:
        if not args:
            raise CommandError("this is the session picker: pick a session and press Enter")
        self.post_message(ResumeRequest(args))

    def system_commands(self) -> Iterable[SystemCommand]:
        """The picker's actions for the command palette."""
        yield from self.registry_commands()

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

    async def action_open(self) -> None:
        if self.command_mode:
            if self.composer.completing:
                self.composer.accept_completion(explicit=False)
            await self._run_line()
            return
        self.body.open_highlighted()

    def action_escape(self) -> None:
        """Esc: clear the marks, else leave command mode or clear the query; with nothing
        to clear, say how to quit (Esc is pressed by reflex: it never quits)."""
        if self.state.marked:
            self.state = replace(self.state, marked=frozenset())
            return
        if self.command_mode or self.composer.text_value:
            self.composer.clear_line()
            return
        self.notify("ctrl+q quits zero-tui", title="Quit", markup=False)

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
                host_stores=self.host_stores,
                id="picker-body",
            )
            yield Static("", id="empty-state", markup=False)
            yield Static("", id="status", markup=False)
            if self.hosts:
                yield Static("", id="host-status", markup=False)
        yield SessionTrash(self.store, id="trash")
        yield SessionKeeper(self.store, id="keeper")
        rescan_key = self.state.keys.rescan
        yield StoreFeed(
            self.store,
            cache_dir=self._cache_dir,
            clock=self._clock,
            rescan_key=rescan_key,
            id="feed",
        )
        for name, mirror in self.host_stores.items():
            yield StoreFeed(
                mirror,
                cache_dir=self._cache_dir,
                clock=self._clock,
                host=name,
                rescan_key=rescan_key,
            )
        if self.hosts:
            yield HostSyncer(self.hosts, interval=self._sync_seconds, id="host-syncer")
        yield SteadyFooter()

    def on_mount(self) -> None:
        if not composed(self):
            return
        self.watch_state(None, self.state)
        self.composer.attach(self.query_one(SlashComplete))
        self.start_scan()

    @property
    def feed(self) -> StoreFeed:
        return self.query_one("#feed", StoreFeed)

    def host_feed(self, host: str) -> StoreFeed | None:
        return next((feed for feed in self.query(StoreFeed) if feed.host == host), None)

    def watch_state(self, old: PickerState | None, state: PickerState) -> None:
        """Redraw what shows the state (`old` None: all of it). The rows are the body's to
        show: the handlers say when."""
        self.body.state = state
        status = state.status()
        if old is None or status != old.status():
            # one line whatever it says: no layout of the screen for it
            self.query_one("#status", Static).update(status, layout=False)
        hosts_line = state.hosts_status()
        if self.hosts and (old is None or hosts_line != old.hosts_status()):
            self.query_one("#host-status", Static).update(hosts_line, layout=False)
        empty_store = state.empty
        self.query_one("#empty-state").display = empty_store
        self.body.display = not empty_store
        if empty_store:
            self.query_one("#empty-state", Static).update(state.empty_state())
        if old is None or old.title() != state.title():
            self.query_one("#picker-title", Static).update(state.title(), layout=False)
            self.composer.placeholder = state.placeholder()
        if old is not None and old.offer_facts() != state.offer_facts():
            self.refresh_bindings()
        if old is None or old.running is not state.running:
            self.body.show_running(state.running)
        if old is None or old.usage is not state.usage:
            self.body.show_usage(state.usage)
        if old is not None and old.marked is not state.marked:
            self.body.show_marked(state.marked)
            if self.composer.marks_first != bool(state.marked):
                self.composer.marks_first = bool(state.marked)
                self.composer.refresh_bindings()

    # --- scanning and following the store ----------------------------------------------

    def start_scan(self) -> None:
        self.body.forget_ranking()
        state = self.state
        scan = self.feed.start(state.workspace, state.scope_key)
        self.state = replace(state, scan=scan, scopes={}, scan_progress=None, live=False).remerged()
        for host in state.hosts:
            self.start_host_scan(host)

    def start_host_scan(self, host: str) -> None:
        """Scan `host`'s mirror again (its folder came or went: a first sync made it)."""
        feed, state = self.host_feed(host), self.state
        hosted = state.hosts.get(host)
        if feed is None or hosted is None:
            return
        scan = feed.start(state.workspace, state.scope_key)
        hosted = replace(
            hosted,
            workspace=state.workspace,
            all_workspaces=state.all_workspaces,
            include_empty=state.include_empty,
            scan=scan,
            scopes={},
            scan_progress=None,
            live=False,
        )
        self.state = replace(state, hosts={**state.hosts, host: hosted}).remerged()

    def on_watch_mode(self, message: WatchMode) -> None:
        if message.host is None:
            self.state = replace(self.state, watch_mode=message.mode)

    def on_host_synced(self, message: HostSynced) -> None:
        state = self.state if message.sync is None else self.state.with_sync(message.sync)
        self.state = replace(state, host_time=local_now(self._clock))

    def on_store_changes(self, message: StoreChanges) -> None:
        if message.host is not None:
            feed = self.host_feed(message.host)
            if not message.session_ids:
                self.start_host_scan(message.host)
            elif feed is not None:
                feed.follow(message.session_ids)
            return
        self.query_one(SessionTrash).count()  # a delete or restore elsewhere moves it
        if not message.session_ids:
            self.start_scan()  # the store itself came or went: read all of it
            return
        self.feed.follow(message.session_ids)

    @on(PreviewPane.Differs)
    def _preview_differs(self, message: PreviewPane.Differs) -> None:
        """The preview read a session otherwise than its row shows it: read it again."""
        feed = self.feed if message.host is None else self.host_feed(message.host)
        if feed is not None:
            feed.follow([message.session_id])

    # --- the loader's stages ---------------------------------------------------------------

    def on_scan_stage(self, message: ScanStage) -> None:
        """Fold a stage of the current scan into the state, show what it moved, then let
        the feed take the next step."""
        if message.host is not None:
            self._host_stage(message.host, message)
            return
        if message.scan != self.state.scan:
            return  # a stage of an older scan
        stage = message.stage
        state = self.state.with_stage(stage)
        if state is not self.state:
            self.state = state
        self._show_stage(stage)
        self.feed.stage_folded(stage)

    def _host_stage(self, host: str, message: ScanStage) -> None:
        """A stage of a host's mirror, folded and shown as the local store's are."""
        hosted, feed = self.state.hosts.get(host), self.host_feed(host)
        if hosted is None or feed is None or message.scan != hosted.scan:
            return
        stage = message.stage
        state = self.state.with_host_stage(host, stage)
        if state is not self.state:
            self.state = state
        match stage:
            case RememberedRows(scope=ScopeLoaded() as loaded) | (ScopeLoaded() as loaded):
                if loaded.key == state.scope_key and (loaded.rows or loaded.complete):
                    self.body.show_scope(keep_cursor=True)
            case StoreChanged():
                self.body.forget_preview()
                self.body.show_scope(keep_cursor=True)
            case _:
                pass
        feed.stage_folded(stage)

    def _show_stage(self, stage: LoadStage) -> None:
        """What the body shows of `stage` (the state's watcher draws the rest)."""
        match stage:
            case RememberedRows(scope=ScopeLoaded() as loaded) | (ScopeLoaded() as loaded):
                self._rows_loaded(loaded)
            case ScanFailed():
                self.body.show_scope(keep_cursor=False)
            case StoreChanged(changes=changes):
                self.body.forget_preview([change.session_id for change in changes])
                self.body.show_scope(keep_cursor=True)
            case ChangesDone(indexed=indexed):
                if indexed and self.state.content_mode and self.state.query:
                    self.body.rank_again()  # what was said in them is searchable now

    def _rows_loaded(self, loaded: ScopeLoaded) -> None:
        state = self.state
        if loaded.key == state.scope_key and (loaded.rows or loaded.complete):
            self.body.show_scope(keep_cursor=True)
        rescan = self._rescan
        if loaded.complete and rescan is not None and rescan[:2] == (state.scan, loaded.key):
            self._rescan = None
            after = state.scopes[loaded.key].rows
            summary = rescan_summary(rescan[2], after, loaded.store_total)
            self.notify(summary, title="Rescan", markup=False)

    def on_picker_body_shown(self, message: PickerBody.Shown) -> None:
        message.stop()  # the app has nothing to do with it: no bubbling at every key
        status = message.content_status
        self.state = replace(
            self.state,
            shown=message.count,
            content_status=self.state.content_status if status is None else status,
            archived_hidden=message.archived_hidden,
        )

    @on(Input.Changed, "#query")
    def _query_changed(self, event: Input.Changed) -> None:
        event.stop()
        if REGISTRY.starts_a_command(event.value):
            return  # a command, not a filter: the list stays as it is
        text = event.value.strip()
        self.state = replace(self.state, query=text.lower(), content_text=text)
        self.body.show_query()

    def on_index_progress(self, message: IndexProgress) -> None:
        if message.host is not None:  # a mirror's index: its hits count once it is built
            if message.finished and self.state.content_mode and self.state.query:
                self.body.rank_again()
            return
        if not message.finished:
            self.state = replace(self.state, index_progress=(message.done, message.total))
            if self.state.content_mode and self.state.query:
                self.body.rank_as_indexed()  # the first results while the build goes on
            return
        self.state = replace(self.state, index_progress=None, index_ready=True)
        if self.state.content_mode and self.state.query:
            self.body.rank_again()  # the complete results

    def session_renamed(self, meta: Metadata) -> None:
        self.feed.follow([meta.session_id])  # the new title, in its place (updatedAt is kept)

    def palette_help(self, action: ScreenAction) -> str:
        if action.action == "rescan":
            return f"{action.help} · {self.state.live_note()}"
        return action.help

    def help_notes(self) -> list[str]:
        return [f"The list follows the store: {self.state.live_note()}."]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        highlighted = not self.is_mounted or self.session_list.highlighted_row is not None
        if not parameters and REGISTRY.get(action) is not None:
            action = "command_key"  # a command's key: typed, it runs with its arguments
        return self.state.offers(action, parameters, row_highlighted=highlighted)

    @on(SessionList.Highlighted)
    def _row_highlighted(self, event: SessionList.Highlighted) -> None:
        """The keys that act on a row come and go with a highlighted row, not with each move."""
        event.stop()
        highlighted = event.row is not None
        if highlighted != self._highlighted:
            self._highlighted = highlighted
            self.refresh_bindings()

    # --- keys that change the state -------------------------------------------------------

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
            for feed in self.query(StoreFeed):  # this machine's index and each mirror's
                feed.build_index()
        self.body.start_over(forget_hits=True)

    def action_rescan(self) -> None:
        """ctrl+r: scan the store again, and say what the scan found once it is done."""
        scope = self.state.scopes.get(self.state.scope_key)  # this machine's: its scan says
        before = scope.rows if scope is not None else ()
        self.start_scan()
        self.query_one(SessionTrash).count(again=True)
        self.query_one(SessionKeeper).read()  # pins and tags changed elsewhere
        self._rescan = (self.state.scan, self.state.scope_key, before)
        if self.hosts:
            self.query_one(HostSyncer).sync()  # and the hosts' mirrors brought up to date

    def action_unreadable(self) -> None:
        """ctrl+g: the sessions that could not be read, with the reason."""
        from zero_tui.ui.screens.dialogs import UnreadableScreen  # 37 ms of the start

        self.app.push_screen(UnreadableScreen(self.state.unreadable))

    def action_delete_session(self) -> None:
        """F8: move the highlighted session, or every marked one, to the trash, once the
        user says yes."""
        trash = self.query_one(SessionTrash)
        if self.state.marked:
            trash.delete_many(self._marked_rows(), self.state.running)
            return
        row = self.session_list.highlighted_row
        refused = self.refusal_on_host("delete")
        if refused is not None:
            self.notify(refused, title="Trash", severity="warning", markup=False)
        elif row is not None:
            trash.delete(row, self.state.running.get(row.session_id))

    # --- pins, tags, the archive and the marks ----------------------------------------------

    def _marked_rows(self) -> list[PickerRow]:
        """The marked rows, in the list's order (a marked row the list no longer shows, as
        after a query, is still acted on)."""
        marked = self.state.marked
        scope = self.state.scope
        rows = scope.rows if scope else ()
        return [row for row in rows if row.host is None and row.session_id in marked]

    def _targets(self, operation: str) -> list[str]:
        """What pin, tag and archive (`operation`) act on: the marked sessions, else the
        highlighted one (a host's is refused)."""
        if self.state.marked:
            return [row.session_id for row in self._marked_rows()]
        row = self.session_list.highlighted_row
        refused = self.refusal_on_host(operation)
        if refused is not None:
            self.notify(refused, title="Flags", severity="warning", markup=False)
            return []
        return [] if row is None else [row.session_id]

    def action_export_dialog(self) -> None:
        """ctrl+s: the highlighted session's export, or with marks, every marked one's into
        a folder the dialog asks for (one file each)."""
        if not self.state.marked:
            super().action_export_dialog()
            return
        from zero_tui.ui.screens.dialogs import ExportDialog

        ids = [row.session_id for row in self._marked_rows()]

        def chosen(request: ExportRequest | None) -> None:
            if request is not None:
                self._export_marked(ids, request, self.command_time())

        title = f"Export {counted(len(ids), 'session')} into a folder (one file each)"
        hint = "a folder, made if missing; empty: the workspace"
        self.app.push_screen(ExportDialog(title, hint), chosen)

    @work(thread=True, group="export", exit_on_error=False)
    def _export_marked(self, ids: list[str], request: ExportRequest, now: datetime) -> None:
        outcome = export_many(self.store, ids, request, workspace=self.workspace, now=now)
        self.post_message(CommandDone("Export", "", outcome))

    def action_mark(self) -> None:
        """ctrl+x: mark or unmark the highlighted row and move on, as fzf's Tab does."""
        row = self.session_list.highlighted_row
        if row is None:
            return
        refused = self.refusal_on_host("mark")  # zero-tui keeps no flags of a mirror's sessions
        if refused is not None:
            self.notify(refused, title="Mark", severity="warning", markup=False)
            return
        self.state = replace(self.state, marked=self.state.marked ^ {row.session_id})
        self.session_list.move(1, wrap=False)

    def action_pin(self) -> None:
        """alt+p: pin (or unpin) the highlighted or marked sessions."""
        if ids := self._targets("pin"):
            self.query_one(SessionKeeper).pin(ids, self.state.flags)

    def action_tag_dialog(self) -> None:
        """alt+t: tag the highlighted or marked sessions."""
        if ids := self._targets("tag"):
            self.query_one(SessionKeeper).tag(ids, self.state.flags)

    def action_archive(self) -> None:
        """alt+a: archive (or unarchive) the highlighted or marked sessions."""
        if ids := self._targets("archive"):
            self.query_one(SessionKeeper).archive(ids, self.state.flags)

    def action_archived(self, show: str) -> None:
        """alt+h: list the archived sessions too, or leave them out again."""
        self.state = replace(self.state, show_archived=show == "show")
        self.body.show_scope(keep_cursor=True)

    def on_flags_read(self, message: FlagsRead) -> None:
        """The flags as read or changed: a change done on marked rows uses the marks up."""
        marked = frozenset[str]() if message.said else self.state.marked
        self.state = replace(self.state, flags=message.book, marked=marked)
        self.body.show_flags()

    def on_trash_counted(self, message: TrashCounted) -> None:
        self.state = replace(self.state, trash_count=message.count)

    def on_session_deleted(self, message: SessionDeleted) -> None:
        """Its row goes at once; the store's follower then says what else moved."""
        if message.outcome.ok:
            self.state = self.state.without_session(message.session_id)
            self.body.remove_session(message.session_id)
            self.feed.follow([message.session_id])

    def action_go_up(self) -> None:
        """alt+up: list the sessions of the nearest enclosing folder that has some."""
        enclosing = self.state.enclosing
        if enclosing:
            self.state = replace(self.state, workspace=enclosing[0][0], enclosing=())
            self.start_scan()
