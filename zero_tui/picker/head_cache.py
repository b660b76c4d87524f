"""The picker's first screen, remembered between runs.

The catalog has to load every session before it can answer; a picker only needs its first
screenful to paint. This small file keeps, per store and workspace, the first rows of each
scope and the scope's counts as the last completed scan saw them. It is derived data: it is
shown only until the revalidating scan of the store replaces it, and a bad file is ignored.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeGuard

from zero_tui.atomic import AtomicWriteError, write_atomic
from zero_tui.store.regular_files import read_own_file

if TYPE_CHECKING:
    from zero_tui.store.models import Metadata

HEAD_ROWS = 120
HEAD_VERSION = 2  # 2: a fork's parent, its title and the event it was forked at
HEAD_LIMIT = 16 * 1024 * 1024  # a file larger than this was not written here: a cache miss


@dataclass(frozen=True, slots=True)
class CachedSession:
    """The `Metadata` fields a picker row needs, as the remembered head keeps them."""

    session_id: str
    title: str
    cwd: str
    model_id: str
    provider: str
    session_kind: str
    created_at: str
    updated_at: str
    event_count: int
    parent_session_id: str = ""
    forked_from_sequence: int = 0
    parent_title: str = ""
    """A fork's parent's title as the scan found it: the row names the parent by it, and
    the parent is often not in the head (another workspace, further down)."""

    @classmethod
    def of(cls, meta: Metadata, parent_title: str = "") -> CachedSession:
        return cls(
            meta.session_id,
            meta.title,
            meta.cwd,
            meta.model_id,
            meta.provider,
            meta.session_kind,
            meta.created_at,
            meta.updated_at,
            meta.event_count,
            meta.parent_session_id,
            meta.forked_from_sequence,
            parent_title,
        )


@dataclass(frozen=True, slots=True)
class ScopeHead:
    """The first rows of one picker scope and what the scope hid, from the last scan."""

    sessions: tuple[CachedSession, ...]
    other_workspace: int
    empty_runs: int
    not_resumable: int
    store_total: int


def head_path(cache_dir: Path, store_root: Path, workspace: str) -> Path:
    identity = os.fsencode(os.path.abspath(store_root)) + b"\0" + os.fsencode(workspace)
    return cache_dir / f"picker-head-{hashlib.sha256(identity).hexdigest()[:20]}.json"


def _scope_name(all_workspaces: bool, include_empty: bool) -> str:
    return f"{int(all_workspaces)}{int(include_empty)}"


def load_head(path: Path, store_root: Path, workspace: str) -> dict[tuple[bool, bool], ScopeHead]:
    """The remembered scopes; empty when the file is missing, foreign or damaged, whatever
    it holds (a FIFO, a symlink, a huge file, JSON nested too deep, a count of 1e999)."""
    try:
        document = json.loads(read_own_file(path, HEAD_LIMIT))
    except (OSError, ValueError, RecursionError):
        return {}
    if (
        not isinstance(document, dict)
        or document.get("version") != HEAD_VERSION
        or document.get("root") != str(store_root)
        or document.get("workspace") != workspace
        or not isinstance(document.get("scopes"), dict)
    ):
        return {}
    heads: dict[tuple[bool, bool], ScopeHead] = {}
    for all_workspaces in (False, True):
        for include_empty in (False, True):
            scope = document["scopes"].get(_scope_name(all_workspaces, include_empty))
            if scope is None:
                continue
            head = _scope_head(scope)
            if head is None:
                return {}
            heads[(all_workspaces, include_empty)] = head
    return heads


_SESSION_TYPES = (str, str, str, str, str, str, str, str, int, str, int, str)
_COUNTS = ("otherWorkspace", "emptyRuns", "notResumable", "storeTotal")


def _scope_head(scope: object) -> ScopeHead | None:
    """One remembered scope, or None when any value is not of the type `save_head` writes."""
    if not isinstance(scope, dict) or not isinstance(scope.get("sessions"), list):
        return None
    counts: list[int] = []
    for name in _COUNTS:
        count = scope.get(name)
        if not _is_count(count):
            return None
        counts.append(count)
    sessions: list[CachedSession] = []
    for values in scope["sessions"]:
        if not isinstance(values, list) or len(values) != len(_SESSION_TYPES):
            return None
        for value, kind in zip(values, _SESSION_TYPES, strict=True):
            if not (_is_count(value) if kind is int else isinstance(value, str)):
                return None
        sessions.append(CachedSession(*values))
    return ScopeHead(tuple(sessions), *counts)


def _is_count(value: object) -> TypeGuard[int]:
    return type(value) is int and 0 <= value < 2**63


def save_head(
    path: Path, store_root: Path, workspace: str, heads: dict[tuple[bool, bool], ScopeHead]
) -> None:
    """Write atomically; a cache that cannot be written is skipped."""
    document = {
        "version": HEAD_VERSION,
        "root": str(store_root),
        "workspace": workspace,
        "scopes": {
            _scope_name(*key): {
                "sessions": [
                    [
                        s.session_id,
                        s.title,
                        s.cwd,
                        s.model_id,
                        s.provider,
                        s.session_kind,
                        s.created_at,
                        s.updated_at,
                        s.event_count,
                        s.parent_session_id,
                        s.forked_from_sequence,
                        s.parent_title,
                    ]
                    for s in head.sessions
                ],
                "otherWorkspace": head.other_workspace,
                "emptyRuns": head.empty_runs,
                "notResumable": head.not_resumable,
                "storeTotal": head.store_total,
            }
            for key, head in heads.items()
        },
    }
    data = json.dumps(document, ensure_ascii=False).encode("utf-8", "surrogateescape")
    if len(data) > HEAD_LIMIT:  # titles of megabytes: it would not be read back
        return
    with contextlib.suppress(OSError, AtomicWriteError):
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        write_atomic(str(path), data, durable=False)  # a cache: the next scan rewrites it
