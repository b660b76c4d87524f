"""A fork of a session up to any of its events, exactly as Zero's `Store.Fork` would have
written it had the parent ended there (design §3.11; Zero's internal/sessions/store.go).

Zero forks a whole session. `fork_session(store, parent, at_sequence=N)` writes what
Zero's Fork writes for a parent whose last event is N:

1. the parent's events are read with Zero's rules (a torn tail dropped, any other bad line
   an error), under the parent's lock for a consistent read, and cut after the event with
   sequence N (the last one by default);
2. a new session of kind `fork` is created as Zero's Create does: the title given, else
   `<parent title> (fork)`, else none; cwd, model and provider the parent's;
   `parentSessionId`, `rootSessionId` (the parent's root, else the parent), and
   `forkedFromEventId`/`forkedFromSequence` naming event N;
3. the kept events but `provider_usage` are appended in one locked batch with their payload
   bytes (new ids and sequences 1..k, the times of the copy), as Zero copies them;
4. the parent's checkpoint blobs are copied (0600, atomically, never over a name already
   there). Unlike Zero, only regular files: a symlink among them is not followed out of
   the store;
5. a `session_fork` event closes it, with Zero's five keys: `copiedEventCount`,
   `forkedFromEventId`, `forkedFromSequence`, `parentEventCount` (N; at the parent's last
   event, its metadata's eventCount, as Zero reads it) and `parentSessionId`.

Lock order: the parent's, then the fork's; nothing waits on Zero while holding either.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

from zero_tui.atomic import AtomicWriteError, write_atomic
from zero_tui.store.errors import StoreError
from zero_tui.store.gotext import trim_space
from zero_tui.store.models import Event, Metadata
from zero_tui.store.store import SessionStore, os_reason, read_regular
from zero_tui.store.token_counts import USAGE_EVENT

FORK_KIND = "fork"
FORK_EVENT = "session_fork"
BLOBS = Path("checkpoints") / "blobs"


def fork_session(
    store: SessionStore,
    parent_id: str,
    *,
    at_sequence: int | None = None,
    title: str = "",
    session_id: str | None = None,
    refuse: Callable[[], str | None] | None = None,
) -> Metadata:
    """Write a fork of `parent_id` holding its events up to `at_sequence` (default: all).

    StoreError (one line) for an unknown parent, an unreadable log, or a sequence the
    parent does not have. `refuse`, asked under the parent's lock when the fork takes the
    parent's last event (a turn an agent may be writing): why not, else None. Returns the
    fork's final metadata.
    """
    if store.get(parent_id) is None:
        raise StoreError(f"zero session not found: {parent_id}")
    with store.locked(parent_id):
        parent = store.get(parent_id)
        if parent is None:
            raise StoreError(f"zero session not found: {parent_id}")
        events = store.read_events(parent_id)
        kept = _events_through(events, at_sequence, parent_id)
        last = kept[-1] if kept else None
        at_end = last is None or last is events[-1]
        refusal = refuse() if refuse is not None and at_end else None
        if refusal is not None:
            raise StoreError(refusal)
    parent_event_count = parent.event_count if at_end or last is None else last.sequence
    fork = store.create(
        session_id,
        title=trim_space(title) or (f"{parent.title} (fork)" if parent.title else ""),
        cwd=parent.cwd,
        model_id=parent.model_id,
        provider=parent.provider,
        session_kind=FORK_KIND,
        parent_session_id=parent_id,
        root_session_id=parent.root_session_id or parent.session_id,
        forked_from_event_id=last.id if last is not None else "",
        forked_from_sequence=last.sequence if last is not None else 0,
    )
    copies: list[tuple[str, object]] = [
        (event.type, event.payload_raw) for event in kept if event.type != USAGE_EVENT
    ]
    store.append_events(fork.session_id, copies)
    _copy_blobs(store, parent_id, fork.session_id)
    marker = {
        "copiedEventCount": len(copies),
        "forkedFromEventId": last.id if last is not None else "",
        "forkedFromSequence": last.sequence if last is not None else 0,
        "parentEventCount": parent_event_count,
        "parentSessionId": parent_id,
    }
    store.append_events(fork.session_id, [(FORK_EVENT, marker)])
    final = store.get(fork.session_id)
    if final is None:  # removed under our feet
        raise StoreError(f"zero session not found: {fork.session_id}")
    return final


def _events_through(events: list[Event], at_sequence: int | None, parent_id: str) -> list[Event]:
    if at_sequence is None:
        return events
    for index, event in enumerate(events):
        if event.sequence == at_sequence:
            return events[: index + 1]
    raise StoreError(f"zero session {parent_id} has no event with sequence {at_sequence}")


def _copy_blobs(store: SessionStore, parent_id: str, fork_id: str) -> None:
    source = store.session_dir(parent_id) / BLOBS
    try:
        names = sorted(os.listdir(source))
    except FileNotFoundError:
        return
    except OSError as error:
        raise StoreError(f"copy zero session checkpoints: {os_reason(error)}") from None
    target = store.session_dir(fork_id) / BLOBS
    for name in names:
        path = source / name
        try:
            if not stat.S_ISREG(os.lstat(path).st_mode):
                continue  # a directory, a symlink, a special file: never followed or copied
            if os.path.lexists(target / name):
                continue
            data = read_regular(path)
            for directory in (target.parent, target):
                directory.mkdir(mode=0o700, exist_ok=True)
            write_atomic(str(target / name), data)
        except (OSError, AtomicWriteError) as error:
            reason = os_reason(error) if isinstance(error, OSError) else str(error)
            raise StoreError(f"copy zero session checkpoint {name}: {reason}") from None
