"""Rename, fork, rewind and delete on a mirrored session (zero_tui/remote/host_sessions.py
and the CLI's `--host` on them), against the real sshd with the fake `zero` on the
"remote" PATH: a rewind goes through Zero's own command on the host and the mirror
follows; what Zero has no command for is refused in one line, the host's store untouched."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from host_fixtures import SESSION, remote_log, remote_session
from ssh_host import SshHost
from ssh_host import ssh_host as ssh_host  # the fixture
from test_hosts import run

from zero_tui.agent.engine import RunRequest, terminate_all
from zero_tui.agent.stream import TextDelta
from zero_tui.agent.zero_commands import ZeroCommandError, allow_always, grants, revoke
from zero_tui.hosts.registry import load_hosts, mirror_root
from zero_tui.remote.host_runs import RemoteEngine
from zero_tui.remote.host_sessions import (
    host_of_store,
    plan_rewind_on_host,
    refusal,
    zero_runner_on,
)
from zero_tui.store import SessionStore
from zero_tui.store.store import EVENTS_FILE


@pytest.fixture
def devbox(capsys: pytest.CaptureFixture[str], ssh_host: SshHost) -> Iterator[SshHost]:
    """devbox added and synced, with the fake zero and one session of two turns."""
    remote_session(ssh_host)
    assert run(capsys, "hosts", "add", "devbox", ssh_host.alias)[0] == 0
    assert run(capsys, "sync", "devbox")[0] == 0
    yield ssh_host
    terminate_all(0.0)


def mirrored_log() -> bytes:
    return (mirror_root("devbox") / SESSION / EVENTS_FILE).read_bytes()


def test_a_rewind_runs_zeros_own_command_on_the_host_and_the_mirror_follows(
    capsys: pytest.CaptureFixture[str], devbox: SshHost
) -> None:
    before = remote_log(devbox)
    code, out, err = run(capsys, "rewind", SESSION[:20], "--at", "2", "--host", "devbox", "--yes")
    assert (code, out) == (
        0,
        f"rewound {SESSION} on devbox to #2: 0 file(s) restored, 0 deleted, 0 skipped\n",
    ), err
    assert err.startswith(f"rewind {SESSION} on devbox to #2: keeps 2 events, drops 2")
    after = remote_log(devbox)
    assert after != before
    assert b"second" not in after
    assert mirrored_log() == after


async def test_a_rewind_is_refused_while_the_session_runs_on_the_host(
    capsys: pytest.CaptureFixture[str], devbox: SshHost
) -> None:
    host = load_hosts()["devbox"]
    engine = RemoteEngine(host)
    run_there = await engine.start(RunRequest("hang", SESSION, str(devbox.home / "app")))
    async for event in run_there.events():
        if isinstance(event, TextDelta):
            break
    with pytest.raises(ZeroCommandError) as refused:
        plan_rewind_on_host(host, SESSION, 2)
    assert str(refused.value).startswith(
        f"{SESSION}: it is running on devbox in another zero-tui (pid "
    )
    run_there.cancel()
    await run_there.wait()


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (
            ["fork", SESSION, "--host", "devbox"],
            "fork on devbox: Zero forks only a whole session into a new run (zero exec "
            "--fork), not at a turn; fork it there with zero-tui",
        ),
        (
            ["delete", SESSION, "--host", "devbox", "--yes"],
            "delete on devbox: Zero has no command to delete a session; delete it there "
            "with zero-tui",
        ),
    ],
)
def test_what_zero_has_no_command_for_is_refused_in_one_line(
    capsys: pytest.CaptureFixture[str], devbox: SshHost, argv: list[str], line: str
) -> None:
    before = sorted(path.name for path in devbox.store.iterdir())
    log = remote_log(devbox)
    code, out, err = run(capsys, *argv)
    assert (code, out, err) == (1, "", f"zero-tui: {line}\n")
    assert sorted(path.name for path in devbox.store.iterdir()) == before
    assert remote_log(devbox) == log


def test_rename_is_refused_naming_what_zero_lacks() -> None:
    assert refusal("rename", "devbox") == (
        "rename on devbox: Zero has no command to rename a session (only its TUI's "
        "/rename); rename it there with zero-tui"
    )


def test_a_mirror_is_known_as_its_hosts_and_a_local_store_as_none(
    devbox: SshHost, tmp_path: Path
) -> None:
    mirror = host_of_store(SessionStore(mirror_root("devbox")))
    assert mirror is not None
    assert mirror.name == "devbox"
    assert host_of_store(SessionStore(tmp_path / "zero" / "sessions")) is None


def test_zeros_grants_for_a_hosts_session_are_the_hosts(devbox: SshHost) -> None:
    """/approve's Always allow and /permissions on a host's transcript ask Zero there."""
    host = load_hosts()["devbox"]
    mirror = SessionStore(mirror_root("devbox"))
    allow_always(mirror, "write_file", run=zero_runner_on(host))
    assert [grant.tool for grant in grants(mirror, run=zero_runner_on(host))] == ["write_file"]
    assert (devbox.home / ".config" / "zero" / "sandbox-grants.json").is_file()  # the host's
    revoke(mirror, "write_file", run=zero_runner_on(host))
    assert grants(mirror, run=zero_runner_on(host)) == []
