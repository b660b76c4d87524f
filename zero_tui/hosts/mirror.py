"""A host's store mirrored under zero-tui's cache by rsync over one ssh connection.

One rsync pass through the link's master connection: `rsync -a --no-whole-file --delete`,
Zero's lock and temporary files left out. rsync's delta algorithm sends only what
changed: a log that was appended to travels as its new bytes (and block checksums), a
metadata file Zero rewrote as its delta.

Each changed file is built under a temporary name beside it and renamed over it (rsync's
default, not `--inplace`): a reader of the mirror sees a log or a metadata file whole, old
or new, never half written, and a sync that drops midway leaves every file as the last
sync left it. Within a session rsync goes in name order, `events.jsonl` before
`metadata.json`, so a log is never behind its metadata (Zero's own order). The price is
that the receiving side copies a changed log's old bytes into the new file locally; only
the appended bytes cross the network.

Not chosen: `--inplace` would write a log's new bytes into it where they go, but also a
metadata file over itself (a reader could see half of it); a second pass for the logs
alone doubles the scan of the host's tree that every sync pays. `--append` never shrinks
a log a rewind truncated, and `--append-verify` sends the whole file again once the
checksum fails. `--delay-updates` (every file renamed at the end) measured 4x slower than
plain rsync on a first sync of 10,000 sessions, for little: a new session may show for a
moment with its log and no metadata yet, which a reader skips as it skips a session Zero
is creating.

A line torn mid-append at the end of a log is copied as it is and read as a local torn
line is (skipped); the next sync completes it, as it brings level a session appended
during a sync. Nothing but `sync_host` writes a mirror; two syncs of one host take turns
(a lock file).
"""

from __future__ import annotations

import fcntl
import os
import re
import select
import shlex
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from zero_tui.hosts.registry import (
    Host,
    HostError,
    SyncState,
    SyncStopped,
    host_dir,
    load_state,
    mirror_root,
    never,
    save_state,
)
from zero_tui.hosts.ssh_link import (
    STOP_POLL_SECONDS,
    SshLink,
    end_stopped,
    ssh_failure,
    wait_unless_stopped,
)
from zero_tui.store.root import default_root
from zero_tui.store.store import valid_session_id

NOT_MIRRORED = ("session.lock", "*.tmp-*")
RSYNC_VANISHED = 24  # a file removed on the host while rsync read the tree: not a failure
_STAT_LINE = re.compile(r"^([A-Za-z][A-Za-z ]+): ([\d,]+)", re.MULTILINE)
_PERCENT = re.compile(rb" (\d{1,3})% ")
Progress = Callable[[int], None]


@dataclass(frozen=True)
class HostFacts:
    """What a probe of a host found: its store's path and whether a `zero` is on its PATH."""

    store: str
    has_zero: bool
    store_state: str  # "ok", "missing", "unreadable" or "not a directory"


def probe(link: SshLink, store: str | None) -> HostFacts:
    """Ask the host for Zero's default root (its `$XDG_DATA_HOME`, `$HOME`: store-format
    §1, computed here by the same rule), whether `zero` is on its PATH, and whether the
    store (`store`, else that root) can be read: one command when `store` is known."""
    script = (
        'printf "home=%s\\nxdg=%s\\n" "$HOME" "${XDG_DATA_HOME-}"; '
        "if command -v zero >/dev/null 2>&1; then echo zero=yes; else echo zero=no; fi"
    )
    values = _values(link.run(f"{script}; {_store_check(store)}" if store else script).stdout)
    if not store:
        environment = {"HOME": values.get("home", ""), "XDG_DATA_HOME": values.get("xdg", "")}
        store = str(default_root(environment))
        values.update(_values(link.run(_store_check(store)).stdout))
    return HostFacts(
        store=store, has_zero=values.get("zero") == "yes", store_state=values.get("store", "")
    )


def _store_check(store: str) -> str:
    quoted = shlex.quote(store)
    return (
        f"if [ ! -e {quoted} ]; then echo store=missing; elif [ ! -d {quoted} ]; then "
        f"echo 'store=not a directory'; elif [ -r {quoted} ] && [ -x {quoted} ] && "
        f"ls -A {quoted} >/dev/null 2>&1; then echo store=ok; else echo store=unreadable; fi"
    )


def _values(output: str) -> dict[str, str]:
    return dict(line.partition("=")[::2] for line in output.splitlines())


def store_problem(host: Host, facts: HostFacts) -> str:
    """One line on a store that cannot be mirrored; empty when it can."""
    if facts.store_state == "ok":
        return ""
    where = f"{host.target}:{facts.store}"
    if facts.store_state == "missing":
        return f"{host.name}: no Zero store at {where} (Zero writes it on its first session)"
    return f"{host.name}: the Zero store at {where} is {facts.store_state}"


