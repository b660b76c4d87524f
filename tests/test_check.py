"""`zero-tui check [ID] [--repair] [--json]` (issue 9): the store's health, safe repairs."""

from __future__ import annotations

import dataclasses
import json
import os
import stat
import time
from pathlib import Path

import pytest

from zero_tui.cli import main
from zero_tui.store import Event, SessionStore
from zero_tui.store.check import BACKUP_MARK, check_store, repair_store
from zero_tui.store.models import Goal

UPDATED = "2026-07-04T10:00:00Z"


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZERO_TUI_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    store = SessionStore(tmp_path / "sessions")
    store.create("s")
    store.append_events("s", [("message", {"role": "user", "content": "hi"})] * 3)
    store.create("t")
    store.append_events("t", [("message", {"role": "assistant", "content": "ok"})])
    return store


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def kinds(store: SessionStore, sid: str | None = None) -> list[tuple[str, str]]:
    return [(f.session_id, f.kind) for f in check_store(store, sid).findings]


def backups(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if BACKUP_MARK in p.name)


def line(sid: str, sequence: int) -> bytes:
    return Event(f"{sid}:{sequence}", sid, sequence, "message", UPDATED, b'{"n":1}').to_json_line()


def test_a_healthy_store(store: SessionStore, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["check", "--store", str(store.root)], capsys)
    assert (code, out) == (0, "checked 2 sessions: healthy\n")
    assert run(["check", "s", "--store", str(store.root)], capsys)[:2] == (
        0,
        "checked 1 session: healthy\n",
    )


