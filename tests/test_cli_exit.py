"""A scriptable command as its own process: it ends as any Python program does (its exit
handlers run, the collector left alone), with everything written and its exit code."""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from zero_tui import cli
from zero_tui.store import SessionStore


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    store = SessionStore(tmp_path / "sessions")
    for number in range(300):
        session_id = f"s{number:03d}"
        store.create(session_id, title=f"Session {number}", cwd="/home/dev/here")
        store.append_events(
            session_id,
            [
                ("message", {"role": "user", "content": f"kestrel number {number}"}),
                ("message", {"role": "assistant", "content": "a small falcon"}),
            ],
        )
    return store


def zero_tui(store: SessionStore, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The script as a user runs it (`python -m zero_tui` runs the same entry point)."""
    env = {**os.environ, "ZERO_TUI_CACHE_DIR": str(tmp_path / "cache")}
    command = [sys.executable, "-m", "zero_tui", *args, "--store", str(store.root)]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)


def test_the_script_writes_everything_before_it_ends(store: SessionStore, tmp_path: Path) -> None:
    found = zero_tui(store, tmp_path, "search", "kestrel", "--all", "--json", "--limit", "300")
    assert found.returncode == 0, found.stderr
    assert len(json.loads(found.stdout)) == 300
    listed = zero_tui(store, tmp_path, "sessions", "--all", "--json")
    assert listed.returncode == 0, listed.stderr
    assert len(json.loads(listed.stdout)) == 300
    # the catalog it wrote is whole: a second process reads it as it left it
    again = zero_tui(store, tmp_path, "search", "falcon", "--all", "--json", "--limit", "300")
    assert again.returncode == 0, again.stderr
    ids = [hit["sessionId"] for hit in json.loads(found.stdout)]
    assert [hit["sessionId"] for hit in json.loads(again.stdout)] == ids


def test_the_script_keeps_its_exit_codes(store: SessionStore, tmp_path: Path) -> None:
    assert zero_tui(store, tmp_path, "search", "nothing-says-this", "--all").returncode == 1
    usage = zero_tui(store, tmp_path, "search", "--limit", "0", "kestrel")
    assert usage.returncode == 2
    assert usage.stderr.count("\n") == 1


def test_a_reader_that_goes_away_ends_it_quietly(store: SessionStore, tmp_path: Path) -> None:
    env = {**os.environ, "ZERO_TUI_CACHE_DIR": str(tmp_path / "cache")}
    command = [sys.executable, "-m", "zero_tui", "sessions", "--all", "--store", str(store.root)]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    ) as process:
        assert process.stdout is not None
        assert process.stderr is not None
        process.stdout.readline()
        process.stdout.close()  # as `| head -1` does
        errors = process.stderr.read()
        assert process.wait(timeout=60) == 0
    assert b"Traceback" not in errors
    assert b"BrokenPipe" not in errors


def test_the_script_runs_its_exit_handlers(store: SessionStore, tmp_path: Path) -> None:
    script = (
        "import atexit, sys\n"
        "from zero_tui.cli import run\n"
        "atexit.register(lambda: sys.stderr.write('exit handlers ran\\n'))\n"
        "sys.argv = ['zero-tui', *sys.argv[1:]]\n"
        "run()\n"
    )
    env = {**os.environ, "ZERO_TUI_CACHE_DIR": str(tmp_path / "cache")}
    command = [sys.executable, "-c", script, "sessions", "--all", "--store", str(store.root)]
    ended = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
    assert ended.returncode == 0, ended.stderr
    assert ended.stderr.endswith("exit handlers ran\n")


def test_a_command_runs_with_the_collector_on(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[bool] = []

    def sessions(args: argparse.Namespace, out: object, err: object) -> int:
        seen.append(gc.isenabled())
        return 0

    monkeypatch.setattr(cli, "cmd_sessions", sessions)
    assert cli.main(["sessions", "--store", str(store.root)]) == 0
    assert seen == [True]
