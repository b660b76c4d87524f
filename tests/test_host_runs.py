"""Continuing a mirrored session on its own host (zero_tui/remote/host_runs.py), against
a real sshd on 127.0.0.1 (tests/ssh_host.py) with the fake `zero` on the "remote" PATH:
the prompt streams back, Esc cancels there, nothing is left on the host when the link
drops, the one-run rule holds on the host, and the mirror follows the run."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
from conftest import HANG_SECONDS
from host_fixtures import SESSION, remote_log, synced_host
from process_tree import alive
from ssh_host import SshHost
from ssh_host import ssh_host as ssh_host  # the fixture

from zero_tui.agent.engine import AgentUnavailable, RunRequest, terminate_all
from zero_tui.agent.stream import AgentEvent, RunEnd, TextDelta
from zero_tui.hosts.registry import Host, mirror_root
from zero_tui.remote.host_runs import BUSY_EXIT, RemoteEngine, RemoteRun, remote_command, ssh_argv
from zero_tui.store import SessionStore
from zero_tui.store.store import EVENTS_FILE


@pytest.fixture
def host(ssh_host: SshHost) -> Iterator[Host]:
    """devbox, with the fake zero on its PATH, one session in its store, and synced."""
    yield synced_host(ssh_host)
    terminate_all(0.0)


def mirrored_log(host: Host) -> bytes:
    return (mirror_root(host.name) / SESSION / EVENTS_FILE).read_bytes()


def remote_pid(run: RemoteRun) -> int:
    assert run.remote_pid is not None
    return run.remote_pid


async def wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + HANG_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"never: {what}")
        await asyncio.sleep(0.02)


async def first_delta(events: AsyncIterator[AgentEvent]) -> None:
    async for event in events:
        if isinstance(event, TextDelta):
            return
    raise AssertionError("no text before the end")


def request(host: Host, ssh_host: SshHost, prompt: str) -> RunRequest:
    return RunRequest(prompt, SESSION, str(ssh_host.home / "app"))


async def test_a_prompt_runs_on_the_host_streams_back_and_the_mirror_follows(
    host: Host, ssh_host: SshHost
) -> None:
    before = remote_log(ssh_host)
    run = await RemoteEngine(host).start(request(host, ssh_host, "hello there"))
    events: list[AgentEvent] = [event async for event in run.events()]
    outcome = await run.wait()
    assert outcome.ok, outcome
    assert isinstance(events[-1], RunEnd)
    assert events[-1].status == "success"
    assert any(isinstance(event, TextDelta) for event in events)
    after = remote_log(ssh_host)
    assert after.startswith(before)
    assert len(after) > len(before)
    assert b"hello there" in after
    assert mirrored_log(host) == after  # synced once the run ended
    assert run.resync_error == ""
    assert "zero-tui-remote" not in run.stderr_tail


async def test_a_prompt_that_goes_by_stdin_reaches_the_host(host: Host, ssh_host: SshHost) -> None:
    run = await RemoteEngine(host).start(request(host, ssh_host, "-dash first, then words"))
    async for _event in run.events():
        pass
    assert (await run.wait()).ok
    assert b"-dash first, then words" in remote_log(ssh_host)


async def test_esc_interrupts_zero_on_the_host_and_leaves_nothing_there(
    host: Host, ssh_host: SshHost
) -> None:
    run = await RemoteEngine(host).start(request(host, ssh_host, "hang"))
    pid = remote_pid(run)
    events = run.events()
    await first_delta(events)
    run.cancel()
    rest = [event async for event in events]
    assert rest[-1] == RunEnd("interrupted", 130)
    outcome = await run.wait()
    assert (outcome.status, outcome.message) == ("interrupted", "Run cancelled.")
    assert not alive(pid)
    assert b"interrupted" in remote_log(ssh_host)  # zero recorded the cancel there
    assert mirrored_log(host) == remote_log(ssh_host)


@pytest.mark.parametrize("which", ["ssh", "supervisor"])
async def test_a_dropped_link_or_a_dead_zero_tui_leaves_nothing_on_the_host(
    host: Host, ssh_host: SshHost, which: str
) -> None:
    run = await RemoteEngine(host, grace_seconds=1.0).start(request(host, ssh_host, "hang"))
    pid = remote_pid(run)
    assert alive(pid)
    await first_delta(run.events())
    # the ssh client killed (the link drops), or its supervisor (as when zero-tui dies)
    os.kill(run.pid if which == "ssh" else run.supervisor_pid, signal.SIGKILL)
    await wait_for(lambda: not alive(pid), "the remote zero gone")
    outcome = await run.wait()
    assert not outcome.ok


async def test_a_second_run_of_the_session_on_the_host_is_refused(
    host: Host, ssh_host: SshHost
) -> None:
    run = await RemoteEngine(host).start(request(host, ssh_host, "hang"))
    await first_delta(run.events())
    # another zero-tui (here: the same wrapper over a second ssh) on the same session
    command = remote_command("run", host, SESSION, ["--resume=" + SESSION, "--", "again"])
    other = await asyncio.to_thread(
        subprocess.run,
        ssh_argv(host, command),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
    )
    assert other.returncode == BUSY_EXIT
    assert other.stderr.decode().startswith("zero-tui-remote: busy zero-tui ")
    run.cancel()
    assert (await run.wait()).status == "interrupted"
    assert b"again" not in remote_log(ssh_host)


async def test_a_zero_process_on_the_host_naming_the_session_refuses_the_run(
    host: Host, ssh_host: SshHost, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    holder = elsewhere / "zero"
    holder.write_text("#!/bin/sh\nsleep 600\n")
    holder.chmod(0o755)
    process = await asyncio.to_thread(
        subprocess.Popen,
        [str(holder), "exec", f"--resume={SESSION}", "--", "busy"],
        start_new_session=True,
    )
    try:
        before = remote_log(ssh_host)
        with pytest.raises(AgentUnavailable) as refused:
            await RemoteEngine(host).start(request(host, ssh_host, "hello"))
        assert str(refused.value) == (
            f"Not sent: this session is running on devbox in a `zero` process (pid {process.pid})."
        )
        assert remote_log(ssh_host) == before
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


async def test_a_host_without_zero_is_browse_only(host: Host, ssh_host: SshHost) -> None:
    without = Host(host.name, host.target, host.store, has_zero=False)
    line = "devbox: no zero on its PATH; its sessions can be browsed only"
    assert RemoteEngine(without).store_refusal() == line
    with pytest.raises(AgentUnavailable, match=r"^devbox: no zero on its PATH"):
        await RemoteEngine(without).start(request(host, ssh_host, "hello"))
    ssh_host.remove_zero()  # gone since it was added: said the same way, at the start
    with pytest.raises(AgentUnavailable) as refused:
        await RemoteEngine(host).start(request(host, ssh_host, "hello"))
    assert str(refused.value) == line


async def test_a_changed_host_key_refuses_the_run_in_one_line(
    host: Host, ssh_host: SshHost
) -> None:
    ssh_host.regenerate_host_key()
    with pytest.raises(AgentUnavailable) as refused:
        await RemoteEngine(host).start(request(host, ssh_host, "hello"))
    assert str(refused.value).startswith("devbox: its host key changed; refused")


async def test_a_session_the_mirror_lacks_is_not_sent(host: Host, ssh_host: SshHost) -> None:
    with pytest.raises(AgentUnavailable, match="Zero session not found"):
        await RemoteEngine(host).start(RunRequest("hi", "zero_nope", "/"))
    assert SessionStore(mirror_root(host.name)).get(SESSION) is not None


def sshd_sessions(ssh_host: SshHost) -> list[int]:
    """The sshd processes serving a connection (the listener's children)."""
    assert ssh_host.process is not None
    listener = ssh_host.process.pid
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    fields = handle.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == listener:
                found.append(int(entry))
    return found


async def test_the_host_dropping_the_link_mid_run_is_one_line_and_nothing_is_left_there(
    host: Host, ssh_host: SshHost
) -> None:
    run = await RemoteEngine(host, grace_seconds=1.0).start(request(host, ssh_host, "hang"))
    pid = remote_pid(run)
    await first_delta(run.events())
    for session in sshd_sessions(ssh_host):  # the host's end of the connection dies
        os.kill(session, signal.SIGKILL)
    await wait_for(lambda: not alive(pid), "the remote zero gone")
    outcome = await run.wait()
    assert outcome.message.startswith("devbox: the connection dropped"), outcome
    assert run.resync_error == "devbox: not synced after the run (the link failed)"


async def test_a_workspace_gone_on_the_host_runs_in_its_home_and_says_so(
    host: Host, ssh_host: SshHost
) -> None:
    gone_workspace = str(ssh_host.home / "deleted")
    run = await RemoteEngine(host).start(RunRequest("hello", SESSION, gone_workspace))
    async for _event in run.events():
        pass
    assert (await run.wait()).ok
    assert run.notes == [
        f"the session's workspace {gone_workspace} is gone on this host: running in {ssh_host.home}"
    ]
