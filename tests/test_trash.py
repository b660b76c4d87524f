"""A trash instead of `rm -rf` (issue 20, part 4): delete moves a session out of Zero's
store, restore puts it back exactly, only `trash --empty` removes for good."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from zero_tui.agent import running as running_module
from zero_tui.agent.guarded_delete import delete_session
from zero_tui.agent.running import claim_run
from zero_tui.cli import main
from zero_tui.store import SessionStore, StoreError
from zero_tui.store.root import typed_store_key
from zero_tui.store.trash import (
    TrashContents,
    empty_trash,
    find_trashed,
    move_to_trash,
    restore,
    trash_contents,
    trash_dirs,
    trash_state,
    trashed,
)


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SessionStore:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "runtime"))
    (tmp_path / "runtime").mkdir()
    store = SessionStore(tmp_path / "zero" / "sessions")
    for session_id, title in (("alpha-1", "First"), ("beta-2", "Second")):
        store.create(session_id, title=title, cwd="/w")
        store.append_events(
            session_id,
            [
                ("message", {"role": "user", "content": "hi"}),
                ("message", {"role": "assistant", "content": "hello"}),
            ],
        )
    return store


def snapshot(directory: Path) -> dict[str, tuple[bytes, int]]:
    """Every file below `directory`: its bytes and mode."""
    found = {}
    for folder, _dirs, files in os.walk(directory):
        for name in files:
            path = Path(folder, name)
            found[str(path.relative_to(directory))] = (
                path.read_bytes(),
                stat.S_IMODE(path.lstat().st_mode),
            )
    return found


def test_delete_then_restore_gives_back_every_byte_and_mode(store: SessionStore) -> None:
    before = snapshot(store.session_dir("alpha-1"))
    item = move_to_trash(store, "alpha-1")
    assert [meta.session_id for meta in store.list()] == ["beta-2"]  # Zero no longer lists it
    assert not item.entry.is_relative_to(store.root)
    assert (item.session_id, item.title, item.cwd) == ("alpha-1", "First", "/w")
    assert [entry.session_id for entry in trashed(store)] == ["alpha-1"]
    restore(store, find_trashed(store, "alp"))
    assert snapshot(store.session_dir("alpha-1")) == before
    assert stat.S_IMODE(store.session_dir("alpha-1").stat().st_mode) == 0o700
    assert trashed(store) == []
    assert sorted(meta.session_id for meta in store.list()) == ["alpha-1", "beta-2"]


def test_a_name_clash_on_restore_is_refused(store: SessionStore) -> None:
    item = move_to_trash(store, "alpha-1")
    store.create("alpha-1", cwd="/w")
    with pytest.raises(StoreError, match="the store has a session of that name already"):
        restore(store, item)
    assert item.entry.is_dir()


def test_a_symlinked_session_is_never_followed(store: SessionStore, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    store.session_dir("beta-2").rename(elsewhere)
    store.session_dir("beta-2").symlink_to(elsewhere)
    with pytest.raises(StoreError, match="not a session folder"):
        move_to_trash(store, "beta-2")
    assert (elsewhere / "events.jsonl").is_file()


def test_a_running_session_is_never_deleted(store: SessionStore) -> None:
    with claim_run(store, "alpha-1"):
        outcome = delete_session(store, "alpha-1")
    assert not outcome.ok
    assert outcome.message == "not deleting alpha-1: it is running in this zero-tui"
    assert store.session_dir("alpha-1").is_dir()
    assert delete_session(store, "alpha-1").ok


def test_empty_removes_for_good_only_what_is_old_enough(store: SessionStore) -> None:
    now = datetime(2026, 7, 4, 12, 0, tzinfo=UTC)
    move_to_trash(store, "alpha-1", now=now - timedelta(days=40))
    move_to_trash(store, "beta-2", now=now - timedelta(days=2))
    removed = empty_trash(store, older_than_days=30, now=now)
    assert [item.session_id for item in removed] == ["alpha-1"]
    assert not removed[0].entry.exists()
    assert [item.session_id for item in trashed(store)] == ["beta-2"]
    assert [item.session_id for item in empty_trash(store)] == ["beta-2"]
    assert trashed(store) == []


def test_the_commands(store: SessionStore, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--store", str(store.root), "--cwd", "/w"]
    assert main(["delete", "alpha", *base]) == 2  # no terminal to ask
    assert "pass --yes" in capsys.readouterr().err
    assert main(["delete", "alpha", "beta", "--yes", *base]) == 0
    assert capsys.readouterr().out == (
        "moved alpha-1 to the trash (zero-tui restore alpha-1)\n"
        "moved beta-2 to the trash (zero-tui restore beta-2)\n"
    )
    assert main(["sessions", "--json", *base]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert main(["trash", "--json", *base]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert sorted(item["sessionId"] for item in listed) == ["alpha-1", "beta-2"]
    assert main(["trash", *base]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[0].split() == ["TRASHED", "ID", "WORKSPACE", "TITLE"]
    assert err == "2 sessions in the trash (zero-tui restore ID; trash --empty)\n"
    assert main(["restore", "alpha-1", "nope", *base]) == 1
    out, err = capsys.readouterr()
    assert (out, err) == ("restored alpha-1\n", "zero-tui: not in the trash: nope\n")
    assert main(["trash", "--older-than", "3", *base]) == 2
    capsys.readouterr()
    assert main(["trash", "--empty", *base]) == 0
    assert capsys.readouterr().out == "removed 1 session from the trash for good\n"


# --- issue 25: nothing lost -------------------------------------------------------------------


def set_updated(
    store: SessionStore, session_id: str, updated_at: str, age_seconds: float, *, log: bool = True
) -> None:
    """Make a session look last written at `updated_at` (metadata; its events' times too
    with `log`) and `age_seconds` ago (its files' times)."""
    path = store.metadata_path(session_id)
    meta = json.loads(path.read_bytes())
    meta["updatedAt"] = updated_at
    path.write_text(json.dumps(meta))
    if log:
        log_path = store.events_path(session_id)
        events = [json.loads(line) for line in log_path.read_text().splitlines()]
        log_path.write_text(
            "".join(json.dumps(e | {"createdAt": updated_at}) + "\n" for e in events)
        )
    moment = time.time() - age_seconds
    for name in ("metadata.json", "events.jsonl"):
        os.utime(store.session_dir(session_id) / name, (moment, moment))


@pytest.fixture
def bare_resume(
    store: SessionStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[subprocess.Popen[bytes]]:
    """A `zero exec --resume` naming no session, on this store, waiting on its model (its
    stdin) after the 20 s of "recently written" are over."""
    set_updated(store, "alpha-1", "2026-01-01T10:00:00Z", 3600)
    set_updated(store, "beta-2", "2026-01-01T11:00:00Z", 3600)  # the latest
    fake = tmp_path / "bin" / "zero"
    fake.parent.mkdir()
    fake.write_text(f"#!{sys.executable}\nimport sys\nsys.stdin.read()\n")
    fake.chmod(0o755)
    monkeypatch.setattr(running_module, "_process_scan", None)
    process = subprocess.Popen(
        [str(fake), "exec", "--resume", "--", "and then?"],
        stdin=subprocess.PIPE,
        env=dict(os.environ, XDG_DATA_HOME=str(tmp_path)),  # Zero's root: this store
    )
    try:
        yield process
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait()


def test_a_bare_resume_keeps_the_store_s_latest_session_out_of_the_trash(
    store: SessionStore,
    bare_resume: subprocess.Popen[bytes],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 25 item 1: Zero resumes its latest session and waits on its model; deleting
    that session then would lose the answer."""
    # Zero writes the session it resumes as it starts (its prompt; here only the metadata,
    # so that the log, written long ago, does not count as a run in flight)
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    set_updated(store, "beta-2", now, 3600, log=False)
    base = ["--store", str(store.root), "--cwd", "/w"]
    assert main(["delete", "beta-2", "--yes", *base]) == 1
    refusal = (
        f"not deleting beta-2: a `zero` process (pid {bare_resume.pid}) is resuming the "
        "latest session of this store, which may be this one"
    )
    assert capsys.readouterr().err == f"zero-tui: {refusal}\n"
    assert store.session_dir("beta-2").is_dir()
    # not the latest when it started, and not written since: not the one it resumes
    assert delete_session(store, "alpha-1").ok
    assert main(["fork", "beta-2", *base]) == 1
    assert "not forking beta-2: a `zero` process" in capsys.readouterr().err
    assert main(["fork", "beta-2", "--at", "1", *base]) == 0  # an earlier turn: no half turn
    capsys.readouterr()
    assert bare_resume.stdin is not None
    bare_resume.stdin.close()
    bare_resume.wait()
    assert delete_session(store, "beta-2").ok


def test_a_session_written_since_a_bare_resume_started_may_be_its_own(
    store: SessionStore, bare_resume: subprocess.Popen[bytes]
) -> None:
    """Zero picked its session as it started; the one written since may be it."""
    set_updated(store, "alpha-1", datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"), 3600)
    outcome = delete_session(store, "alpha-1")
    assert not outcome.ok
    assert f"(pid {bare_resume.pid}) is resuming the latest session" in outcome.message


def test_restoring_while_emptying_never_restores_a_half_removed_session(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 25 item 2: once emptying has started on an entry, a restore does not find it
    (before, it renamed the folder being removed into the store: an empty session)."""
    move_to_trash(store, "alpha-1")
    real_rmtree = shutil.rmtree
    outcomes: list[str] = []

    def rmtree_racing_a_restore(path: str | os.PathLike[str], *args: Any, **kwargs: Any) -> None:
        (Path(path) / "events.jsonl").unlink()  # the removal has begun
        try:
            restore(store, find_trashed(store, "alpha-1"))
            outcomes.append("restored")
        except StoreError as error:
            outcomes.append(str(error))
        real_rmtree(path, *args, **kwargs)

    monkeypatch.setattr(shutil, "rmtree", rmtree_racing_a_restore)
    with contextlib.suppress(StoreError):
        empty_trash(store)
    assert outcomes == ["not in the trash: alpha-1"]
    assert not store.session_dir("alpha-1").exists()
    assert trash_contents(store) == TrashContents()


def test_an_interrupted_empty_leaves_nothing_listed_and_says_what_is_left(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 25 item 3: a removal that stops half-way (a crash, a permission error) leaves
    no entry to list or restore; `trash` says what is left and how to remove it."""
    move_to_trash(store, "alpha-1")

    def rmtree_denied(path: str | os.PathLike[str], *args: Any, **kwargs: Any) -> None:
        (Path(path) / "events.jsonl").unlink()
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    with monkeypatch.context() as patched:
        patched.setattr(shutil, "rmtree", rmtree_denied)
        with pytest.raises(StoreError, match=r"cannot remove .*: permission denied"):
            empty_trash(store)
    assert trashed(store) == []
    with pytest.raises(StoreError, match="not in the trash: alpha-1"):
        find_trashed(store, "alpha-1")
    [left] = trash_contents(store).damaged
    assert left.path.name.startswith("alpha-1@")
    assert left.command == f"rm -rf -- {left.path}"
    base = ["--store", str(store.root), "--cwd", "/w"]
    assert main(["trash", *base]) == 0
    err = capsys.readouterr().err
    assert f"damaged: {left.path}: partly removed by a `trash --empty`" in err
    assert f"remove it with: rm -rf -- {left.path}" in err
    assert main(["trash", "--empty", *base]) == 0  # finishes it
    assert trash_contents(store) == TrashContents()


def test_a_half_removed_entry_of_an_older_zero_tui_is_never_restored(
    store: SessionStore,
) -> None:
    """An entry that an earlier `--empty` left in the listed trash (before issue 25)."""
    item = move_to_trash(store, "alpha-1")
    Path(str(item.entry) + ".json").unlink()  # an older record: no list of parts
    (item.entry / "events.jsonl").unlink()
    assert trashed(store) == []
    [left] = trash_contents(store).damaged
    assert (left.path, left.reason) == (
        item.entry,
        "a partly removed session: events.jsonl is gone (2 events were recorded)",
    )
    with pytest.raises(StoreError, match=r"not restoring alpha-1: events\.jsonl is gone"):
        restore(store, item)
    assert not store.session_dir("alpha-1").exists()


def test_trash_folders_are_private_and_checked(store: SessionStore) -> None:
    """Issue 25 item 5: 0700, the user's own, not a symlink, on every use."""
    item = move_to_trash(store, "alpha-1")
    for folder in (item.entry.parent, item.entry.parent.parent):
        assert stat.S_IMODE(folder.lstat().st_mode) == 0o700
    [directory] = [path for path in trash_dirs(store) if path.is_dir()]
    if os.geteuid() == 0:
        os.chown(directory, 65534, 65534)  # now another user's
        assert trashed(store) == []
        [unsafe] = trash_contents(store).damaged
        assert unsafe.reason == f"{directory} belongs to another user (uid 65534)"
        assert unsafe.command == ""
        os.chown(directory, 0, 0)
    elsewhere = directory.with_name("elsewhere")
    directory.rename(elsewhere)
    directory.symlink_to(elsewhere)
    assert trashed(store) == []
    assert trash_contents(store).damaged[0].reason == f"{directory} is a symlink or not a folder"
    moved = move_to_trash(store, "beta-2")  # into the other place, never through the link
    assert moved.entry.parent == trash_dirs(store)[1]
    assert not (elsewhere / moved.entry.name).exists()


def test_no_trash_in_a_folder_every_user_may_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fallback beside a store on another filesystem than the data dir: never in a
    world-writable folder, where another user could have made it first."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    store = SessionStore(shared / "zero" / "sessions")
    store.create("alpha-1", cwd="/w")
    data = tmp_path / "data"
    data.mkdir()
    data.chmod(0o777)  # the data dir is unusable too, so the fallback would be tried
    monkeypatch.setenv("ZERO_TUI_DATA_DIR", str(data))
    with pytest.raises(StoreError, match="is writable by every user"):
        move_to_trash(store, "alpha-1")
    assert not (shared / "zero-tui-trash").exists()
    assert store.session_dir("alpha-1").is_dir()


def test_a_record_s_session_id_never_names_a_path(store: SessionStore) -> None:
    """The record beside an entry could say anything: the entry's name is the id."""
    item = move_to_trash(store, "alpha-1")
    record = Path(str(item.entry) + ".json")
    record.write_text(json.dumps({"sessionId": "../../elsewhere", "title": "First"}))
    [listed] = trashed(store)
    assert listed.session_id == "alpha-1"
    restore(store, listed)
    assert store.session_dir("alpha-1").is_dir()
    assert not (store.root.parent.parent / "elsewhere").exists()


def test_the_trash_is_the_store_s_whatever_its_spelling(
    store: SessionStore, tmp_path: Path
) -> None:
    """Issue 25 item 9: a symlinked spelling of the store finds the same trash."""
    (tmp_path / "link").symlink_to(store.root.parent)
    spelled = SessionStore(tmp_path / "link" / "sessions")
    move_to_trash(spelled, "alpha-1")
    assert [item.session_id for item in trashed(store)] == ["alpha-1"]
    restore(store, find_trashed(store, "alpha-1"))
    assert store.session_dir("alpha-1").is_dir()


def test_what_an_older_zero_tui_trashed_under_the_typed_path_is_still_listed(
    store: SessionStore, tmp_path: Path
) -> None:
    (tmp_path / "link").symlink_to(store.root.parent)
    spelled = SessionStore(tmp_path / "link" / "sessions")
    typed = trash_dirs(store)[0].parent / typed_store_key(spelled.root)
    typed.mkdir(mode=0o700, parents=True)
    store.session_dir("beta-2").rename(typed / "beta-2@20260101T000000.000000Z")
    assert [item.session_id for item in trashed(spelled)] == ["beta-2"]


def test_a_record_left_alone_is_removed_by_the_next_empty(store: SessionStore) -> None:
    """A restore killed between its rename and the record's unlink leaves the record."""
    item = move_to_trash(store, "alpha-1")
    item.entry.rename(store.session_dir("alpha-1"))
    record = Path(str(item.entry) + ".json")
    assert record.is_file()
    assert trashed(store) == []
    assert empty_trash(store) == []
    assert not record.exists()
    assert sorted(os.listdir(item.entry.parent)) == [".lock"]


def test_the_trash_state_moves_with_every_entry_in_or_out(store: SessionStore) -> None:
    """What the picker asks before it counts the trash again on a change of the store."""
    empty = trash_state(store)
    assert trash_state(store) == empty
    item = move_to_trash(store, "alpha-1")
    holding_one = trash_state(store)
    assert holding_one != empty
    restore(store, item)
    assert trash_state(store) != holding_one
