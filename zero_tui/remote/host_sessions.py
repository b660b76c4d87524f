"""What can be done to a mirrored session: on its host, through Zero's own commands.

Zero v0.8.0's command line (`internal/cli`, `completions.go`) has `zero sessions
rewind-plan` and `zero sessions rewind`, so a rewind runs there, over ssh, under the
wrapper's one-run check (run_on_host.sh, mode `command`), and the session's mirror is
synced after it. It has no command to rename a session (only its TUI's /rename), to delete
one, or to fork one at an event (`zero exec --fork ID` copies the whole session into a new
run with a prompt), so those are refused in one line, as are zero-tui's own pins, tags,
archive and marks of a host's session (kept in each store's own file). Nothing here, nor
anywhere else in zero-tui, writes a host's store by itself; a mirror is written only by
the sync.
"""

from __future__ import annotations

from collections.abc import Sequence

from zero_tui.agent.zero_commands import (
    COMMAND_TIMEOUT,
    RewindPlan,
    RewindResult,
    ZeroCommandError,
    ZeroRunner,
    last_stderr_line,
    rewind,
    rewind_plan,
    run_captured,
)
from zero_tui.hosts.registry import Host, HostError, load_hosts, mirror_root
from zero_tui.hosts.ssh_link import SSH_FAILED, ssh_failure
from zero_tui.remote.host_runs import (
    MARKER,
    browse_only,
    busy_text,
    marker_line,
    remote_command,
    resync,
    ssh_argv,
)
from zero_tui.store import SessionStore
from zero_tui.store.root import store_key

LACKING = {
    "rename": "Zero has no command to rename a session (only its TUI's /rename)",
    "delete": "Zero has no command to delete a session",
    "fork": "Zero forks only a whole session into a new run (zero exec --fork), not at a turn",
    # zero-tui's own flags: kept in each store's own file, and only a sync writes a mirror
    **dict.fromkeys(
        ("pin", "tag", "archive"),
        "zero-tui keeps pins, tags and the archive in each store, and only a sync writes a mirror",
    ),
    "mark": "marks are for pins, tags, the archive and the trash, which a mirror has not",
}


def refusal(operation: str, host: str) -> str:
    """`operation` (rename, delete, fork; pin, tag, archive, mark) on a session of `host`,
    refused in one line."""
    return f"{operation} on {host}: {LACKING[operation]}; {operation} it there with zero-tui"


def host_of_store(store: SessionStore) -> Host | None:
    """The host whose mirror `store` is; None for a store of this machine."""
    key = store_key(store.root)
    try:
        hosts = load_hosts()
    except HostError:
        return None
    for host in hosts.values():
        if store_key(mirror_root(host.name)) == key:
            return host
    return None


def zero_on_host(
    host: Host, session_id: str, arguments: Sequence[str], *, timeout: float = COMMAND_TIMEOUT
) -> str:
    """`zero ARGUMENTS` on `host`'s store, refused when the session runs there (no check when
    `session_id` is empty); its stdout.
    ZeroCommandError (one line) for a browse-only host, a busy session, ssh's failure, a
    time-out or Zero's own no."""
    refused = browse_only(host)
    if refused is not None:
        raise ZeroCommandError(refused)
    command = remote_command("command", host, session_id, list(arguments))
    what = f"{host.name}: `zero {arguments[0]}`"
    done = run_captured(ssh_argv(host, command), what, timeout)
    if done.returncode == 0:
        return done.stdout.decode("utf-8", "replace")
    said = [line for line in done.stderr.splitlines() if line.startswith(MARKER)]
    if said:
        words = said[-1][len(MARKER) :].decode("utf-8", "replace").strip()
        if words.startswith("busy "):
            raise ZeroCommandError(f"{session_id}: it is {busy_text(host, words)}")
        raise ZeroCommandError(marker_line(host, words))
    if done.returncode == SSH_FAILED:
        raise ZeroCommandError(ssh_failure(host.name, done.stderr.decode("utf-8", "replace")))
    reason = last_stderr_line(done.stderr) or f"zero exited with {done.returncode}"
    raise ZeroCommandError(f"{host.name}: {reason}")


def zero_runner_on(host: Host) -> ZeroRunner:
    """Runs Zero's commands that name no session (its sandbox grants) on `host`."""
    return lambda arguments: zero_on_host(host, "", arguments)


def plan_rewind_on_host(host: Host, session_id: str, sequence: int) -> RewindPlan:
    """Zero's plan, asked on the host; the files from the mirror's checkpoints."""
    return rewind_plan(
        SessionStore(mirror_root(host.name)),
        session_id,
        sequence,
        run=lambda arguments: zero_on_host(host, session_id, arguments),
    )


def rewind_on_host(host: Host, session_id: str, sequence: int) -> tuple[RewindResult, str]:
    """Zero's rewind, on the host; then the mirror synced (the second value: why it could
    not be, or "")."""
    result = rewind(
        SessionStore(mirror_root(host.name)),
        session_id,
        sequence,
        run=lambda arguments: zero_on_host(host, session_id, arguments),
    )
    return result, resync(host, session_id)
