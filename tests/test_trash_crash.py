"""Crash campaign for the trash (issue 25 items 1-3): `zero-tui delete`, `restore` and
`trash --empty` run at once as processes, some killed (SIGKILL) at random points, and no
session's bytes are lost: every session is whole where it is (the store, the listed
trash), a `restored X` means X is whole in the store, and what an interrupted emptying
leaves is never listed nor restorable.

Each kill waits on a condition (a file gone, a folder emptied to a random count, a
process's own end), never on time. ZERO_TUI_CRASH_ITERATIONS sets the number of rounds
(30 by default; the issue's figure is 300)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import HANG_SECONDS

from zero_tui.store import SessionStore
from zero_tui.store.trash import EMPTYING, empty_trash, move_to_trash, trash_contents

ITERATIONS = int(os.environ.get("ZERO_TUI_CRASH_ITERATIONS", "30"))
BLOBS = 120  # files per session: a removal that takes long enough to be cut
SESSIONS = ("s0-trashed", "s1-trashed", "s2-kept", "s3-kept")


def files_of(directory: Path) -> dict[str, bytes]:
    """Every file below `directory` but the (empty) lock file, with its bytes."""
    found: dict[str, bytes] = {}
    for folder, _dirs, names in os.walk(directory):
        for name in names:
            if name != "session.lock":
                path = Path(folder, name)
                found[str(path.relative_to(directory))] = path.read_bytes()
    return found


def build_store(root: Path, rng: random.Random) -> tuple[SessionStore, dict[str, dict[str, bytes]]]:
    store = SessionStore(root)
    for session_id in SESSIONS:
        store.create(session_id, title=session_id, cwd="/w")
        store.append_events(
            session_id,
            [
                ("message", {"role": "user", "content": f"question {rng.random()}"}),
                ("message", {"role": "assistant", "content": "answer " * 50}),
            ],
        )
        blobs = store.session_dir(session_id) / "checkpoints" / "blobs"
        blobs.mkdir(parents=True)
        for index in range(BLOBS):
            (blobs / f"blob-{index:04d}").write_bytes(os.urandom(64))
    originals = {session_id: files_of(store.session_dir(session_id)) for session_id in SESSIONS}
    return store, originals


def wait_for(condition: Callable[[], bool], process: subprocess.Popen[bytes]) -> None:
    """Until `condition` holds or `process` has ended (whichever comes first)."""
    deadline = time.monotonic() + HANG_SECONDS  # bounds a hang only
    while not condition() and process.poll() is None:
        assert time.monotonic() < deadline, "neither the condition nor the process ended"
        time.sleep(0.0005)


def emptying_count_below(trash_dir: Path, threshold: int) -> Callable[[], bool]:
    def below() -> bool:
        aside = trash_dir / EMPTYING
        try:
            entries = os.listdir(aside)
        except OSError:
            return False
        for entry in entries:
            try:
                left = len(os.listdir(aside / entry / "checkpoints" / "blobs"))
            except OSError:
                left = 0
            if left <= threshold:
                return True
        return False

    return below


def gone(path: Path) -> Callable[[], bool]:
    return lambda: not path.exists()


def one_round(tmp: Path, rng: random.Random, monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    env = dict(
        os.environ,
        ZERO_TUI_DATA_DIR=str(tmp / "data"),
        ZERO_TUI_CACHE_DIR=str(tmp / "cache"),
        XDG_RUNTIME_DIR=str(tmp / "runtime"),
        XDG_DATA_HOME=str(tmp / "xdg"),  # any `zero` this starts writes elsewhere
    )
    (tmp / "runtime").mkdir(parents=True)
    store, originals = build_store(tmp / "zero" / "sessions", rng)
    for name in ("ZERO_TUI_DATA_DIR", "XDG_RUNTIME_DIR"):  # this process's trash too
        monkeypatch.setenv(name, env[name])
    for session_id in SESSIONS[:2]:
        move_to_trash(store, session_id)
    [trash_dir] = {item.entry.parent for item in trash_contents(store).items}
    base = ["--store", str(store.root), "--cwd", "/w"]
    commands = {
        "empty": ["trash", "--empty", *base],
        "restore": ["restore", SESSIONS[0], SESSIONS[1], *base],
        "delete": ["delete", SESSIONS[2], SESSIONS[3], "--yes", *base],
    }
    order = list(commands)
    rng.shuffle(order)
    processes = {
        name: subprocess.Popen(
            [sys.executable, "-m", "zero_tui", *commands[name]],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for name in order
    }
    kills = {
        "empty": emptying_count_below(trash_dir, rng.randrange(BLOBS)),
        "restore": (lambda: True)  # at once: as it starts
        if rng.random() < 0.3
        else (lambda: store.session_dir(SESSIONS[0]).exists()),
        "delete": gone(store.session_dir(SESSIONS[2 + rng.randrange(2)])),
    }
    killed = 0
    for name in [name for name in order if rng.random() < 0.5]:
        wait_for(kills[name], processes[name])
        if processes[name].poll() is None:
            processes[name].send_signal(signal.SIGKILL)
            killed += 1
    outputs = {name: process.communicate()[0].decode() for name, process in processes.items()}

    contents = trash_contents(store)
    for damaged in contents.damaged:  # only what an emptying had taken out of the list
        assert damaged.path.parent.name == EMPTYING, damaged
    listed = {item.session_id: item for item in contents.items}
    for session_id, original in originals.items():
        here = store.session_dir(session_id)
        if here.exists():
            assert files_of(here) == original, f"{session_id} is not whole in the store"
            assert session_id not in listed
        if session_id in listed:
            assert files_of(listed[session_id].entry) == original, f"{session_id} in trash"
    for session_id in SESSIONS[:2]:
        if f"restored {session_id}\n" in outputs["restore"]:
            assert files_of(store.session_dir(session_id)) == originals[session_id]
    empty_trash(store)  # finishes what was cut
    assert trash_contents(store).damaged == []
    assert set(os.listdir(trash_dir)) <= {".lock", EMPTYING}  # no record left behind
    assert not (trash_dir / EMPTYING).exists() or os.listdir(trash_dir / EMPTYING) == []
    return {"killed": killed, "damaged": len(contents.damaged)}


@pytest.mark.timeout(120 + 10 * ITERATIONS)  # a round takes 1-3 s on a busy machine
@pytest.mark.parametrize("seed", [25])
def test_no_session_is_lost_to_deletes_restores_and_empties_killed_at_random(
    tmp_path: Path, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed)
    totals = {"killed": 0, "damaged": 0}
    for iteration in range(ITERATIONS):
        figures = one_round(tmp_path / f"round-{iteration}", rng, monkeypatch)
        for key, value in figures.items():
            totals[key] += value
    print(
        f"{ITERATIONS} rounds: {totals['killed']} processes killed, "
        f"{totals['damaged']} half-emptied entries left and finished, 0 sessions lost"
    )
