"""Hosts, their mirrors and the CLI over them, against a real sshd on 127.0.0.1 and the
real rsync (tests/ssh_host.py): add, list, remove, sync, --host on sessions, search,
show and export, and the faults, each one line on stderr that harms no other mirror."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import HANG_GUARD_SECONDS, StoreBuilder, assistant, chat, user
from host_fixtures import SESSION
from process_tree import left_alive
from ssh_host import SshHost, free_port
from ssh_host import ssh_host as ssh_host  # the fixture

from zero_tui.cli import main
from zero_tui.hosts.mirror import sync_host
from zero_tui.hosts.registry import Host, SyncStopped, load_hosts, load_state, mirror_root
from zero_tui.store import SessionStore
from zero_tui.store.store import EVENTS_FILE

REMOTE_ID = SESSION  # one id per xdist worker (host_fixtures says why)
OTHER_ID = "zero_20260704090000_1783155600000000000_2"
LOCAL_ID = "zero_20260704080000_1783152000000000000_3"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def remote(ssh_host: SshHost) -> StoreBuilder:
    builder = StoreBuilder(ssh_host.store)
    builder.add(REMOTE_ID, title="remote parser fix", cwd="/src/app", events=chat("fix the parser"))
    builder.add(OTHER_ID, title="remote docs", cwd="/src/app", updated_at="2026-07-04T09:00:00Z")
    return builder


@pytest.fixture
def local_store(tmp_path: Path) -> StoreBuilder:
    builder = StoreBuilder(tmp_path / "local-store")
    builder.store.root.mkdir(parents=True)
    builder.add(LOCAL_ID, title="local work", cwd="/src/app", updated_at="2026-07-04T08:00:00Z")
    return builder


@pytest.fixture
def synced(capsys: pytest.CaptureFixture[str], ssh_host: SshHost, remote: StoreBuilder) -> SshHost:
    assert run(capsys, "hosts", "add", "devbox", ssh_host.alias)[0] == 0
    code, out, err = run(capsys, "sync", "devbox")
    assert (code, err) == (0, ""), err
    assert out == "devbox: 2 sessions, " + out.split(", ", 1)[1]
    return ssh_host


def log_bytes(root: Path, session_id: str) -> bytes:
    return (root / session_id / EVENTS_FILE).read_bytes()


def test_add_asks_the_host_for_zeros_default_store(
    capsys: pytest.CaptureFixture[str], ssh_host: SshHost
) -> None:
    code, out, err = run(capsys, "hosts", "add", "devbox", ssh_host.alias)
    assert (code, err) == (0, "")
    assert f"devbox:{ssh_host.store}" in out
    host = load_hosts()["devbox"]
    assert (host.target, host.store, host.has_zero) == ("devbox", str(ssh_host.store), True)
    code, out, _err = run(capsys, "hosts", "list", "--json")
    [row] = json.loads(out)
    assert (row["name"], row["state"], row["lastSync"], row["sessions"]) == (
        "devbox",
        "never synced",
        None,
        0,
    )


def test_sync_mirrors_the_store_and_the_cli_reads_it_tagged(
    capsys: pytest.CaptureFixture[str], synced: SshHost, local_store: StoreBuilder
) -> None:
    mirror = mirror_root("devbox")
    assert log_bytes(mirror, REMOTE_ID) == log_bytes(synced.store, REMOTE_ID)
    assert not list(mirror.glob("*/session.lock"))
    store = ("--store", str(local_store.root), "--cwd", "/src/app")
    code, out, _err = run(capsys, "sessions", *store, "--host", "devbox", "--json")
    rows = [(row["sessionId"], row["host"]) for row in json.loads(out)]
    assert rows == [(REMOTE_ID, "devbox"), (OTHER_ID, "devbox"), (LOCAL_ID, None)]
    code, out, _err = run(capsys, "sessions", *store, "--host", "all")
    assert "@devbox remote parser fix" in out
    assert "local work" in out
    assert "@devbox local work" not in out
    code, out, _err = run(capsys, "search", *store, "--host", "devbox", "parser", "--json")
    assert code == 0
    assert [(hit["sessionId"], hit["host"]) for hit in json.loads(out)] == [(REMOTE_ID, "devbox")]
    code, out, _err = run(capsys, "show", *store, "--host", "devbox", REMOTE_ID[:22])
    assert code == 0
    assert "fix the parser" in out
    code, out, _err = run(capsys, "export", *store, "--host", "devbox", REMOTE_ID, "-o", "-")
    assert (code, "fix the parser" in out) == (0, True)
    code, out, _err = run(capsys, "hosts", "list", "--json")
    [row] = json.loads(out)
    assert (row["state"], row["sessions"], row["error"]) == ("synced", 2, None)


def test_without_host_the_cli_is_unchanged(
    capsys: pytest.CaptureFixture[str], synced: SshHost, local_store: StoreBuilder
) -> None:
    _code, out, _err = run(capsys, "sessions", "--store", str(local_store.root), "--all", "--json")
    [row] = json.loads(out)
    assert row["sessionId"] == LOCAL_ID
    assert "host" not in row


def test_an_append_travels_as_a_delta_and_ends_consistent(
    capsys: pytest.CaptureFixture[str], synced: SshHost, remote: StoreBuilder
) -> None:
    before = len(log_bytes(synced.store, REMOTE_ID))
    remote.store.append_events(REMOTE_ID, [user("and the tests"), assistant("added")] * 5)
    appended = len(log_bytes(synced.store, REMOTE_ID)) - before
    code, _out, err = run(capsys, "sync", "devbox")
    assert (code, err) == (0, "")
    assert log_bytes(mirror_root("devbox"), REMOTE_ID) == log_bytes(synced.store, REMOTE_ID)
    stats = load_state("devbox").stats
    # the log's appended bytes, and the metadata (rewritten whole by Zero) by its delta
    assert 0 < stats["literal_data"] <= 2 * appended
    mirrored = SessionStore(mirror_root("devbox")).get(REMOTE_ID)
    assert mirrored is not None
    assert mirrored.event_count == 12


def test_a_torn_last_line_reads_as_locally_and_the_next_sync_completes_it(
    capsys: pytest.CaptureFixture[str], synced: SshHost, remote: StoreBuilder
) -> None:
    log = synced.store / REMOTE_ID / EVENTS_FILE
    whole = log.read_bytes()
    remote.store.append_events(REMOTE_ID, [user("half written")])
    complete = log.read_bytes()
    log.write_bytes(complete[: len(whole) + 20])  # Zero killed mid-append
    assert run(capsys, "sync", "devbox")[0] == 0
    events = SessionStore(mirror_root("devbox")).read_events(REMOTE_ID)
    assert len(events) == 2
    log.write_bytes(complete)
    assert run(capsys, "sync", "devbox")[0] == 0
    assert log_bytes(mirror_root("devbox"), REMOTE_ID) == complete


def test_a_session_removed_on_the_host_leaves_the_mirror(
    capsys: pytest.CaptureFixture[str], synced: SshHost
) -> None:
    import shutil

    shutil.rmtree(synced.store / OTHER_ID)
    assert run(capsys, "sync")[0] == 0
    assert not (mirror_root("devbox") / OTHER_ID).exists()
    assert (mirror_root("devbox") / REMOTE_ID).is_dir()


def test_remove_forgets_the_host_and_its_mirror(
    capsys: pytest.CaptureFixture[str], synced: SshHost
) -> None:
    code, out, _err = run(capsys, "hosts", "remove", "devbox")
    assert (code, out) == (0, "removed devbox and its mirror\n")
    assert load_hosts() == {}
    assert not mirror_root("devbox").exists()
    code, _out, err = run(capsys, "sessions", "--host", "devbox")
    assert code == 1
    assert err.startswith("zero-tui: no host named 'devbox'")


@pytest.mark.parametrize("name", ["../up", "a/b", "all", "", "-x", "x" * 65])
def test_a_name_that_cannot_be_a_path_part_is_refused(
    capsys: pytest.CaptureFixture[str], name: str
) -> None:
    code, _out, err = run(capsys, "hosts", "add", "--", name, "devbox")
    assert code == 1
    assert err.startswith("zero-tui: bad host name")
    assert err.count("\n") == 1
    assert load_hosts() == {}


# --- faults ---------------------------------------------------------------------------


def one_line(err: str) -> str:
    assert err.count("\n") == 1, err
    return err


def test_a_host_that_is_down_is_one_line_and_the_mirror_stays(
    capsys: pytest.CaptureFixture[str], synced: SshHost
) -> None:
    synced.stop()
    code, _out, err = run(capsys, "sync", "devbox")
    assert code == 1
    assert one_line(err) == "zero-tui: devbox: unreachable (connection refused)\n"
    assert (mirror_root("devbox") / REMOTE_ID).is_dir()
    state = load_state("devbox")
    assert (state.state, state.sessions) == ("failing", 2)
    assert state.last_sync
    code, out, _err = run(capsys, "sessions", "--all", "--host", "devbox", "--json")
    assert REMOTE_ID in out  # offline: the mirror is read


def test_a_changed_host_key_is_refused_and_said(
    capsys: pytest.CaptureFixture[str], synced: SshHost
) -> None:
    synced.regenerate_host_key()
    code, _out, err = run(capsys, "sync", "devbox")
    assert code == 1
    assert one_line(err).startswith("zero-tui: devbox: its host key changed; refused")
    assert synced.known_hosts.read_text().count("\n") == 1  # never learned silently


def test_a_host_that_does_not_answer_times_out(
    capsys: pytest.CaptureFixture[str],
    ssh_host: SshHost,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()  # accepts the connection, never says a word of SSH
        port = silent.getsockname()[1]
        ssh_host.write_config({"slow": port})
        monkeypatch.setenv("ZERO_TUI_SSH_TIMEOUT", "1")
        code, _out, err = run(capsys, "hosts", "add", "slow", "slow")
    assert code == 1
    assert one_line(err) == (
        "zero-tui: slow: no answer within 1 s (ConnectTimeout; ZERO_TUI_SSH_TIMEOUT)\n"
    )
    assert load_hosts() == {}


def test_a_drop_mid_sync_keeps_the_last_mirror_and_the_next_sync_mends_it(
    capsys: pytest.CaptureFixture[str], synced: SshHost, remote: StoreBuilder
) -> None:
    before = log_bytes(mirror_root("devbox"), REMOTE_ID)
    remote.store.append_events(REMOTE_ID, [user("more"), assistant("yes")])
    dropping = synced.bin / "rsync"  # the host's rsync kills its ssh session as it starts
    dropping.write_text("#!/bin/sh\nkill -KILL $PPID\nexit 1\n")
    dropping.chmod(0o755)
    code, _out, err = run(capsys, "sync", "devbox")
    assert code == 1
    assert one_line(err).startswith("zero-tui: devbox: the connection dropped")
    assert log_bytes(mirror_root("devbox"), REMOTE_ID) == before
    dropping.unlink()
    assert run(capsys, "sync", "devbox")[0] == 0
    assert log_bytes(mirror_root("devbox"), REMOTE_ID) == log_bytes(synced.store, REMOTE_ID)


def test_a_failing_host_never_stops_or_harms_another(
    capsys: pytest.CaptureFixture[str], synced: SshHost
) -> None:
    synced.write_config({"gone": synced.port})
    assert run(capsys, "hosts", "add", "gone", "gone")[0] == 0
    synced.write_config({"gone": free_port()})  # nothing listens there now
    code, out, err = run(capsys, "sync")
    assert code == 1
    assert one_line(err) == "zero-tui: gone: unreachable (connection refused)\n"
    assert out.startswith("devbox: 2 sessions")
    assert log_bytes(mirror_root("devbox"), REMOTE_ID) == log_bytes(synced.store, REMOTE_ID)


def test_a_missing_remote_store_is_said_at_add_and_fails_the_sync(
    capsys: pytest.CaptureFixture[str], ssh_host: SshHost
) -> None:
    missing = ssh_host.home / "nowhere"
    code, _out, err = run(capsys, "hosts", "add", "devbox", "devbox", "--store", str(missing))
    assert code == 0
    assert one_line(err) == f"zero-tui: devbox: no Zero store at devbox:{missing} " + (
        "(Zero writes it on its first session)\n"
    )
    code, _out, err = run(capsys, "sync", "devbox")
    assert code == 1
    assert one_line(err).startswith("zero-tui: devbox: no Zero store at")
    assert not mirror_root("devbox").exists()


def test_an_unreadable_remote_store_fails_the_sync(
    capsys: pytest.CaptureFixture[str], ssh_host: SshHost
) -> None:
    not_a_store = ssh_host.home / "file"
    not_a_store.write_text("")
    run(capsys, "hosts", "add", "devbox", "devbox", "--store", str(not_a_store))
    code, _out, err = run(capsys, "sync", "devbox")
    assert code == 1
    assert one_line(err) == f"zero-tui: devbox: the Zero store at devbox:{not_a_store} " + (
        "is not a directory\n"
    )


def test_a_host_without_zero_is_browse_only(
    capsys: pytest.CaptureFixture[str], ssh_host: SshHost, remote: StoreBuilder
) -> None:
    ssh_host.remove_zero()
    code, _out, err = run(capsys, "hosts", "add", "devbox", "devbox")
    assert code == 0
    assert one_line(err) == (
        "zero-tui: devbox: no zero on its PATH; its sessions can be browsed only\n"
    )
    assert run(capsys, "sync")[0] == 0
    code, out, _err = run(capsys, "hosts", "list")
    assert "(browse only: no zero there)" in out
    assert "  2 sessions  synced" in out
    shutil.rmtree(min(path for path in ssh_host.store.iterdir() if path.is_dir()))
    code, out, _err = run(capsys, "sync")
    assert out.startswith("devbox: 1 session, ")
    code, out, _err = run(capsys, "hosts", "list")
    assert "  1 session  synced" in out


def test_a_session_appended_during_a_sync_is_consistent_after_the_next(
    capsys: pytest.CaptureFixture[str], synced: SshHost, remote: StoreBuilder
) -> None:
    log = synced.store / REMOTE_ID / EVENTS_FILE
    whole = log.read_bytes()
    remote.store.append_events(REMOTE_ID, [user("written while syncing")])
    complete = log.read_bytes()
    log.write_bytes(whole)
    tail = synced.base / "tail"
    tail.write_bytes(complete[len(whole) :])
    # the host's rsync appends half of the next event as the sync starts, the rest as it
    # ends
    half = len(complete) - len(whole) - 10
    appending = synced.bin / "rsync"
    appending.write_text(
        "#!/bin/sh\n"
        f"head -c {half} {tail} >> {log}\n"
        '/usr/bin/rsync "$@"\ncode=$?\n'
        f"tail -c +{half + 1} {tail} >> {log}\nrm -f {appending}\nexit $code\n"
    )
    appending.chmod(0o755)
    assert run(capsys, "sync", "devbox")[0] == 0
    mirror = mirror_root("devbox")
    assert len(SessionStore(mirror).read_events(REMOTE_ID)) == 2  # the torn line skipped
    assert log.read_bytes() == complete
    assert run(capsys, "sync", "devbox")[0] == 0
    assert log_bytes(mirror, REMOTE_ID) == complete
    assert len(SessionStore(mirror).read_events(REMOTE_ID)) == 3


def test_a_sync_says_how_far_it_is_as_it_goes(
    capsys: pytest.CaptureFixture[str], ssh_host: SshHost, remote: StoreBuilder
) -> None:
    assert run(capsys, "hosts", "add", "devbox", ssh_host.alias)[0] == 0
    seen: list[int] = []
    report = sync_host(load_hosts()["devbox"], seen.append)
    assert report.sessions == 2
    assert seen
    assert seen[-1] == 100
    assert seen == sorted(seen)
    assert log_bytes(mirror_root("devbox"), REMOTE_ID) == log_bytes(ssh_host.store, REMOTE_ID)


@pytest.fixture
def private_temp(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The syncs' temporary directories (each ssh connection's socket) made under here: a
    short path beside the system's, as a Unix socket's path is at most 107 bytes."""
    temp = Path(tempfile.mkdtemp(prefix="zt-test-"))
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    yield temp
    shutil.rmtree(temp, ignore_errors=True)


