"""`zero-tui check [ID] [--repair] [--json]` (issue 9): the store's health, safe repairs."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import shutil
import stat
import time
from collections.abc import Iterator
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
        "checked session s: healthy\n",
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


def test_checkpoint_blobs_are_referred_to_as_zero_reads_a_checkpoint(
    store: SessionStore,
) -> None:
    # Zero's referencedBlobs unmarshals each checkpoint into its CheckpointPayload: a key
    # matches case-insensitively, and a checkpoint it cannot unmarshal refers to nothing
    # (its pruner deletes that blob)
    blobs = store.session_dir("s") / "checkpoints" / "blobs"
    blobs.mkdir(parents=True, mode=0o700)
    for name in ("aa", "bb"):
        (blobs / name).write_bytes(name.encode())
        os.chmod(blobs / name, 0o600)
    recased = [{"path": "a.txt", "Blob": "aa"}]
    undecodable = [{"path": "b.txt", "blob": "bb", "mode": -1}, {"path": "c.txt", "blob": "cc"}]
    store.append_events(
        "s",
        [
            ("session_checkpoint", {"tool": "edit", "files": recased}),
            ("session_checkpoint", {"tool": "edit", "files": undecodable}),
        ],
    )
    found = check_store(store, "s").findings
    assert [(f.kind, Path(f.path).name) for f in found] == [("orphan-blob", "bb")]


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
        ("garbage", "missing"),  # its log
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


# --- repair never goes through a symlink (issue 18) ---------------------------------------


def age(*paths: Path) -> None:
    """Make temp files old enough to be leftovers rather than writes in flight."""
    stale = time.time() - 3600
    for path in paths:
        os.utime(path, (stale, stale), follow_symlinks=False)


def test_a_symlinked_log_outside_the_store_is_reported_and_never_cut(
    store: SessionStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "outside.jsonl"
    torn = store.events_path("s").read_bytes() + b'{"id":"s:4","sessionId":"s","seq'
    outside.write_bytes(torn)
    log = store.events_path("s")
    log.unlink()
    log.symlink_to(outside)
    found = check_store(store, "s").findings
    assert [(f.kind, f.path, f.repairable) for f in found] == [
        ("symlink", str(log), False),
        ("torn-tail", str(log), False),
    ]
    code, out, _ = run(["check", "--repair", "--store", str(store.root)], capsys)
    assert code == 1
    assert outside.read_bytes() == torn
    assert log.is_symlink()
    assert backups(log.parent) == []
    assert backups(tmp_path) == []
    assert "repaired" not in out
    assert f"{log}: a symlink where Zero keeps a file: repair does not touch it" in out


@pytest.mark.parametrize("linked", ["checkpoints", "checkpoints/blobs"])
def test_a_symlinked_blobs_directory_is_reported_and_nothing_in_it_is_touched(
    store: SessionStore, tmp_path: Path, linked: str
) -> None:
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "blobs").mkdir(parents=True)
    target = elsewhere / "blobs" if linked.endswith("blobs") else elsewhere
    precious = target / "blobs" if target == elsewhere else target
    leftover = precious / "report.txt.tmp-3"
    leftover.write_bytes(b"not the store's to delete")
    age(leftover)
    directory = store.session_dir("s")
    link = directory / linked
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target, target_is_directory=True)
    found = check_store(store, "s").findings
    assert [(f.kind, f.path) for f in found] == [("symlink", str(link))]
    assert "check does not look inside" in found[0].message
    report = repair_store(store, "s")
    assert report.repairs == []
    assert leftover.read_bytes() == b"not the store's to delete"
    assert sorted(p.name for p in precious.iterdir()) == ["report.txt.tmp-3"]


def test_a_symlinked_lock_leaves_the_session_alone(store: SessionStore, tmp_path: Path) -> None:
    outside = tmp_path / "not-yet"  # a dangling link: taking the lock would create it
    store.lock_path("s").unlink(missing_ok=True)
    store.lock_path("s").symlink_to(outside)
    log = store.events_path("s")
    torn = log.read_bytes() + b'{"id":"s:4"'
    log.write_bytes(torn)
    found = check_store(store, "s").findings
    assert [(f.kind, f.repairable) for f in found] == [("symlink", False), ("torn-tail", False)]
    assert "repair leaves this session alone" in found[0].message
    report = repair_store(store, "s")
    assert report.repairs == []
    assert not outside.exists()
    assert log.read_bytes() == torn


def test_a_symlinked_metadata_file_is_neither_replaced_nor_written(
    store: SessionStore, tmp_path: Path
) -> None:
    outside = tmp_path / "metadata.json"
    meta = store.get("s")
    assert meta is not None
    lagging = dataclasses.replace(meta, event_count=1).to_json_bytes()
    outside.write_bytes(lagging)
    path = store.metadata_path("s")
    path.unlink()
    path.symlink_to(outside)
    found = check_store(store, "s").findings
    assert [(f.kind, f.repairable) for f in found] == [("symlink", False), ("metadata-lags", False)]
    assert repair_store(store, "s").repairs == []
    assert path.is_symlink()
    assert outside.read_bytes() == lagging


def test_a_symlink_named_as_a_temp_file_is_reported_and_left(
    store: SessionStore, tmp_path: Path
) -> None:
    outside = tmp_path / "keep.txt"
    outside.write_bytes(b"keep")
    link = store.session_dir("s") / "metadata.json.tmp-9"
    link.symlink_to(outside)
    age(link)
    found = check_store(store, "s").findings
    assert [(f.kind, f.path, f.repairable) for f in found] == [("symlink", str(link), False)]
    assert repair_store(store, "s").repairs == []
    assert link.is_symlink()
    assert outside.read_bytes() == b"keep"


def test_a_session_directory_swapped_for_a_symlink_under_repair_is_not_followed(
    tmp_path: Path,
) -> None:
    class SwappingStore(SessionStore):
        """Once armed, replaces the session directory by a symlink to a copy of it just as
        the next caller takes its lock."""

        armed = False

        @contextlib.contextmanager
        def locked(self, session_id: str) -> Iterator[None]:
            if self.armed:
                directory = self.session_dir(session_id)
                directory.rename(tmp_path / "moved")
                shutil.copytree(tmp_path / "moved", tmp_path / "copy", symlinks=True)
                directory.symlink_to(tmp_path / "copy", target_is_directory=True)
            with super().locked(session_id):
                yield

    store = SwappingStore(tmp_path / "sessions")
    store.create("s")
    store.append_events("s", [("message", {"content": "hi"})])
    log = store.events_path("s")
    torn = log.read_bytes() + b'{"id":"s:2"'
    log.write_bytes(torn)
    store.armed = True
    report = repair_store(store, "s")
    assert [(r.path, r.action) for r in report.repairs] == [
        (
            str(store.session_dir("s")),
            f"repair stopped: {store.session_dir('s')} was replaced while repair waited for "
            "its lock",
        )
    ]
    assert (tmp_path / "copy" / "events.jsonl").read_bytes() == torn
    assert (tmp_path / "moved" / "events.jsonl").read_bytes() == torn
    assert [f.kind for f in report.findings] == ["symlink"]


# --- a temp file whose target is missing is evidence (issue 18) ---------------------------


def test_the_only_copy_of_metadata_in_a_temp_file_is_kept(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    meta = store.get("s")
    assert meta is not None
    path = store.metadata_path("s")
    temp = path.with_name("metadata.json.tmp-1")  # a Create killed before its rename
    path.rename(temp)
    age(temp)
    found = check_store(store, "s").findings
    assert [(f.kind, f.path, f.repairable) for f in found] == [
        ("missing", str(path), False),
        ("temp-evidence", str(temp), False),
    ]
    assert found[1].message == (
        "metadata.json is missing, and this temp file holds valid metadata (session s, "
        f"eventCount 3, updatedAt {meta.updated_at}) that Zero had not yet renamed into "
        "place: repair keeps it; to restore, rename it to metadata.json"
    )
    content = temp.read_bytes()
    code, out, _ = run(["check", "--repair", "--store", str(store.root)], capsys)
    assert code == 1
    assert temp.read_bytes() == content
    assert f"{temp}: metadata.json is missing" in out
    assert "repaired" not in out


@pytest.mark.parametrize("target", ["garbage", "directory"])
def test_a_metadata_temp_file_beside_unreadable_metadata_is_kept(
    store: SessionStore, target: str
) -> None:
    path = store.metadata_path("s")
    temp = path.with_name(".metadata.json.4242-0123456789ab.tmp")
    temp.write_bytes(b'{"sessionId":"s","eventC')
    age(temp)
    path.unlink()
    if target == "garbage":
        path.write_bytes(b"{nope")
    else:
        path.mkdir()
    (evidence,) = [f for f in check_store(store, "s").findings if f.path == str(temp)]
    assert evidence.kind == "temp-evidence"
    assert not evidence.repairable
    assert evidence.message.startswith("metadata.json cannot be read (")
    assert "this temp file of its last write does not decode either" in evidence.message
    repair_store(store, "s")
    assert temp.read_bytes() == b'{"sessionId":"s","eventC'


def test_a_log_temp_file_without_its_log_is_kept(store: SessionStore) -> None:
    log = store.events_path("s")
    temp = log.with_name("events.jsonl.tmp-5")  # a rewind stopped between write and rename
    log.rename(temp)
    age(temp)
    found = check_store(store, "s").findings
    assert [(f.kind, Path(f.path).name, f.repairable) for f in found] == [
        ("missing", "events.jsonl", False),
        ("temp-evidence", "events.jsonl.tmp-5", False),
        ("metadata-ahead", "metadata.json", False),  # no log to set the counters from
    ]
    assert found[1].message == (
        "events.jsonl is missing; this temp file may hold its last write: repair keeps it; "
        "to restore, rename it to events.jsonl"
    )
    content, metadata = temp.read_bytes(), store.metadata_path("s").read_bytes()
    assert repair_store(store, "s").repairs == []
    assert temp.read_bytes() == content
    assert store.metadata_path("s").read_bytes() == metadata


def test_a_blob_temp_file_without_its_blob_is_kept(store: SessionStore) -> None:
    blobs = store.session_dir("t") / "checkpoints" / "blobs"
    blobs.mkdir(parents=True, mode=0o700)
    content = b"the file before the edit\n"
    digest = hashlib.sha256(content).hexdigest()
    whole = blobs / f"{digest}.tmp-2"
    whole.write_bytes(content)
    partial = blobs / f"{hashlib.sha256(b'other').hexdigest()}.tmp-3"
    partial.write_bytes(b"oth")
    age(whole, partial)
    files = [{"path": "a.txt", "blob": digest}]
    store.append_events("t", [("session_checkpoint", {"tool": "edit", "files": files})])
    found = {Path(f.path).name: f for f in check_store(store, "t").findings}
    assert found[whole.name].kind == "temp-evidence"
    assert "this temp file holds its content" in found[whole.name].message
    assert found[partial.name].kind == "temp-evidence"
    assert "a partial copy of it" in found[partial.name].message
    assert found[digest].kind == "missing-blob"
    repair_store(store, "t")
    assert whole.read_bytes() == content
    assert partial.read_bytes() == b"oth"


def test_a_leftover_temp_file_is_set_aside_as_a_copy_never_deleted(store: SessionStore) -> None:
    temp = store.session_dir("s") / "metadata.json.tmp-7"
    temp.write_bytes(b"an older metadata write")
    age(temp)
    report = repair_store(store, "s")
    assert report.healthy
    (repair,) = report.repairs
    assert (repair.path, repair.action) == (str(temp), "set a leftover temp file aside")
    assert repair.backup is not None
    copy = Path(repair.backup)
    assert copy.name.startswith(f"metadata.json.tmp-7{BACKUP_MARK}")
    assert copy.read_bytes() == b"an older metadata write"
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600
    assert not temp.exists()
