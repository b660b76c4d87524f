"""Which sessions an agent is writing now (issue 17 item 3), and one run per session
across zero-tui processes (item 4): `zero_tui.agent.running`."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from zero_tui.agent import running as running_module
from zero_tui.agent.running import (
    RECENT_SECONDS,
    RunBusy,
    claim_run,
    running_sessions,
    session_named_by,
)
from zero_tui.store import SessionStore
from zero_tui.text import labels

ANSWERED = [
    ("message", {"role": "user", "content": "hi"}),
    ("message", {"role": "assistant", "content": "hello"}),
]
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SessionStore:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "runtime"))
    (tmp_path / "runtime").mkdir(mode=0o700)
    monkeypatch.setattr(running_module, "_process_scan", None)
    store = SessionStore(tmp_path / "zero" / "sessions")
    for session_id in ("quiet", "busy"):
        store.create(session_id, cwd="/w")
        store.append_events(session_id, ANSWERED)
    return store


def age(store: SessionStore, session_id: str, seconds: float) -> None:
    """Make the session look written `seconds` ago."""
    moment = time.time() - seconds
    for path in (store.events_path(session_id), store.metadata_path(session_id)):
        os.utime(path, (moment, moment))


def kinds(store: SessionStore) -> dict[str, str]:
    running_module._process_scan = None
    return {sid: found.kind for sid, found in running_sessions(store).items()}


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["zero", "exec", "--resume", "S1", "--", "hi"], "S1"),
        (["/opt/bin/zero", "exec", "--output-format", "stream-json", "--resume=S2"], "S2"),
        (["zero", "exec", "--init-session-id", "S3", "go"], "S3"),
        (["zero", "-p", "hi", "--resume", "S4"], "S4"),
        (["python3", "/tmp/fake/zero", "exec", "--resume=S5"], "S5"),
        (["zero", "exec", "--resume", "--", "hi"], None),  # bare --resume: latest, unnamed
        (["zero", "exec", "--", "--resume", "S6"], None),  # prompt text, not a flag
        (["zero", "exec", "-r", "high", "hi"], None),  # -r is the reasoning effort
        (["zero"], None),  # Zero's TUI never names its session
        (["vim", "--resume", "S7"], None),  # not a zero
    ],
)
def test_the_session_a_zero_command_line_names(argv: list[str], named: str | None) -> None:
    assert session_named_by(argv) == named


def test_a_quiet_store_has_nothing_running(store: SessionStore) -> None:
    age(store, "quiet", 3600)
    age(store, "busy", 3600)
    assert kinds(store) == {}


def test_a_prompt_written_just_now_is_a_run_in_flight(store: SessionStore) -> None:
    age(store, "quiet", 3600)
    store.append_events("busy", [("message", {"role": "user", "content": "again"})])
    assert kinds(store) == {"busy": "recent"}
    store.append_events("busy", [("tool_call", {"name": "bash", "arguments": "{}"})])
    assert kinds(store) == {"busy": "recent"}
    store.append_events("busy", [("error", {"message": "interrupted"})])
    assert kinds(store) == {}  # an error closes the run
    store.append_events("busy", [("message", {"role": "user", "content": "and again"})])
    age(store, "busy", RECENT_SECONDS + 5)
    assert kinds(store) == {}  # silent for too long: not said to run


def test_a_zero_process_naming_the_session(store: SessionStore, tmp_path: Path) -> None:
    fake = tmp_path / "bin" / "zero"
    fake.parent.mkdir()
    fake.write_text(f"#!{sys.executable}\nimport time\ntime.sleep(30)\n")
    fake.chmod(0o755)
    age(store, "busy", 3600)
    writes_here = dict(os.environ, XDG_DATA_HOME=str(tmp_path))  # Zero's root: this store
    process = subprocess.Popen(
        [str(fake), "exec", "--resume=busy", "--", "a prompt"], env=writes_here
    )
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and "busy" not in kinds(store):
            time.sleep(0.05)
        found = running_sessions(store)["busy"]
        assert (found.kind, found.pid) == ("zero-process", process.pid)
        assert found.describe() == f"in a `zero` process (pid {process.pid})"
        with pytest.raises(RunBusy, match=f"running in a `zero` process \\(pid {process.pid}\\)"):
            claim_run(store, "busy")
    finally:
        process.kill()
        process.wait()
    assert kinds(store) == {}


def test_a_zero_process_of_another_store_is_not_this_stores_run(
    store: SessionStore, tmp_path: Path
) -> None:
    """Zero writes the store its environment names: the same id in another store (two test
    runs at once, a second data home) is another session, not this one running."""
    fake = tmp_path / "bin" / "zero"
    fake.parent.mkdir()
    fake.write_text(f"#!{sys.executable}\nimport time\ntime.sleep(30)\n")
    fake.chmod(0o755)
    age(store, "busy", 3600)
    elsewhere = dict(os.environ, XDG_DATA_HOME=str(tmp_path / "other"))
    relative = dict(os.environ, XDG_DATA_HOME=".")  # Zero's root: <its cwd>/zero/sessions
    other = subprocess.Popen([str(fake), "exec", "--resume", "busy"], env=elsewhere)
    here = subprocess.Popen(
        [str(fake), "exec", "--resume", "busy"], env=relative, cwd=str(tmp_path)
    )
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and "busy" not in kinds(store):
            time.sleep(0.05)
        assert running_sessions(store)["busy"].pid == here.pid
        here.kill()
        here.wait()
        running_module._process_scan = None
        assert kinds(store) == {}  # only the other store's `zero` is left
    finally:
        for process in (other, here):
            process.kill()
            process.wait()


def test_zero_s_own_tui_with_a_turn_in_flight(store: SessionStore, tmp_path: Path) -> None:
    age(store, "quiet", 3600)
    registry = tmp_path / "runtime" / "zero" / "peers" / "registry"
    registry.mkdir(parents=True)
    record = {"sessionId": "busy", "pid": os.getpid(), "cwd": "/w"}
    (registry / f"{os.getpid()}-abc.json").write_text(json.dumps(record))
    store.append_events("busy", [("message", {"role": "user", "content": "long turn"})])
    age(store, "busy", 3600)  # Zero's TUI writes nothing until the turn ends
    assert kinds(store) == {"busy": "zero-ui"}
    store.append_events("busy", [("message", {"role": "assistant", "content": "done"})])
    age(store, "busy", 3600)
    assert kinds(store) == {}  # open in Zero's TUI, but idle


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
    """Another zero-tui process that holds the run of `busy`."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    process = subprocess.Popen(
        [sys.executable, "-c", CLAIMER, str(store.root), "busy"],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    assert process.stdout.readline() == "claimed\n"
    try:
        yield process
    finally:
        process.kill()
        process.wait()


