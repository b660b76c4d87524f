"""Before and after a run (issue 17, items 4 to 6): `agent.preflight` claims the session's
run, readies its log (the shared example store's Go-written files as the model), and tells
a session removed or replaced while the run was in flight."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from example_store import copy_example_store

from zero_tui.agent import running as running_module
from zero_tui.agent.preflight import (
    RunRefused,
    claim_named,
    guard_run,
    log_mark,
    session_fate,
)
from zero_tui.agent.running import running_now
from zero_tui.store import SessionStore
from zero_tui.store.check import BACKUP_MARK, check_store

GO_SESSION = "zero_20260604100000_1780567200000000000_1"  # written by Zero's Go code
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SessionStore:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "runtime"))
    (tmp_path / "runtime").mkdir(mode=0o700)
    monkeypatch.setattr(running_module, "_process_scan", None)
    root = copy_example_store(tmp_path)
    for session in os.listdir(root):  # written long ago: no log counts as in flight
        for name in ("events.jsonl", "metadata.json"):
            path = root / session / name
            if path.exists():
                os.utime(path, (1, 1))
    return SessionStore(root)


def test_a_healthy_session_is_claimed_for_the_runs_length(store: SessionStore) -> None:
    guard = guard_run(store, GO_SESSION)
    try:
        assert guard.notes == []
        found = running_now(store, GO_SESSION)
        assert found is not None
        assert found.own
    finally:
        guard.release()
    assert running_now(store, GO_SESSION) is None


def test_a_torn_tail_is_cut_said_and_the_run_goes_on(store: SessionStore) -> None:
    log = store.events_path(GO_SESSION)
    written_by_zero = log.read_bytes()
    log.write_bytes(written_by_zero + b'{"createdAt":"2026-06-04T10:')
    guard = guard_run(store, GO_SESSION)
    guard.release()
    assert log.read_bytes() == written_by_zero  # what Zero's reader and exec accept
    (note,) = guard.notes
    assert note.startswith("Before the run: the log's last line was torn")
    assert "cut a torn tail of 28 bytes" in note
    backups = [p for p in log.parent.iterdir() if BACKUP_MARK in p.name]
    assert len(backups) == 1
    assert str(backups[0]) in note
    assert check_store(store, GO_SESSION).healthy


def test_other_damage_refuses_the_run_names_check_and_changes_nothing(
    store: SessionStore,
) -> None:
    log = store.events_path(GO_SESSION)
    lines = log.read_bytes().splitlines(keepends=True)
    damaged = b"".join([lines[0], b"{not json}\n", *lines[1:]])
    log.write_bytes(damaged)
    with pytest.raises(RunRefused) as refused:
        guard_run(store, GO_SESSION)
    message = str(refused.value)
    assert message.startswith(f"Not continuing: {log}:2: ")
    assert message.endswith(f"see zero-tui check {GO_SESSION}.")
    assert log.read_bytes() == damaged
    assert running_now(store, GO_SESSION) is None  # the claim was let go


CLAIMER = textwrap.dedent(
    """
    import sys, time
    from zero_tui.agent.running import claim_run
    from zero_tui.store import SessionStore
    claim = claim_run(SessionStore(sys.argv[1]), sys.argv[2])
    print("claimed", flush=True)
    time.sleep(60)
    """
)


@pytest.fixture
def other_zero_tui(store: SessionStore) -> Iterator[subprocess.Popen[str]]:
    process = subprocess.Popen(
        [sys.executable, "-c", CLAIMER, str(store.root), GO_SESSION],
        stdout=subprocess.PIPE,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
    )
    assert process.stdout is not None
    assert process.stdout.readline() == "claimed\n"
    try:
        yield process
    finally:
        process.kill()
        process.wait()


def test_a_session_another_zero_tui_runs_is_refused_before_its_log_is_touched(
    store: SessionStore, other_zero_tui: subprocess.Popen[str]
) -> None:
    log = store.events_path(GO_SESSION)
    torn = log.read_bytes() + b'{"torn'
    log.write_bytes(torn)
    with pytest.raises(RunRefused) as refused:
        guard_run(store, GO_SESSION)
    assert str(refused.value) == (
        f"Not sent: this session is running in another zero-tui (pid {other_zero_tui.pid}). "
        "The transcript follows that run live, read-only; send again once it has ended "
        "(your prompt is kept)."
    )
    assert refused.value.running is not None
    assert log.read_bytes() == torn  # the other run's log is not ours to cut


def test_a_new_conversation_is_claimed_once_the_agent_names_it(store: SessionStore) -> None:
    guard = guard_run(store, None)
    assert guard.claim is None
    store.create("zero_new", cwd="/w")  # what the agent does before run_start
    store.append_events("zero_new", [("message", {"role": "user", "content": "hi"})])
    assert claim_named(store, guard, "zero_new") is None
    try:
        found = running_now(store, "zero_new")
        assert found is not None
        assert found.own
        assert session_fate(store, "zero_new", guard.mark) is None
    finally:
        guard.release()


def test_a_session_removed_during_the_run(store: SessionStore) -> None:
    mark = log_mark(store, GO_SESSION)
    shutil.rmtree(store.session_dir(GO_SESSION))
    fate = session_fate(store, GO_SESSION, mark)
    assert fate is not None
    assert fate.startswith("This session was removed while the run")


def test_a_session_whose_log_was_replaced_during_the_run(store: SessionStore) -> None:
    mark = log_mark(store, GO_SESSION)
    store.append_events(GO_SESSION, [("message", {"role": "user", "content": "grown"})])
    assert session_fate(store, GO_SESSION, mark) is None  # appended to: the run's own log
    log = store.events_path(GO_SESSION)
    rewound = log.parent / "rewound.jsonl"
    rewound.write_bytes(log.read_bytes().splitlines(keepends=True)[0])
    os.replace(rewound, log)  # as a rewind writes it
    fate = session_fate(store, GO_SESSION, mark)
    assert fate is not None
    assert fate.startswith("This session's log was replaced")
