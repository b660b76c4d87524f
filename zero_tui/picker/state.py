"""The picker's state: one frozen value, and everything the picker shows from it.

The picker screen holds one `PickerState` and redraws when it is given a new one (a change
is `dataclasses.replace`, or `with_stage` for a loader stage). Derived here, without
Textual: the status line, the empty state, the list's empty message, the title, the
query's placeholder and which keys the footer offers.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, tzinfo
from typing import assert_never

from zero_tui.agent.running import Running
from zero_tui.picker.hint_keys import DEFAULT_HINT_KEYS, HintKeys
from zero_tui.picker.host_rows import HostSync, freshness, hidden_sum, in_zero_order
from zero_tui.picker.live import RunningFound, StoreChanged
from zero_tui.picker.loader import (
    ChangesDone,
    EnclosingFolders,
    LoadStage,
    RememberedRows,
    ScanDone,
    ScanFailed,
    ScanProgress,
    ScopeLoaded,
    UnreadableFound,
    UsageFound,
)
from zero_tui.picker.scopes import HiddenCounts, ScopeKey, empty_list_message
from zero_tui.picker.session_rows import (
    PickerRow,
    insert_in_zero_order,
    picker_title,
    query_placeholder,
    scanning_text,
    status_text,
)
from zero_tui.picker.store_watch import NOTIFICATION
from zero_tui.store import Metadata
from zero_tui.store.session_flags import EMPTY_BOOK, FlagBook
from zero_tui.store.store import UnreadableSession
from zero_tui.store.token_counts import Tokens
from zero_tui.text.sanitize import sanitize_line


@dataclass(frozen=True, slots=True)
class ScopeRows:
    """One scope of the picker, as far as the scan has got."""

    rows: tuple[PickerRow, ...] = ()
    hidden: HiddenCounts = field(default_factory=HiddenCounts)
    complete: bool = False


def stage_keys(stage: LoadStage) -> tuple[ScopeKey, ...] | None:
    """The scopes a loader stage changes, when it changes one only (None: any of them)."""
    match stage:
        case ScopeLoaded(key=key) | RememberedRows(scope=ScopeLoaded(key=key)):
            return (key,)
        case _:
            return None


@dataclass(frozen=True, slots=True)
class PickerState:
    """What the picker knows and shows, but the list's own rows and cursor."""

    store_root: str = ""
    workspace: str = ""
    all_workspaces: bool = False  # Tab
    include_empty: bool = False  # ctrl+e
    content_mode: bool = False  # ctrl+t: search what was said instead of titles
    query: str = ""  # as ranked: stripped, lower case
    content_text: str = ""  # as typed (content queries keep their case)
    scan: int = 0  # the current scan: a stage of an older one is dropped
    scopes: Mapping[ScopeKey, ScopeRows] = field(default_factory=dict)
    store_total: int | None = None  # sessions in the store; None until a scan says
    scan_error: str | None = None
    scan_progress: tuple[int, int] | None = None  # while a cold scan reads
    unreadable: tuple[UnreadableSession, ...] = ()
    enclosing: tuple[tuple[str, int], ...] = ()  # folders above with sessions
    shown: int = 0  # rows the list shows
    content_status: str = ""  # what the last content search said
    index_progress: tuple[int, int] | None = None  # while the text index is built
    index_ready: bool = False
    live: bool = False  # the scan is done: the store's changes arrive one by one
    sessions: Mapping[str, Metadata] | None = None  # the store's, by id, once live
    running: Mapping[str, Running] = field(default_factory=dict)  # written by an agent now
    watch_mode: str = ""  # how the store's changes are found (StoreWatcher.mode)
    usage: Mapping[str, Tokens] = field(default_factory=dict)  # tokens, by session id
    trash_count: int = 0  # this store's sessions in zero-tui's trash
    hosts: Mapping[str, PickerState] = field(default_factory=dict)  # each mirror's, by host
    merged: Mapping[ScopeKey, ScopeRows] = field(default_factory=dict)  # every store's rows
    syncs: Mapping[str, HostSync] = field(default_factory=dict)  # each host's last word
    host_time: tuple[datetime, tzinfo | None] | None = None  # what a sync's age is told by
    flags: FlagBook = EMPTY_BOOK  # pins, tags and the archive (zero-tui's own)
    show_archived: bool = False  # alt+h
    archived_hidden: int = 0  # the scope's archived rows the list leaves out
    marked: frozenset[str] = frozenset()  # ctrl+x: the rows the next action acts on
    keys: HintKeys = DEFAULT_HINT_KEYS  # the keys its lines name, as the user moved them

    @property
    def scope_key(self) -> ScopeKey:
        return (self.all_workspaces, self.include_empty)

    @property
    def scope(self) -> ScopeRows | None:
        """The current scope, None until the scan has posted some of it; with hosts, the
        rows of this machine's store and of each host's mirror as one list."""
        return (self.merged if self.hosts else self.scopes).get(self.scope_key)

    def with_host_stage(self, host: str, stage: LoadStage) -> PickerState:
        """The state once a stage of `host`'s mirror is in (folded as a local one is)."""
        before = self.hosts.get(host)
        if before is None:
            return self
        after = before.with_stage(stage)
        if after is before:
            return self
        state = replace(self, hosts={**self.hosts, host: after})
        return state.remerged(stage_keys(stage)) if after.scopes is not before.scopes else state

    def remerged(self, keys: Collection[ScopeKey] | None = None) -> PickerState:
        """The state with every store's rows merged again (only with hosts): the scopes
        `keys` (None: all of them, and only those the stores have)."""
        if not self.hosts:
            return self
        merged: dict[ScopeKey, ScopeRows] = {}
        if keys is None:
            keys = set(self.scopes).union(*(host.scopes for host in self.hosts.values()))
        else:
            merged.update(self.merged)
        for key in keys:
            local = self.scopes.get(key)
            parts = [local, *(host.scopes.get(key) for host in self.hosts.values())]
            scopes = [part for part in parts if part is not None]
            merged[key] = ScopeRows(
                in_zero_order(part.rows for part in scopes),
                hidden_sum(part.hidden for part in scopes),
                complete=local is not None and local.complete,
            )
        return replace(self, merged=merged)

    def with_sync(self, sync: HostSync) -> PickerState:
        return replace(self, syncs={**self.syncs, sync.host: sync})

    def with_stage(self, stage: LoadStage) -> PickerState:
        """The state once the loader's `stage` is in (this very state if it changes none
        of it: no redraw)."""
        state = self._with_stage(stage)
        if state.hosts and state.scopes is not self.scopes:
            return state.remerged(stage_keys(stage))
        return state

    def _with_stage(self, stage: LoadStage) -> PickerState:
        match stage:
            case RememberedRows(scope=ScopeLoaded() as remembered):
                return self.with_rows(remembered)
            case RememberedRows() | ChangesDone():
                return self
            case ScopeLoaded():
                return self.with_rows(stage)
            case ScanProgress(done=done, total=total):
                return replace(self, scan_progress=(done, total) if done < total else None)
            case UnreadableFound(sessions=sessions):
                return replace(self, unreadable=sessions)
            case EnclosingFolders(folders=folders):
                return replace(self, enclosing=folders)
            case ScanFailed(error=error):
                return replace(self, scan_error=error, store_total=0)
            case ScanDone(sessions=sessions):
                return replace(self, live=True, sessions=sessions)
            case StoreChanged():
                return self.with_changes(stage)
            case RunningFound(running=running):
                return replace(self, running=running)
            case UsageFound(usage=usage):
                return self.with_usage(usage)
            case _:
                assert_never(stage)

    def with_rows(self, loaded: ScopeLoaded) -> PickerState:
        """The state once the loader's `loaded` rows are in."""
        before = self.scopes.get(loaded.key, ScopeRows())
        rows = tuple(loaded.rows) if loaded.replace else (*before.rows, *loaded.rows)
        scope = ScopeRows(rows, loaded.hidden, loaded.complete)
        return replace(
            self,
            scopes={**self.scopes, loaded.key: scope},
            store_total=loaded.store_total,
            scan_error=None,
            scan_progress=None if loaded.complete else self.scan_progress,
        )

    def with_changes(self, changed: StoreChanged) -> PickerState:
        """The state once a batch of the store's changes is in: each changed session leaves
        the place it had in every scope and takes its new one (rows in Zero's order)."""
        gone = {change.session_id for change in changed.changes}
        scopes: dict[ScopeKey, ScopeRows] = {}
        for key, scope in self.scopes.items():
            hidden = scope.hidden
            rows = [row for row in scope.rows if row.session_id not in gone]
            for change in changed.changes:
                before = change.before.placement(key) if change.before is not None else None
                after = change.after.placement(key) if change.after is not None else None
                hidden = hidden.moved(before, after)
                if after == "listed" and change.row is not None:
                    insert_in_zero_order(rows, change.row)
            scopes[key] = ScopeRows(tuple(rows), hidden, scope.complete)
        running = {sid: found for sid, found in self.running.items() if sid in changed.sessions}
        return replace(
            self,
            scopes=scopes,
            store_total=changed.store_total,
            unreadable=changed.unreadable,
            enclosing=changed.enclosing,
            sessions=changed.sessions,
            running=running,
        )

    def with_usage(self, found: Mapping[str, Tokens]) -> PickerState:
        """The state once more sessions' tokens are known."""
        return replace(self, usage={**self.usage, **found})

    def without_session(self, session_id: str) -> PickerState:
        """The state once a session left the store (deleted here): its row goes from every
        scope at once; the store's follower then says the rest (counts, the store's size)."""
        scopes = {
            key: replace(scope, rows=tuple(r for r in scope.rows if r.session_id != session_id))
            for key, scope in self.scopes.items()
        }
        return replace(self, scopes=scopes, marked=self.marked - {session_id}).remerged()

    @property
    def polling(self) -> bool:
        return self.watch_mode.startswith("polling")

    def running_in_scope(self) -> int:
        """How many of the current scope's sessions an agent is writing now."""
        scope = self.scope
        if scope is None or not self.running:
            return 0
        return sum(1 for row in scope.rows if row.host is None and row.session_id in self.running)

    def live_note(self) -> str:
        """How the picker follows the store, for /help and the palette."""
        if not self.watch_mode:
            return "changes in the store show up as they happen"
        return f"changes in the store show up as they happen ({self.watch_mode})"

    # --- what the picker shows -----------------------------------------------------------

    @property
    def shown_workspace(self) -> str:
        """The workspace as it may be shown: a path is data (escape sequences made visible)."""
        return sanitize_line(self.workspace)

    @property
    def shown_store(self) -> str:
        return sanitize_line(str(self.store_root))

    def title(self) -> str:
        return picker_title(self.workspace, content_mode=self.content_mode)

    def placeholder(self) -> str:
        return query_placeholder(content_mode=self.content_mode, keys=self.keys)

    def status(self) -> str:
        """The status line: what is shown, what the scope hides and why, how far the scan
        and the text index have got."""
        scope = self.scope
        if self.empty:
            return f"0 sessions · store {self.shown_store}"
        if scope is None:
            return scanning_text(self.scan_progress)
        line = status_text(
            shown=self.shown,
            total_in_scope=len(scope.rows),
            query=self.query,
            all_workspaces=self.all_workspaces,
            include_empty=self.include_empty,
            other_workspace=scope.hidden.other_workspace,
            empty_runs=scope.hidden.empty_runs,
            not_resumable=scope.hidden.not_resumable,
            unreadable=len(self.unreadable),
            running=self.running_in_scope(),
            polling=self._polling_status(),
            loading=not scope.complete,
            scanned=self.scan_progress,
            enclosing=self.enclosing,
            trashed=self.trash_count,
            keys=self.keys,
        )
        # the archive and the marks right after the count: a narrow screen cuts the end
        first, gap, rest = line.partition(" · ")
        return first + self._kept_status() + gap + rest + self._content_status()

    def _kept_status(self) -> str:
        """What the status line says of the archive and the marks."""
        parts = []
        if self.show_archived:
            parts.append(f"archived shown ({self.keys.archived}: hide)")
        elif self.archived_hidden:
            parts.append(f"{self.archived_hidden:,} archived ({self.keys.archived}: show)")
        if self.marked:
            parts.append(f"{len(self.marked):,} marked ({self.keys.clear}: clear)")
        return "".join(" · " + part for part in parts)

    @property
    def empty(self) -> bool:
        """No session to list: the local store is empty and no host is listed."""
        return self.store_total == 0 and not self.hosts

    def hosts_status(self) -> str:
        """The line under the status line, with hosts: each one's freshness (`devbox synced
        8 s ago · ci unreachable since 10:42 — showing its copy from 10:40`)."""
        if not self.syncs or self.host_time is None:
            return ""
        now, tz = self.host_time
        return " · ".join(freshness(sync, now, tz) for sync in self.syncs.values())

    def _polling_status(self) -> str:
        """The status line's word on polling (said only then: notification is the norm),
        also of the sessions notification leaves out (the inotify watch limit reached)."""
        if not self.polling:
            notified, _, polled = self.watch_mode.partition(", ")
            return polled if notified == NOTIFICATION else ""
        interval = self.watch_mode.split(" (", 1)[0].removeprefix("polling ")
        return f"polling the store {interval}"

    def _content_status(self) -> str:
        if not self.content_mode:
            return ""
        parts = ["content search"]
        if self.content_status:
            parts.append(self.content_status)
        if self.index_progress is not None:
            done, total = self.index_progress
            parts.append(f"indexing {done:,}/{total:,} · results may be incomplete")
        elif not self.index_ready:
            parts.append("indexing… · results may be incomplete")
        return " · " + " · ".join(parts)

    def list_empty_message(self) -> str:
        """What the list says when it shows no row."""
        scope = self.scope
        return empty_list_message(
            scope.hidden if scope is not None else None,
            scanned=scope is not None and (scope.complete or bool(scope.rows)),
            query=self.query,
            all_workspaces=self.all_workspaces,
            include_empty=self.include_empty,
            keys=self.keys,
        )

    def empty_state(self) -> str:
        """What the picker says in place of the list when the store has no session."""
        if self.scan_error is not None:
            return (
                "The session store could not be read.\n\n"
                f"  {sanitize_line(self.scan_error)}\n\n"
                f"Store: {self.shown_store}\n"
                "Check the directory's permissions, or point zero-tui at another store "
                "with --store DIR."
            )
        return (
            "No Zero sessions yet.\n\n"
            f"Store: {self.shown_store}\n\n"
            "Zero saves every conversation there: run `zero` in a project, chat, and the "
            "session shows up here as it is written.\n"
            "Or start one from here: type /new, then your first prompt.\n"
            "Other places: zero-tui --store DIR · a tour with sample sessions: zero-tui --demo\n\n"
            f"{self.keys.rescan} scans again · ctrl+q quits"
        )

    # --- the keys on offer ---------------------------------------------------------------

    def offers(self, action: str, parameters: tuple[object, ...], *, row_highlighted: bool) -> bool:
        """Whether the key for `action(parameters)` works now: the footer shows only those
        (the toggles show the way they would go). `row_highlighted`: a row to act on."""
        if action == "go_up":
            return bool(self.enclosing)
        if action == "scope":
            return parameters == (("this",) if self.all_workspaces else ("all",))
        if action == "empty":
            return parameters == (("hide",) if self.include_empty else ("show",))
        if action == "search_mode":
            return parameters == (("title",) if self.content_mode else ("content",))
        if action == "open":
            return row_highlighted and not self.empty
        if action == "unreadable":
            return bool(self.unreadable)
        if action in ("export_dialog", "command_key"):  # the registry's keys act on a row
            return not self.empty
        if action in ("delete_session", "pin", "tag_dialog", "archive", "mark"):
            return (row_highlighted or bool(self.marked)) and not self.empty
        if action == "archived":
            return parameters == (("hide",) if self.show_archived else ("show",))
        return True

    def offer_facts(self) -> tuple[object, ...]:
        """What `offers` reads, and the store's size: the footer is redrawn when they change."""
        return (
            self.store_total,
            self.all_workspaces,
            self.include_empty,
            self.content_mode,
            bool(self.enclosing),
            bool(self.unreadable),
            self.show_archived,
            bool(self.marked),
        )
