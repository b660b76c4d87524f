"""Continuing starts from a healthy log (issue 17, item 5): `check.prepare_run` cuts a
torn tail exactly as `check --repair` does, and refuses any other damage untouched."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from example_store import copy_example_store

from zero_tui.store import SessionStore, StoreError
from zero_tui.store.check import BACKUP_MARK, check_store, prepare_run

GO_SESSION = "zero_20260604100000_1780567200000000000_1"  # written by Zero's Go code


def backups(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if BACKUP_MARK in p.name)


def test_a_torn_tail_is_cut_back_to_what_zero_wrote(tmp_path: Path) -> None:
    store = SessionStore(copy_example_store(tmp_path))
    log = store.events_path(GO_SESSION)
    written_by_zero = log.read_bytes()
    torn = written_by_zero + written_by_zero.splitlines(keepends=True)[-1][:37]
    log.write_bytes(torn)

    repair = prepare_run(store, GO_SESSION)

    assert repair is not None
    assert repair.action == "cut a torn tail of 37 bytes"
    assert log.read_bytes() == written_by_zero  # byte for byte what Zero's writer left
    (backup,) = backups(log.parent)
    assert repair.backup == str(backup)
    assert backup.read_bytes() == torn
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600
    assert [f.kind for f in check_store(store, GO_SESSION).findings if f.path == str(log)] == []
    # the next append continues Zero's log, which every reader accepts
    before = store.read_events(GO_SESSION)
    store.append_events(GO_SESSION, [("message", {"role": "user", "content": "again"})])
    after = store.read_events(GO_SESSION)
    assert after[:-1] == before
    assert after[-1].sequence == before[-1].sequence + 1


def test_a_healthy_log_is_left_alone(tmp_path: Path) -> None:
    store = SessionStore(copy_example_store(tmp_path))
    log = store.events_path(GO_SESSION)
    written_by_zero = log.read_bytes()
    assert prepare_run(store, GO_SESSION) is None
    assert log.read_bytes() == written_by_zero
    assert backups(log.parent) == []


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    store = SessionStore(tmp_path / "sessions")
    store.create("s", cwd="/w")
    store.append_events(
        "s",
        [
            ("message", {"role": "user", "content": "hi"}),
            ("message", {"role": "assistant", "content": "hello"}),
        ],
    )
    return store


def test_a_corrupt_middle_line_refuses_the_run_and_changes_nothing(store: SessionStore) -> None:
    log = store.events_path("s")
    lines = log.read_bytes().splitlines(keepends=True)
    damaged = lines[0] + b"{not json}\n" + lines[1] + b'{"torn'
    log.write_bytes(damaged)
    with pytest.raises(StoreError) as refused:
        prepare_run(store, "s")
    assert str(refused.value).startswith(f"not continuing: {log}:2: ")
    assert str(refused.value).endswith("; see zero-tui check s")
    assert log.read_bytes() == damaged  # not even the torn tail is cut
    assert backups(log.parent) == []


def test_metadata_that_disagrees_with_the_log_refuses_the_run(store: SessionStore) -> None:
    metadata = store.metadata_path("s")
    text = metadata.read_text()
    metadata.write_text(text.replace('"eventCount": 2', '"eventCount": 1'))
    with pytest.raises(StoreError, match="eventCount 1 lags the log"):
        prepare_run(store, "s")


def test_modes_and_leftover_temp_files_do_not_stop_a_run(store: SessionStore) -> None:
    os.chmod(store.events_path("s"), 0o644)
    temp = store.session_dir("s") / "metadata.json.tmp-7"
    temp.write_text("{}")
    old = os.stat(temp).st_mtime - 3600
    os.utime(temp, (old, old))
    assert prepare_run(store, "s") is None