@dataclass(frozen=True)
class SyncReport:
    host: str
    sessions: int
    stats: dict[str, int]
    has_zero: bool


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@contextmanager
def _sync_lock(name: str) -> Iterator[None]:
    directory = host_dir(name)
    directory.mkdir(parents=True, exist_ok=True)
    fd = os.open(directory / "sync.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise HostError(f"{name}: another sync of this host is running") from None
        yield
    finally:
        os.close(fd)


def sync_host(
    host: Host, progress: Progress | None = None, stop: Callable[[], bool] = never
) -> SyncReport:
    """Mirror `host`'s store; its state records the outcome either way. HostError (one
    line) when the host, ssh, the store or rsync failed: the mirror then holds what the
    last sync left, and no other host's mirror is touched. `progress`: called with rsync's
    percent done as it moves. `stop`: asked as it goes; True ends the connection or rsync
    (SyncStopped, the state left as it was)."""
    with _sync_lock(host.name):
        state = load_state(host.name)
        try:
            report = _sync(host, progress, stop)
        except SyncStopped:
            raise
        except HostError as error:
            state.error, state.error_at = str(error), _now()
            save_state(host.name, state)
            raise
        save_state(
            host.name, SyncState(last_sync=_now(), sessions=report.sessions, stats=report.stats)
        )
        return report


def sync_session(host: Host, session_id: str) -> dict[str, int]:
    """One session's folder brought level with the host (after a run there): the same
    rsync pass as `sync_host`, over that folder alone; rsync's stats. HostError as for
    `sync_host`; the host's sync state is left as the last whole sync left it."""
    if not valid_session_id(session_id):
        raise HostError(f"{host.name}: not a session id: {session_id!r}")
    with _sync_lock(host.name):
        target = mirror_root(host.name) / session_id
        target.mkdir(parents=True, exist_ok=True)
        source = f"{host.target}:{host.store.rstrip('/')}/{session_id}/"
        with SshLink(host.name, host.target) as link:
            arguments = ["--no-whole-file", "--delete", *_excluded(), source, f"{target}/"]
            return _rsync(link, host.name, arguments, None)


def _sync(host: Host, progress: Progress | None, stop: Callable[[], bool]) -> SyncReport:
    mirror = mirror_root(host.name)
    with SshLink(host.name, host.target, stop) as link:
        facts = probe(link, host.store)
        problem = store_problem(host, facts)
        if problem:
            raise HostError(problem)
        source = f"{host.target}:{facts.store.rstrip('/')}/"
        mirror.mkdir(parents=True, exist_ok=True)
        arguments = ["--no-whole-file", "--delete", *_excluded(), source, f"{mirror}/"]
        stats = _rsync(link, host.name, arguments, progress, stop)
    return SyncReport(host.name, count_sessions(mirror), stats, facts.has_zero)


def _excluded() -> list[str]:
    return [f"--exclude={pattern}" for pattern in NOT_MIRRORED]


def _rsync(
    link: SshLink,
    name: str,
    arguments: list[str],
    progress: Progress | None,
    stop: Callable[[], bool] = never,
) -> dict[str, int]:
    command = ["rsync", "-a", "--stats", "-e", link.rsync_shell(), *arguments]
    if progress is not None:
        command.insert(1, "--info=progress2")
    code, output, errors = _run_rsync(command, name, progress, stop)
    if code not in (0, RSYNC_VANISHED):
        raise HostError(_rsync_failure(name, code, errors))
    return rsync_stats(output)


def _run_rsync(
    command: list[str], name: str, progress: Progress | None, stop: Callable[[], bool]
) -> tuple[int, str, str]:
    """rsync's exit status, output and errors. With `--info=progress2`, its whole-transfer
    percent is read as it is written (each update ends with a carriage return) and handed
    to `progress` when it moves. `stop()` True ends rsync (SyncStopped)."""
    with tempfile.TemporaryFile() as stderr:
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=stderr
        )
        assert process.stdout is not None
        output = bytearray()
        shown = -1
        with process.stdout:
            while True:
                if stop():
                    end_stopped(process, name)
                readable, _, _ = select.select([process.stdout], [], [], STOP_POLL_SECONDS)
                if not readable:
                    continue
                chunk = os.read(process.stdout.fileno(), 65536)
                if not chunk:
                    break
                output += chunk
                if progress is not None:
                    found = _PERCENT.findall(bytes(output[-512:]))
                    if found and int(found[-1]) != shown:
                        shown = int(found[-1])
                        progress(shown)
        code = wait_unless_stopped(process, stop, name)
        stderr.seek(0)
        errors = stderr.read().decode(errors="replace")
    return code, output.decode(errors="replace"), errors


def _rsync_failure(name: str, code: int, stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    if code in (12, 255) or any("connection unexpectedly closed" in line for line in lines):
        return f"{name}: the connection dropped during the sync; the mirror keeps the last one"
    if "command not found" in stderr or code == 127:
        return f"{name}: rsync is not installed on the host"
    detail = lines[0].strip() if lines else f"exit status {code}"
    if detail.startswith(("ssh:", "Host key", "@@@")):
        return ssh_failure(name, stderr)
    return f"{name}: rsync failed ({detail})"


def rsync_stats(output: str) -> dict[str, int]:
    """`--stats`' numbers by a snake_case name: `literal_data`, `total_bytes_sent`, …"""
    return {
        label.strip().lower().replace(" ", "_"): int(number.replace(",", ""))
        for label, number in _STAT_LINE.findall(output)
    }


def count_sessions(mirror: Path) -> int:
    try:
        return sum(
            1 for entry in os.scandir(mirror) if entry.is_dir() and valid_session_id(entry.name)
        )
    except OSError:
        return 0