def test_a_torn_tail_is_reported_then_cut_with_a_copy_saved(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    log = store.events_path("s")
    whole = log.read_bytes()
    log.write_bytes(whole + b'{"id":"s:4","sessionId":"s","seq')
    code, out, _ = run(["check", "--store", str(store.root)], capsys)
    assert code == 1
    assert f"{log}:4: a torn last line" in out
    assert "1 of them safe to repair" in out
    code, out, _ = run(["check", "--repair", "--store", str(store.root)], capsys)
    assert code == 0, out
    assert log.read_bytes() == whole
    (copy,) = backups(log.parent)
    assert copy.read_bytes() == whole + b'{"id":"s:4","sessionId":"s","seq'
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600
    assert f"copy saved as {copy}" in out
    assert run(["check", "--store", str(store.root)], capsys)[0] == 0  # copies are not damage


def test_metadata_lagging_or_ahead_is_resynced_from_the_log(store: SessionStore) -> None:
    meta = store.get("s")
    assert meta is not None
    store.metadata_path("s").write_bytes(
        dataclasses.replace(meta, event_count=1, last_event_type="tool_call").to_json_bytes()
    )
    assert kinds(store) == [("s", "metadata-lags"), ("s", "metadata-type")]
    store.metadata_path("t").write_bytes(
        dataclasses.replace(meta, session_id="t", event_count=9).to_json_bytes()
    )
    assert ("t", "metadata-ahead") in kinds(store)
    report = repair_store(store)
    assert report.healthy, report.findings
    fixed = store.get("s")
    assert fixed is not None
    assert (fixed.event_count, fixed.last_event_type) == (3, "message")
    assert len(backups(store.session_dir("s"))) == 1
    assert len(report.repairs) == 2


def test_a_corrupt_middle_line_is_never_repaired_by_deleting_data(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    log = store.events_path("s")
    lines = log.read_bytes().splitlines(keepends=True)
    damaged = lines[0] + b"{broken\n" + b"".join(lines[1:])
    log.write_bytes(damaged)
    code, out, _ = run(["check", "--repair", "--json", "--store", str(store.root)], capsys)
    assert code == 1
    report = json.loads(out)
    assert report["healthy"] is False
    (finding,) = report["findings"]
    assert (finding["kind"], finding["line"], finding["repairable"]) == ("corrupt-line", 2, False)
    assert finding["path"] == str(log)
    assert report["repairs"] == []
    assert log.read_bytes() == damaged
    assert backups(log.parent) == []


def test_leftover_temp_files_are_removed_young_ones_left_alone(store: SessionStore) -> None:
    directory = store.session_dir("s")
    old_go = directory / "metadata.json.tmp-7"
    old_ours = directory / ".metadata.json.123-abcdef012345.tmp"
    young = directory / "metadata.json.tmp-8"
    for path in (old_go, old_ours, young):
        path.write_bytes(b"partial")
    stale = time.time() - 3600
    for path in (old_go, old_ours):
        os.utime(path, (stale, stale))
    assert kinds(store) == [("s", "temp-file"), ("s", "temp-file")]
    report = repair_store(store)
    assert report.healthy
    assert [p.exists() for p in (old_go, old_ours, young)] == [False, False, True]


def test_checkpoint_blobs_orphaned_or_missing(store: SessionStore) -> None:
    blobs = store.session_dir("s") / "checkpoints" / "blobs"
    blobs.mkdir(parents=True, mode=0o700)
    (blobs / "aa").write_bytes(b"kept")
    os.chmod(blobs / "aa", 0o600)
    (blobs / "orphan").write_bytes(b"nobody")
    os.chmod(blobs / "orphan", 0o600)
    files = [{"path": "a.txt", "blob": "aa"}, {"path": "b.txt", "blob": "gone"}]
    store.append_events("s", [("session_checkpoint", {"tool": "edit", "files": files})])
    found = check_store(store, "s").findings
    assert [(f.kind, Path(f.path).name) for f in found] == [
        ("missing-blob", "gone"),
        ("orphan-blob", "orphan"),
    ]
    assert not any(f.repairable for f in found)


def test_modes_symlinks_and_unreadable_metadata(store: SessionStore, tmp_path: Path) -> None:
    os.chmod(store.events_path("t"), 0o644)
    os.chmod(store.session_dir("t"), 0o755)
    (store.root / "linked").symlink_to(store.session_dir("s"))
    (store.root / "garbage").mkdir(mode=0o700)
    store.metadata_path("garbage").write_bytes(b"{nope")
    os.chmod(store.metadata_path("garbage"), 0o600)
    (store.root / "nometa").mkdir(mode=0o700)
    found = {(f.session_id, f.kind) for f in check_store(store).findings}
    assert found == {
        ("t", "mode"),
        ("linked", "symlink"),
        ("garbage", "metadata"),
        ("nometa", "missing"),
    }


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_non_regular_files_are_reported_without_blocking(store: SessionStore) -> None:
    store.events_path("t").unlink()
    os.mkfifo(store.events_path("t"), 0o600)
    assert kinds(store, "t") == [("t", "not-regular")]


def test_repeated_and_decreasing_sequences_but_not_gaps(store: SessionStore) -> None:
    log = store.events_path("t")
    log.write_bytes(line("t", 1) + line("t", 5) + line("t", 5) + line("t", 3) + line("t", 9))
    meta = store.get("t")
    assert meta is not None
    store.metadata_path("t").write_bytes(dataclasses.replace(meta, event_count=9).to_json_bytes())
    messages = [f.message for f in check_store(store, "t").findings]
    assert messages == [
        "sequence 5 repeated (event 3)",
        "sequence 3 after 5 (event 4): decreasing",
    ]


def test_usage_and_unknown_ids(store: SessionStore, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["check", "a", "b", "--store", str(store.root)], capsys)[0] == 2
    code, _, err = run(["check", "nope", "--store", str(store.root)], capsys)
    assert (code, err) == (1, "zero-tui: zero session not found: nope\n")


def test_repair_never_rewrites_metadata_losing_what_zero_reads(store: SessionStore) -> None:
    # Zero reads the title and the goal status (a later null, a repeated goal object leave
    # them); the lagging eventCount is what repair resyncs, and all else must survive it
    path = store.metadata_path("s")
    path.write_bytes(
        b'{"sessionId":"s","title":"My important title","cwd":"/w","goal":{"objective":"a",'
        b'"status":"paused"},"createdAt":"'
        + UPDATED.encode()
        + b'","updatedAt":"'
        + UPDATED.encode()
        + b'","eventCount":1,"lastEventType":"message","title":null,"cwd":null,'
        b'"goal":{"objective":"b"}}'
    )
    before = store.get("s")
    assert before is not None
    assert (before.title, before.cwd, before.goal) == (
        "My important title",
        "/w",
        Goal(objective="b", status="paused"),
    )
    assert kinds(store, "s") == [("s", "metadata-lags")]
    report = repair_store(store, "s")
    assert report.healthy, report.findings
    after = store.get("s")
    assert after == dataclasses.replace(before, event_count=3)
