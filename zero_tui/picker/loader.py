"""Where the picker's rows come from, stage by stage, without Textual.

A picker start shows the rows remembered from the last run first (one small file, no store
IO), then the catalog's rows, then the store's truth for every scope, the current one
first; the scope is filtered in chunks, so the first rows come before a big store is
filtered. With nothing remembered or catalogued (a cold start), a first screen of the
newest sessions comes before every metadata file is read.

`PickerLoader` does that work in two steps, `remembered` and `scan`: the picker paints the
remembered rows between them. Each step hands every stage to `post` as it comes: a thread
worker runs a step and posts its stages as messages; the screen folds them into its state.
A step stops between stages once `cancelled()`. Progress arrives from inside the catalog's
refresh, which is why the steps post their stages rather than yield them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, tzinfo
from pathlib import Path

from zero_tui.paths import default_cache_dir
from zero_tui.picker.head_cache import ScopeHead, head_path, load_head, save_head
from zero_tui.picker.live import RunningFound, StoreChanged, StoreFollower, recorded
from zero_tui.picker.preview_data import PreviewData, build_preview, missing_preview
from zero_tui.picker.scopes import (
    ALL_SCOPES,
    FirstScreen,
    HiddenCounts,
    ScopeKey,
    ScopeScan,
    first_screen,
)
from zero_tui.picker.session_rows import PickerRow, head_rows, local_now, picker_rows
from zero_tui.picker.session_usage import session_usage
from zero_tui.search.catalog import SessionCatalog
from zero_tui.store import Metadata, SessionStore, StoreError
from zero_tui.store.resumable import enclosing_workspaces
from zero_tui.store.store import UnreadableSession
from zero_tui.store.token_counts import Tokens
from zero_tui.transcript.turns import parent_link

USAGE_CHUNK = 500  # sessions whose tokens one UsageFound carries
FIRST_CHUNK = 64  # sessions filtered before the first rows are posted
FIRST_SCREEN_ROWS = 60  # rows a cold start shows before every metadata file is read
FIRST_SCREEN_READS = 2048  # metadata files it reads for them at the most
CHUNK = 2048


@dataclass(frozen=True, slots=True)
class ScopeLoaded:
    """Rows of one scope: `replace` starts the scope over, else `rows` extend it."""

    key: ScopeKey
    rows: list[PickerRow]
    hidden: HiddenCounts
    store_total: int
    complete: bool
    replace: bool


@dataclass(frozen=True, slots=True)
class RememberedRows:
    """The first scope as the last run left it (`scope` None: nothing remembered). The
    store's scan comes next, once these rows are painted."""

    key: ScopeKey
    scope: ScopeLoaded | None


@dataclass(frozen=True, slots=True)
class ScanProgress:
    """A scan with nothing to show yet: `done` of `total` session directories read."""

    done: int
    total: int


@dataclass(frozen=True, slots=True)
class UnreadableFound:
    """The session directories the scan could not read, with why (design §3.9)."""

    sessions: tuple[UnreadableSession, ...]


@dataclass(frozen=True, slots=True)
class EnclosingFolders:
    """The folders above the workspace with sessions the picker would list there."""

    folders: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class ScanFailed:
    """The store could not be listed at all (the picker shows the reason)."""

    error: str


@dataclass(frozen=True, slots=True)
class ScanDone:
    """The whole store is read, every scope posted: from now on, its changes come one
    batch at a time (`PickerLoader.changes`). `sessions`: the store's, by id."""

    sessions: Mapping[str, Metadata]


@dataclass(frozen=True, slots=True)
class UsageFound:
    """The tokens of some listed sessions (catalog.session_usage), the newest first: the
    rest follow in further stages."""

    usage: Mapping[str, Tokens]


@dataclass(frozen=True, slots=True)
class ChangesDone:
    """A batch of changes is read; `indexed`: the text index took some in."""

    indexed: bool


LoadStage = (
    RememberedRows
    | ScopeLoaded
    | ScanProgress
    | UnreadableFound
    | EnclosingFolders
    | ScanFailed
    | ScanDone
    | StoreChanged
    | RunningFound
    | UsageFound
    | ChangesDone
)
Post = Callable[[LoadStage], None]
Cancelled = Callable[[], bool]
LoadStep = Callable[[Post, Cancelled], None]
"""One step of a load: `PickerLoader.remembered`, `scan` with its `shown` given, or
`changes` with its sessions given."""


