"""The picker following the store live (issue 17, items 1 and 3), without Textual.

Once a scan has read the whole store, `StoreFollower` keeps what the picker's scopes rest
on: every session's metadata and its `SessionFacts` (a kind Zero resumes? in this
workspace? an empty run?), from which the place of a session in each scope follows. A
batch of changed session ids from the store watcher is read again, and only those
sessions: the catalog looks at their metadata again (a stat each, a read when it
changed), their logs' verdicts and text index are brought up to date, and `apply` says
what changed as `SessionChange`s, each with the facts before and after. The picker's state
(`PickerState.with_changes`) moves each one out of the place it had in each scope and into
its new one, so the rows, the counts and the content search follow without a rescan.

`running` says which sessions an agent is writing now (`zero_tui.agent.running`); the
sessions written in the last seconds are the candidates for its last signal, so no
metadata file is looked at for it. A session that runs is no empty run, even before its
first answer: it is listed, and hidden again only if it ends without one.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from types import MappingProxyType

from zero_tui.agent.running import RECENT_SECONDS, Running, running_sessions
from zero_tui.picker.scopes import ALL_SCOPES, ScopeKey
from zero_tui.picker.session_rows import PickerRow, local_now, picker_row
from zero_tui.picker.session_usage import session_usage
from zero_tui.search.catalog import SessionCatalog
from zero_tui.store import Metadata, SessionStore
from zero_tui.store.resumable import (
    Placement,
    enclosing_workspaces,
    is_empty_run,
    placement,
)
from zero_tui.store.store import UnreadableSession, valid_session_id
from zero_tui.store.token_counts import Tokens
from zero_tui.store.workspace import workspace_matches
from zero_tui.text.labels import parse_rfc3339


@dataclass(frozen=True, slots=True)
class SessionFacts:
    """What decides a session's place in every scope of the picker."""

    resumable: bool  # a kind Zero resumes
    here: bool  # in the picker's workspace
    empty: bool  # an empty run (`is_empty_run`)
    running: bool = False  # an agent writes it now: not an empty run, even without answers

    def placement(self, key: ScopeKey) -> Placement:
        all_workspaces, include_empty = key
        return placement(
            resumable=self.resumable,
            elsewhere=not all_workspaces and not self.here,
            empty=not include_empty and self.empty and not self.running,
        )


def session_facts(
    store: SessionStore, meta: Metadata, workspace: str, content_check: Callable[[str], bool]
) -> SessionFacts:
    resumable = meta.is_resumable_kind
    return SessionFacts(
        resumable=resumable,
        here=workspace_matches(meta.cwd, workspace),
        empty=resumable and is_empty_run(store, meta, content_check),
    )


@dataclass(frozen=True, slots=True)
class SessionChange:
    """One session, before and after: `before` None, it was not listed (new, or
    unreadable); `after` None, it is not now (removed, or unreadable); `row`, its row now."""

    session_id: str
    before: SessionFacts | None
    after: SessionFacts | None
    row: PickerRow | None

    @property
    def kind(self) -> str:
        """`new`, `changed` or `removed`, as ctrl+r counts them."""
        if self.before is None:
            return "new"
        return "removed" if self.after is None else "changed"


@dataclass(frozen=True, slots=True)
class StoreChanged:
    """What one batch of changed sessions did to the store the picker shows."""

    changes: tuple[SessionChange, ...]
    store_total: int
    unreadable: tuple[UnreadableSession, ...]  # all of them now
    enclosing: tuple[tuple[str, int], ...]
    sessions: Mapping[str, Metadata]  # every readable session now, by id (read-only)


@dataclass(frozen=True, slots=True)
class RunningFound:
    """The sessions an agent is writing now, each with where it runs."""

    running: Mapping[str, Running]


def recorded(check: Callable[[str], bool], verdicts: dict[str, bool]) -> Callable[[str], bool]:
    """`check`, remembering each answer in `verdicts` (a scan records what it found)."""

    def recording(session_id: str) -> bool:
        verdict = verdicts[session_id] = check(session_id)
        return verdict

    return recording


