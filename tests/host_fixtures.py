"""A Zero session on the test's sshd host (tests/ssh_host.py), with the fake `zero` on that
host's PATH: for the tests that continue, rewind or refuse a host's session."""

from __future__ import annotations

import os

from agent_fixtures import write_fake_zero
from conftest import StoreBuilder, chat
from ssh_host import SshHost

from zero_tui.hosts.mirror import sync_host
from zero_tui.hosts.registry import Host
from zero_tui.store.store import EVENTS_FILE

# one id per xdist worker: the host is this machine, and a run's `zero` (or a process a
# test starts to hold the session) naming the same id in another worker's test would make
# the host refuse this one's run as already running
SESSION = "zero_20260704100000_1783159200000000000_" + os.environ.get(
    "PYTEST_XDIST_WORKER", "gw0"
).removeprefix("gw")


def remote_session(ssh_host: SshHost) -> None:
    """The fake zero on the host, and SESSION there: two turns, in the workspace `~/app`."""
    write_fake_zero(ssh_host.bin)
    (ssh_host.home / "app").mkdir()
    StoreBuilder(ssh_host.store).add(
        SESSION,
        title="remote work",
        cwd=str(ssh_host.home / "app"),
        events=[*chat("first question", "first answer"), *chat("second", "more")],
    )


def synced_host(ssh_host: SshHost) -> Host:
    """`remote_session`, and the host (devbox) synced once, not added to hosts.json."""
    remote_session(ssh_host)
    host = Host("devbox", ssh_host.alias, str(ssh_host.store))
    sync_host(host)
    return host


def remote_log(ssh_host: SshHost) -> bytes:
    return (ssh_host.store / SESSION / EVENTS_FILE).read_bytes()
