"""The one atomic writer's durability switch, and the picker's cache written through it."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from zero_tui.atomic import write_atomic
from zero_tui.picker.head_cache import (
    HEAD_VERSION,
    CachedSession,
    ScopeHead,
    head_path,
    load_head,
    save_head,
)


def count_fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    synced: list[int] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return synced


def test_a_durable_write_syncs_the_file_and_its_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced = count_fsyncs(monkeypatch)
    target = tmp_path / "out.txt"
    assert write_atomic(str(target), b"kept") == 4
    assert target.read_bytes() == b"kept"
    expected = 1 if os.name == "nt" else 2  # Windows cannot open a directory to sync it
    assert len(synced) == expected


def test_a_cache_write_skips_the_fsyncs_and_is_still_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced = count_fsyncs(monkeypatch)
    target = tmp_path / "cache.json"
    target.write_bytes(b"old")
    assert write_atomic(str(target), [b"new ", b"content"], durable=False) == 11
    assert target.read_bytes() == b"new content"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert synced == []
    assert {path.name for path in tmp_path.iterdir()} == {"cache.json"}


def sample_heads() -> dict[tuple[bool, bool], ScopeHead]:
    session = CachedSession(
        "20260101-000000-abcdef",
        "fix the \u2028 parser",
        "/home/dev/project",
        "gpt-5",
        "openai",
        "agent",
        "2026-01-01T00:00:00Z",
        "2026-01-02T00:00:00Z",
        7,
    )
    fork = CachedSession(
        "20260101-000001-fedcba",
        "try another way",
        "/home/dev/project",
        "gpt-5",
        "openai",
        "fork",
        "2026-01-03T00:00:00Z",
        "2026-01-03T00:00:00Z",
        9,
        parent_session_id="20251201-000000-000000",
        forked_from_sequence=4,
        parent_title="a parent in another workspace",
    )
    return {(False, False): ScopeHead((fork, session), 1, 2, 3, 9)}


def test_the_picker_head_round_trips_into_a_new_private_cache_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced = count_fsyncs(monkeypatch)
    store_root = tmp_path / "sessions"
    path = head_path(tmp_path / "cache" / "zero-tui", store_root, "/home/dev/project")
    save_head(path, store_root, "/home/dev/project", sample_heads())
    assert synced == []
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [entry.name for entry in path.parent.iterdir()] == [path.name]
    assert load_head(path, store_root, "/home/dev/project") == sample_heads()


def test_a_picker_head_of_an_older_version_is_ignored(tmp_path: Path) -> None:
    store_root = tmp_path / "sessions"
    path = head_path(tmp_path / "cache", store_root, "/home/dev/project")
    save_head(path, store_root, "/home/dev/project", sample_heads())
    document = json.loads(path.read_bytes())
    assert document["version"] == HEAD_VERSION == 2
    for scope in document["scopes"].values():  # version 1: no fork's parent, event, title
        scope["sessions"] = [session[:9] for session in scope["sessions"]]
    path.write_text(json.dumps(document | {"version": 1}))
    assert load_head(path, store_root, "/home/dev/project") == {}


def test_a_picker_head_that_cannot_be_written_is_skipped(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the cache dir should be")
    path = head_path(blocker, tmp_path / "sessions", "/home/dev/project")
    save_head(path, tmp_path / "sessions", "/home/dev/project", sample_heads())
    assert load_head(path, tmp_path / "sessions", "/home/dev/project") == {}
    assert blocker.read_text() == "a file where the cache dir should be"


def test_a_picker_head_over_a_directory_is_skipped(tmp_path: Path) -> None:
    path = head_path(tmp_path, tmp_path / "sessions", "/home/dev/project")
    path.mkdir()
    save_head(path, tmp_path / "sessions", "/home/dev/project", sample_heads())
    assert path.is_dir()
    assert list(path.iterdir()) == []
