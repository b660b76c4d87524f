"""zero-tui's own files read at start are read as the store is read (issue 25, items 4 and 8).

The remembered first screen as a FIFO blocked `zero-tui` before anything was drawn; as a
symlink to /dev/zero it grew past 2 GiB; with a count of 1e999 or JSON nested deep a healthy
store said "could not be read" on every start. Each is a cache miss now: a regular file,
opened without blocking and without following a symlink, under a size cap, with every value
of the type zero-tui writes.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import StoreBuilder, finishes, fixed_clock

from zero_tui.agent import running
from zero_tui.picker import head_cache
from zero_tui.picker.head_cache import head_path, load_head
from zero_tui.picker.loader import LoadStage, PickerLoader, RememberedRows, ScanFailed, ScopeLoaded
from zero_tui.store.regular_files import FileTooLargeError, read_own_file

W = "/w/app"
HERE = (False, False)

needs_fifos = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")


@pytest.fixture
def warm(make_store: Callable[..., StoreBuilder], tmp_path: Path) -> tuple[PickerLoader, Path]:
    """A store of two sessions here, scanned once: its first screen is remembered."""
    builder = make_store()
    builder.add("s1", title="First", cwd=W, updated_at="2026-07-04T10:00:00Z")
    builder.add("s2", title="Second", cwd=W, updated_at="2026-07-04T11:00:00Z")
    cache = tmp_path / "cache"
    loader = PickerLoader(builder.store, W, HERE, cache_dir=cache, clock=fixed_clock())
    loader.scan(lambda _stage: None, shown=False)
    path = head_path(cache, builder.store.root, W)
    assert load_head(path, builder.store.root, W)  # remembered
    return loader, path


def remembered_scope(loader: PickerLoader) -> ScopeLoaded | None:
    stages: list[LoadStage] = []
    finishes(lambda: loader.remembered(stages.append))
    [stage] = stages
    assert isinstance(stage, RememberedRows)
    return stage.scope


def a_full_scan(loader: PickerLoader) -> list[LoadStage]:
    stages: list[LoadStage] = []
    finishes(lambda: loader.scan(stages.append, shown=False))
    return stages


def assert_a_miss_then_a_healthy_scan(loader: PickerLoader, path: Path) -> None:
    store = loader._store
    assert finishes(lambda: load_head(path, store.root, W)) == {}
    assert remembered_scope(loader) is None
    stages = a_full_scan(loader)
    assert not [stage for stage in stages if isinstance(stage, ScanFailed)]
    here = [s for s in stages if isinstance(s, ScopeLoaded) and s.key == HERE and s.complete]
    assert [row.session_id for row in here[-1].rows] == ["s2", "s1"]


# --- item 4: what the file is ------------------------------------------------------------


@needs_fifos
def test_a_fifo_in_place_of_the_remembered_rows_is_a_miss_not_a_hang(
    warm: tuple[PickerLoader, Path],
) -> None:
    loader, path = warm
    path.unlink()
    os.mkfifo(path)
    assert_a_miss_then_a_healthy_scan(loader, path)


def test_a_symlink_in_place_of_the_remembered_rows_is_not_followed(
    warm: tuple[PickerLoader, Path], tmp_path: Path
) -> None:
    """A symlink to a valid head stands for one to /dev/zero (which would be read forever)."""
    loader, path = warm
    elsewhere = tmp_path / "elsewhere.json"
    path.rename(elsewhere)
    path.symlink_to(elsewhere)
    assert_a_miss_then_a_healthy_scan(loader, path)


def test_remembered_rows_larger_than_the_cap_are_not_read(
    warm: tuple[PickerLoader, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    loader, path = warm
    monkeypatch.setattr(head_cache, "HEAD_LIMIT", path.stat().st_size - 1)
    assert_a_miss_then_a_healthy_scan(loader, path)


def test_the_cap_also_holds_for_a_file_that_grows_while_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "own"
    path.write_bytes(b"x" * 10)
    assert read_own_file(path, 10) == b"x" * 10
    with pytest.raises(FileTooLargeError):
        read_own_file(path, 9)


# --- item 8: what the file holds ---------------------------------------------------------


def damaged(document: dict[str, object], how: str) -> bytes:
    scope = document["scopes"]["00"]  # type: ignore[index]
    session = scope["sessions"][0]
    text = json.dumps(document)
    if how == "a count of 1e999":
        return text.replace(f'"storeTotal": {scope["storeTotal"]}', '"storeTotal": 1e999').encode()
    if how == "an event count of 1e999":
        return text.replace(f'"{session[7]}", {session[8]}', f'"{session[7]}", 1e999').encode()
    deep = "[" * 200_000 + "]" * 200_000
    if how == "JSON nested deep":
        return deep.encode()
    if how == "a scope nested deep":
        return text.replace('"00": {', f'"00": {deep}, "x": {{').encode()
    if how == "NaN for a count":
        return text.replace(f'"emptyRuns": {scope["emptyRuns"]}', '"emptyRuns": NaN').encode()
    if how == "true for a count":
        return text.replace(f'"emptyRuns": {scope["emptyRuns"]}', '"emptyRuns": true').encode()
    if how == "a negative count":
        return text.replace(f'"emptyRuns": {scope["emptyRuns"]}', '"emptyRuns": -4').encode()
    if how == "an object for a title":
        return text.replace(json.dumps(session[1]), '{"a": 1}', 1).encode()
    if how == "a row too short":
        scope["sessions"][0] = session[:5]
        return json.dumps(document).encode()
    if how == "a list for the scopes":
        document["scopes"] = [scope]
        return json.dumps(document).encode()
    if how == "a list for the document":
        return json.dumps([document]).encode()
    if how == "bytes that are not UTF-8":
        return b"\xff\xfe" + text.encode()
    raise AssertionError(how)


DAMAGE = [
    "a count of 1e999",
    "an event count of 1e999",
    "JSON nested deep",
    "a scope nested deep",
    "NaN for a count",
    "true for a count",
    "a negative count",
    "an object for a title",
    "a row too short",
    "a list for the scopes",
    "a list for the document",
    "bytes that are not UTF-8",
]


@pytest.mark.parametrize("how", DAMAGE)
def test_a_damaged_head_is_a_cache_miss_never_an_error_on_start(
    warm: tuple[PickerLoader, Path], how: str
) -> None:
    loader, path = warm
    path.write_bytes(damaged(json.loads(path.read_bytes()), how))
    assert_a_miss_then_a_healthy_scan(loader, path)


# --- the run registry and Zero's peer records, read at start for the running marks -------


@needs_fifos
def test_a_fifo_among_the_run_claims_and_peer_records_never_blocks(
    make_store: Callable[..., StoreBuilder], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    builder = make_store()
    builder.add("s1", title="First", cwd=W)
    claims = running._registry_dir(builder.store)
    claims.mkdir(parents=True)
    os.mkfifo(claims / "s1.run")
    peers = runtime / "zero" / "peers" / "registry"
    peers.mkdir(parents=True)
    os.mkfifo(peers / "peer.json")
    (peers / "deep.json").write_text("[" * 200_000 + "]" * 200_000)
    assert finishes(lambda: running._registry_runs(builder.store)) == {}
    assert finishes(running.zero_tui_peers) == {}
    assert finishes(lambda: running.running_sessions(builder.store, process_age=0)) == {}