def _first_screen(
    store: SessionStore,
    workspace: str,
    first: ScopeKey,
    content_check: Callable[[str], bool],
    cancelled: Cancelled = lambda: False,
) -> FirstScreen | None:
    """`first_screen` within a cold start's bounds: its rows, its reads, its batch."""
    return first_screen(
        store,
        workspace,
        first,
        content_check,
        rows=FIRST_SCREEN_ROWS,
        reads=FIRST_SCREEN_READS,
        batch=FIRST_CHUNK,
        cancelled=cancelled,
    )


class PickerLoader:
    """The picker's rows of `store` for `workspace`, the scope `first` before the others.

    `cache_dir` holds the catalog and the remembered rows (default: zero-tui's cache);
    `clock` gives the time the rows' labels count from (default: now, in the local zone).
    """

    def __init__(
        self,
        store: SessionStore,
        workspace: str,
        first: ScopeKey,
        *,
        cache_dir: Path | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self._store = store
        self._workspace = workspace
        self._first = first
        self._cache_dir = cache_dir
        self._clock = clock
        self._follower: StoreFollower | None = None

    def _head_path(self) -> Path:
        cache_dir = self._cache_dir or default_cache_dir()
        return head_path(cache_dir, self._store.root, self._workspace)

    def remembered(self, post: Post, cancelled: Cancelled = lambda: False) -> None:
        """Post the first scope's rows remembered from the last run (no store IO)."""
        head = load_head(self._head_path(), self._store.root, self._workspace).get(self._first)
        if not cancelled():
            post(self.remembered_rows(head))

    def remembered_rows(self, head: ScopeHead | None) -> RememberedRows:
        """The stage `remembered` posts for the first scope's remembered `head`."""
        key = self._first
        loaded = None
        if head is not None and head.sessions:
            now, tz = local_now(self._clock)
            hidden = HiddenCounts(head.other_workspace, head.empty_runs, head.not_resumable)
            rows = head_rows(head.sessions, now, tz)
            loaded = ScopeLoaded(key, rows, hidden, head.store_total, complete=False, replace=True)
        return RememberedRows(key, loaded)

    def scan(self, post: Post, cancelled: Cancelled = lambda: False, *, shown: bool) -> None:
        """Post the catalog's rows, then the store's truth for every scope (the first one
        first), and remember the first rows of each for the next start. `shown`: rows are
        on screen already, so each scope comes in one piece (no list that shrinks while it
        fills again)."""
        now, tz = local_now(self._clock)
        catalog = SessionCatalog(self._store, self._cache_dir)
        verdicts: dict[str, bool] = {}
        content_check = recorded(catalog.has_content, verdicts)
        first = self._first
        tokens_said: set[str] = set()

        def post_tokens(session_ids: list[str]) -> None:
            """Each session's tokens once, as soon as its row is known."""
            wanted = [sid for sid in dict.fromkeys(session_ids) if sid not in tokens_said]
            tokens_said.update(wanted)
            self._post_usage(post, cancelled, catalog, wanted)

        cached = catalog.cached_sessions()
        if cached and not cancelled():
            on_screen: list[str] = []
            self._post_scope(
                post,
                cancelled,
                first,
                cached,
                content_check,
                now,
                tz,
                whole=shown,
                listed=on_screen,
            )
            shown = True
            # the catalog remembers them: the rows shown from it get theirs at once (each
            # log's stat says whether what is remembered still holds)
            post_tokens(on_screen[:USAGE_CHUNK])
        elif not shown:
            shown = self._post_first_screen(post, cancelled, content_check, now, tz)

        def progress(done: int, total: int) -> None:
            post(ScanProgress(done, total))

        try:
            sessions = catalog.refresh(progress=None if cached else progress)
        except (StoreError, OSError) as error:
            post(ScanFailed(str(error)))
            return
        unreadable = tuple(catalog.unreadable)
        post(UnreadableFound(unreadable))
        folders = enclosing_workspaces(sessions, self._workspace, content_check)
        post(EnclosingFolders(tuple(folders)))
        heads: dict[ScopeKey, ScopeHead] = {}
        verdicts.clear()  # the scopes' verdicts: what the state's rows rest on
        listed: list[str] = []  # the first scope's sessions: their tokens come first
        for key in (first, *(key for key in ALL_SCOPES if key != first)):
            if cancelled():
                return
            heads[key] = self._post_scope(
                post,
                cancelled,
                key,
                sessions,
                content_check,
                now,
                tz,
                whole=shown,
                final=True,
                listed=listed if key == first else None,
            )
            if key == first:
                # The first screen is final: remembered now, not once every scope is filtered
                # (seconds at 50,000 sessions), so that a picker quit meanwhile starts warm;
                # and its rows' tokens now, not once every scope is.
                self._remember(heads)
                post_tokens(listed)
        catalog.save()
        self._remember(heads)
        follower = StoreFollower(
            self._store,
            self._workspace,
            catalog,
            sessions,
            verdicts,
            unreadable,
            clock=self._clock,
        )
        self._follower = follower
        if not cancelled():
            post(ScanDone(follower.sessions))
        post_tokens([meta.session_id for meta in sessions if meta.is_resumable_kind])

    @staticmethod
    def _post_usage(
        post: Post, cancelled: Cancelled, catalog: SessionCatalog, session_ids: list[str]
    ) -> None:
        """The tokens of `session_ids` (each once, in that order: `scan`'s `post_tokens`
        says each once), a chunk at a time: the catalog remembers them, a cold one reads
        each log."""
        for start in range(0, len(session_ids), USAGE_CHUNK):
            if cancelled():
                return
            found = session_usage(catalog, session_ids[start : start + USAGE_CHUNK])
            if not cancelled():
                post(UsageFound(found))

    def _remember(self, heads: dict[ScopeKey, ScopeHead]) -> None:
        """Write `heads` for the next start, keeping the remembered scopes they lack."""
        path = self._head_path()
        known = load_head(path, self._store.root, self._workspace)
        save_head(path, self._store.root, self._workspace, {**known, **heads})

    def close(self) -> None:
        """Let go of the catalog the scan handed on (its writes are saved first)."""
        follower, self._follower = self._follower, None
        if follower is not None:
            follower.close()

    def changes(
        self, session_ids: frozenset[str], post: Post, cancelled: Cancelled = lambda: False
    ) -> None:
        """Read the sessions `session_ids` again (after `scan`), post what changed and
        which sessions run now, then bring their text index up to date. No sessions: only
        which run now."""
        follower = self._follower
        if follower is None:
            return
        if session_ids:
            changed = follower.apply(session_ids)
            if changed is not None and not cancelled():
                post(changed)
            usage = follower.usage(session_ids)
            if usage and not cancelled():
                post(UsageFound(usage))
        running, moved = follower.running()
        if moved is not None and not cancelled():
            post(moved)
        if not cancelled():
            post(running)
        indexed = bool(session_ids) and follower.update_index(session_ids)
        if not cancelled():
            post(ChangesDone(indexed))

    def _post_first_screen(
        self,
        post: Post,
        cancelled: Cancelled,
        content_check: Callable[[str], bool],
        now: datetime,
        tz: tzinfo | None,
    ) -> bool:
        """Nothing remembered (a cold start): the newest sessions by their files' times,
        posted while every metadata file is read. Whether any were posted."""
        found = _first_screen(self._store, self._workspace, self._first, content_check, cancelled)
        if found is None:
            return False
        parents = {meta.session_id: meta for meta in found.sessions}
        rows = picker_rows(found.sessions, now, tz, parents)
        post(ScopeLoaded(self._first, rows, found.hidden, found.read, complete=False, replace=True))
        return True

    def _post_scope(
        self,
        post: Post,
        cancelled: Cancelled,
        key: ScopeKey,
        sessions: list[Metadata],
        content_check: Callable[[str], bool],
        now: datetime,
        tz: tzinfo | None,
        *,
        whole: bool,
        final: bool = False,
        listed: list[str] | None = None,
    ) -> ScopeHead:
        """Filter `sessions` into the scope `key` and post it, the newest chunk first
        (`whole`: in one chunk); `final`: the store's truth, complete with the last chunk."""
        scan = ScopeScan(self._store, self._workspace, key, sessions, content_check)
        first = len(sessions) if whole else FIRST_CHUNK
        for chunk in scan.chunks(first, CHUNK, cancelled=cancelled):
            rows = picker_rows(chunk.sessions, now, tz, scan.parents)
            if listed is not None:
                listed.extend(row.session_id for row in rows)
            complete = final and chunk.last
            post(ScopeLoaded(key, rows, chunk.hidden, len(sessions), complete, chunk.first))
        return scan.head()


def load_preview(
    store: SessionStore, session_id: str, clock: Callable[[], datetime] | None = None
) -> PreviewData:
    """The preview of one session (its facts and last exchanges), or why there is none."""
    _now, tz = local_now(clock)
    try:
        meta = store.get(session_id)
        if meta is None:
            return missing_preview(session_id, f"zero session not found: {session_id}")
        try:
            events, notice = store.read_events_for_display(session_id)
        except StoreError as failure:
            events, notice = [], str(failure)
        link = parent_link(store, meta)  # a fork's: its parent's log, read for the turn
        lineage = link.describe() if link is not None else ""
        return build_preview(meta, events, tz=tz, error=notice or "", lineage=lineage)
    except StoreError as failure:
        return missing_preview(session_id, str(failure))
