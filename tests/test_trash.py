"""A trash instead of `rm -rf` (issue 20, part 4): delete moves a session out of Zero's
store, restore puts it back exactly, only `trash --empty` removes for good."""

from __future__ import annotations

import json
import os
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from zero_tui.agent.running import claim_run
from zero_tui.cli import main
from zero_tui.commands import delete_session
from zero_tui.store import SessionStore, StoreError
from zero_tui.store.trash import empty_trash, find_trashed, move_to_trash, restore, trashed


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