def test_a_sync_stopped_while_the_host_does_not_answer_ends_its_connection(
    ssh_host: SshHost, monkeypatch: pytest.MonkeyPatch, private_temp: Path
) -> None:
    """The app quits while a host that is down is being reached: the sync does not wait for
    ConnectTimeout (here longer than a test may take); it ends ssh, leaves no directory
    behind and the host's state as it was."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()  # accepts the connection, never says a word of SSH
        ssh_host.write_config({"slow": silent.getsockname()[1]})
        monkeypatch.setenv("ZERO_TUI_SSH_TIMEOUT", str(HANG_GUARD_SECONDS))
        asked: list[bool] = []

        def stop() -> bool:  # False while ssh starts, then True: the quit comes meanwhile
            asked.append(True)
            return len(asked) > 1

        state = load_state("slow")
        with pytest.raises(SyncStopped, match=r"^slow: the sync stopped$"):
            sync_host(Host("slow", "slow", "/srv/zero/sessions"), stop=stop)
    assert load_state("slow") == state
    assert list(private_temp.iterdir()) == []
    assert left_alive(str(private_temp).encode()) == []


def test_a_sync_stopped_mid_transfer_ends_rsync_and_the_connection(
    capsys: pytest.CaptureFixture[str], synced: SshHost, private_temp: Path
) -> None:
    """Stopped while rsync runs (the host's rsync hangs here): rsync and the ssh master end,
    the state stays the last sync's, and the next sync goes as usual."""
    state = load_state("devbox")
    started = synced.home / "rsync-started"
    hanging = synced.bin / "rsync"
    hanging.write_text(f"#!/bin/sh\necho $$ > {started}\nexec sleep {HANG_GUARD_SECONDS}\n")
    hanging.chmod(0o755)
    try:
        with pytest.raises(SyncStopped, match=r"^devbox: the sync stopped$"):
            sync_host(load_hosts()["devbox"], stop=started.exists)
    finally:
        with contextlib.suppress(OSError, ValueError):  # the host's side is the test's
            os.kill(int(started.read_text()), signal.SIGTERM)
    assert load_state("devbox") == state
    assert list(private_temp.iterdir()) == []
    # the master exits on its own time after `ssh -O exit` answers
    assert left_alive(str(private_temp).encode()) == []
    hanging.unlink()
    assert run(capsys, "sync", "devbox")[0] == 0
