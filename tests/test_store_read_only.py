"""A read-only store (issue 9): everything reads, every write fails with one clear line and
leaves the store as it was. Made read-only by a remounted tmpfs (root, Linux) or by file
modes (a normal user; root ignores modes)."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from zero_tui.cli import main
from zero_tui.store import SessionStore, StoreError
from zero_tui.store.check import check_store, repair_store


def _mount(*args: str) -> bool:
    mount = shutil.which("mount")
    return mount is not None and subprocess.run([mount, *args], capture_output=True).returncode == 0


@pytest.fixture
def read_only_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SessionStore]:
    monkeypatch.setenv("ZERO_TUI_CACHE_DIR", str(tmp_path / "cache"))
    point = tmp_path / "ro"
    point.mkdir()
    root_mode = sys.platform == "linux" and os.geteuid() == 0
    if root_mode and not _mount("-t", "tmpfs", "-o", "size=1m", "tmpfs", str(point)):
        pytest.skip("cannot mount a tmpfs here")
    store = SessionStore(point / "sessions")
    store.create("s", title="Read only")
    store.append_events("s", [("message", {"role": "user", "content": "hi"})])
    with store.events_path("s").open("ab") as log:
        log.write(b'{"id":"s:2","sessi')  # a torn tail that a repair would cut
    try:
        if root_mode:
            if not _mount("-o", "remount,ro", str(point)):
                pytest.skip("cannot remount the tmpfs read-only")
        elif os.geteuid() == 0:
            pytest.skip("root ignores file modes and cannot mount here")
        else:
            for path in (store.session_dir("s"), store.root):
                path.chmod(stat.S_IRUSR | stat.S_IXUSR)
            for name in ("metadata.json", "events.jsonl", "session.lock"):
                (store.session_dir("s") / name).chmod(stat.S_IRUSR)
        yield store
    finally:
        if root_mode:
            subprocess.run(["umount", str(point)], check=False)
        else:
            for path in (store.root, store.session_dir("s")):
                path.chmod(0o700)


def test_a_read_only_store_reads(read_only_store: SessionStore) -> None:
    store = read_only_store
    assert [meta.session_id for meta in store.list()] == ["s"]
    assert [event.sequence for event in store.read_events("s")] == [1]
    assert main(["show", "s", "--json", "--store", str(store.root)]) == 0
    assert main(["sessions", "--all", "--store", str(store.root)]) == 0


def test_every_write_fails_with_one_line_and_changes_nothing(
    read_only_store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    store = read_only_store
    before = store.events_path("s").read_bytes(), store.metadata_path("s").read_bytes()
    for write in (
        lambda: store.append_events("s", [("message", {"content": "more"})]),
        lambda: store.update_title("s", "renamed"),
        lambda: store.create("new"),
    ):
        with pytest.raises(StoreError) as raised:
            write()
        assert "\n" not in str(raised.value)
    assert (store.events_path("s").read_bytes(), store.metadata_path("s").read_bytes()) == before
    assert [f.kind for f in check_store(store).findings if f.kind == "torn-tail"] == ["torn-tail"]
    report = repair_store(store)
    assert any("repair stopped" in repair.action for repair in report.repairs)
    assert not report.healthy
    capsys.readouterr()
    assert main(["check", "--repair", "--store", str(store.root)]) == 1
    assert "repair stopped" in capsys.readouterr().out
    assert (store.events_path("s").read_bytes(), store.metadata_path("s").read_bytes()) == before