def test_a_run_of_another_zero_tui_is_marked_and_refused(
    store: SessionStore, other_zero_tui: subprocess.Popen[str]
) -> None:
    age(store, "busy", 3600)
    found = running_sessions(store)["busy"]
    assert (found.kind, found.pid, found.own) == ("zero-tui", other_zero_tui.pid, False)
    with pytest.raises(RunBusy, match=f"in another zero-tui \\(pid {other_zero_tui.pid}\\)"):
        claim_run(store, "busy")
    with claim_run(store, "quiet") as claim:  # another session is free
        assert running_sessions(store)["quiet"].own
        assert claim.session_id == "quiet"
    assert "quiet" not in kinds(store)


def test_a_killed_zero_tui_leaves_no_mark(
    store: SessionStore, other_zero_tui: subprocess.Popen[str]
) -> None:
    age(store, "busy", 3600)
    other_zero_tui.send_signal(signal.SIGKILL)
    other_zero_tui.wait()
    assert kinds(store) == {}
    with claim_run(store, "busy"):
        assert running_sessions(store)["busy"].describe() == "in this zero-tui"


def test_a_new_sessions_run_is_claimed_though_its_log_was_written_just_now(
    store: SessionStore,
) -> None:
    """The agent creates a new session and writes the prompt before zero-tui can claim it:
    that log, written just now and ending in a prompt, is this run's own."""
    store.append_events("busy", [("message", {"role": "user", "content": "new run"})])
    assert kinds(store) == {"busy": "recent"}
    with pytest.raises(RunBusy):
        claim_run(store, "busy")
    with claim_run(store, "busy", new_session=True):
        assert running_sessions(store)["busy"].own


def test_this_processs_own_ended_run_is_not_someone_elses(store: SessionStore) -> None:
    """A run of ours killed mid-turn leaves a log that looks in flight for a while; a log
    last written before our run ended is not another writer's."""
    age(store, "quiet", 3600)
    store.append_events("busy", [("message", {"role": "user", "content": "killed"})])
    ended = time.time() + 1
    with pytest.raises(RunBusy, match="wrote to it in the last seconds"):
        claim_run(store, "busy")
    with claim_run(store, "busy", quiet_since=ended):
        pass
    # written again after our run ended: someone else's
    time.sleep(0.01)
    store.append_events("busy", [("message", {"role": "user", "content": "elsewhere"})])
    with pytest.raises(RunBusy):
        claim_run(store, "busy", quiet_since=ended - 1)


def test_a_second_claim_in_this_process_is_said_to_be_this_zero_tuis(
    store: SessionStore,
) -> None:
    with claim_run(store, "quiet"), pytest.raises(RunBusy) as busy:
        claim_run(store, "quiet")
    assert busy.value.running.describe() == "in this zero-tui"


def test_a_fork_or_a_rewind_just_written_is_not_a_run(store: SessionStore) -> None:
    age(store, "quiet", 3600)
    store.append_events("busy", [("session_fork", {"parentSessionId": "p"})])
    assert kinds(store) == {}
    store.append_events("busy", [("tool_call", {"name": "bash"})])
    assert kinds(store) == {"busy": "recent"}
    store.append_events("busy", [("session_rewind", {"targetSequence": 2})])
    assert kinds(store) == {}


@pytest.mark.parametrize("offset", ["+14:00", "-12:00", "Z"])
def test_a_listed_session_written_just_now_is_found_whatever_its_zone(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch, offset: str
) -> None:
    """A listing asks of each session's `updatedAt`; the days long before the window are
    passed over without a parse, a time just now in any zone is not."""
    from datetime import UTC, datetime, timedelta, timezone

    now = time.time()
    store.append_events("busy", [("message", {"role": "user", "content": "again"})])
    age(store, "quiet", 3600)
    zone = UTC if offset == "Z" else timezone(timedelta(hours=int(offset[:3])))
    just_now = datetime.fromtimestamp(now - 1, zone).strftime("%Y-%m-%dT%H:%M:%S")
    busy = store.get("busy")
    quiet = store.get("quiet")
    assert busy is not None
    assert quiet is not None
    busy = dataclasses.replace(busy, updated_at=just_now + offset)
    long_ago = dataclasses.replace(quiet, updated_at="2020-01-01T00:00:00Z")
    parsed: list[str] = []
    real = labels.parse_rfc3339

    def counted(text: str) -> object:
        parsed.append(text)
        return real(text)

    monkeypatch.setattr(running_module, "parse_rfc3339", counted)
    running_module._process_scan = None
    found = running_sessions(store, [busy, long_ago], now=now)
    assert {sid: item.kind for sid, item in found.items()} == {"busy": "recent"}
    assert parsed == [busy.updated_at]