class StoreFollower:
    """The store as the last complete scan read it, kept up to date one batch of changed
    sessions at a time. Used from one worker thread at a time."""

    def __init__(
        self,
        store: SessionStore,
        workspace: str,
        catalog: SessionCatalog,
        sessions: Sequence[Metadata],
        verdicts: Mapping[str, bool],
        unreadable: Sequence[UnreadableSession],
        *,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self._store = store
        self._workspace = workspace
        self._catalog = catalog
        self._clock = clock
        self._sessions = {meta.session_id: meta for meta in sessions}
        self._view: Mapping[str, Metadata] = MappingProxyType(dict(self._sessions))

        def check(session_id: str) -> bool:
            verdict = verdicts.get(session_id)
            return catalog.has_content(session_id) if verdict is None else verdict

        self._facts = {
            meta.session_id: session_facts(store, meta, workspace, check) for meta in sessions
        }
        self._unreadable = {entry.session_id: entry for entry in unreadable}
        self._running: frozenset[str] = frozenset()
        self._enclosing = tuple(
            enclosing_workspaces(self._sessions.values(), workspace, catalog.has_content)
        )
        # The candidates for "written just now": the newest sessions (Zero's order is by
        # updatedAt, which Zero writes in UTC, so the order is the time's), then each changed one.
        self._recent: dict[str, Metadata] = {}
        for meta in sessions:
            if not _written_lately(meta):
                break
            self._recent[meta.session_id] = meta

    @property
    def sessions(self) -> Mapping[str, Metadata]:
        """Every readable session, by id (a read-only snapshot, replaced at each change)."""
        return self._view

    def close(self) -> None:
        self._catalog.close()

    def apply(self, session_ids: Iterable[str]) -> StoreChanged | None:
        """Read these sessions again; what changed, or None when nothing did."""
        wanted = sorted(sid for sid in set(session_ids) if valid_session_id(sid))
        catalog = self._catalog
        catalog.revalidate()  # catalogue the new sessions, forget the gone; fresh stats
        keys = catalog.session_keys()
        found = {
            meta.session_id: meta
            for meta in catalog.sessions_with_keys(keys[sid] for sid in wanted if sid in keys)
        }
        now, tz = local_now(self._clock)
        changes: list[SessionChange] = []
        cwds: set[str] = set()
        for session_id in wanted:
            meta = found.get(session_id)
            self._unreadable.pop(session_id, None)
            if meta is None and os.path.isdir(self._store.root / session_id):
                read = self._store.read_session(session_id)  # why not, in the store's words
                if isinstance(read, UnreadableSession):
                    self._unreadable[session_id] = read
                else:
                    meta = read
            old = self._sessions.get(session_id)
            before = self._facts.get(session_id)
            after = None
            if meta is not None:
                after = session_facts(self._store, meta, self._workspace, catalog.has_content)
                after = replace(after, running=session_id in self._running)
            if old == meta and before == after:
                continue
            for known in (old, meta):
                if known is not None:
                    cwds.add(known.cwd)
            if meta is None:
                self._sessions.pop(session_id, None)
                self._facts.pop(session_id, None)
                self._recent.pop(session_id, None)
                changes.append(SessionChange(session_id, before, None, None))
                continue
            self._sessions[session_id] = meta
            assert after is not None
            self._facts[session_id] = after
            self._recent[session_id] = meta
            row = picker_row(meta, now, tz, self._sessions)
            changes.append(SessionChange(session_id, before, after, row))
        catalog.save()
        if not changes:
            return None
        self._view = MappingProxyType(dict(self._sessions))
        if any(_encloses(cwd, self._workspace) for cwd in cwds):
            self._enclosing = tuple(
                enclosing_workspaces(self._sessions.values(), self._workspace, catalog.has_content)
            )
        return self._changed(changes)

    def _changed(self, changes: list[SessionChange]) -> StoreChanged:
        return StoreChanged(
            tuple(changes),
            len(self._sessions),
            tuple(sorted(self._unreadable.values(), key=lambda entry: entry.session_id)),
            self._enclosing,
            self._view,
        )

    def usage(self, session_ids: Iterable[str]) -> dict[str, Tokens]:
        """The tokens of these sessions that are in the store now."""
        wanted = [sid for sid in sorted(set(session_ids)) if sid in self._sessions]
        return session_usage(self._catalog, wanted)

    def update_index(self, session_ids: Iterable[str]) -> bool:
        """Bring the text index up to date for these sessions; whether it indexed any."""
        wanted = [sid for sid in sorted(set(session_ids)) if sid in self._sessions]
        if not wanted:
            return False
        return self._catalog.update_content(wanted).indexed > 0

    def running(self) -> tuple[RunningFound, StoreChanged | None]:
        """The sessions an agent is writing now (every signal of `running_sessions`, the
        last one for the sessions written in the last seconds), and the empty runs that
        move in or out of the scopes as they start or stop running."""
        for session_id, meta in list(self._recent.items()):
            if not _written_lately(meta):
                del self._recent[session_id]
        found = running_sessions(self._store, recent=list(self._recent.values()), process_age=0)
        now_running = frozenset(found)
        flipped = sorted((now_running ^ self._running) & self._facts.keys())
        self._running = now_running
        changes: list[SessionChange] = []
        if flipped:
            now, tz = local_now(self._clock)
            for session_id in flipped:
                before = self._facts[session_id]
                after = self._facts[session_id] = replace(before, running=session_id in now_running)
                if any(before.placement(key) != after.placement(key) for key in ALL_SCOPES):
                    row = picker_row(self._sessions[session_id], now, tz, self._sessions)
                    changes.append(SessionChange(session_id, before, after, row))
        moved = self._changed(changes) if changes else None
        return RunningFound(MappingProxyType(found)), moved


def _written_lately(meta: Metadata) -> bool:
    """Updated within the window `running_sessions` looks at for its last signal."""
    moment = parse_rfc3339(meta.updated_at)
    return moment is not None and time.time() - moment.timestamp() < RECENT_SECONDS + 2


def _encloses(cwd: str, workspace: str) -> bool:
    """Whether sessions of `cwd` may count among the folders above `workspace`."""
    folder = cwd.strip().rstrip("/")
    return bool(folder) and workspace.strip().startswith(folder + "/")
