"""A host's store mirrored under zero-tui's cache by rsync over one ssh connection.

Two rsync passes, both through the link's master connection:

1. The logs already mirrored, written in place (`--existing --inplace --no-whole-file`,
   only `events.jsonl`): an append-only log is matched block by block and only what was
   appended travels; the file keeps its name and its old bytes, so a reader sees the log
   it saw, and then more of it. A line torn mid-append at the end is read as it is in a
   local store (the reader already skips it) and completed by the next sync. `--append`
   is not used: it never shrinks a log that a rewind truncated, and `--append-verify`
   sends the whole file again once the checksum fails.
2. The whole tree, each file written to a temporary name and renamed at the end of the
   pass (`--delay-updates`), removals last (`--delete-delay`): metadata.json, which Zero
   rewrites whole, is never seen half-written, new sessions appear with their metadata,
   and a sync that drops midway leaves the mirror as the last sync left it.

Pass 1 runs before pass 2 so that a log is never behind its metadata (Zero's own order:
the log is appended, then the metadata rewritten). A session appended during a sync is
consistent in the mirror at the latest after the next one. The first sync, with nothing
mirrored, is pass 2 only. Zero's lock files and temporary files are not mirrored.

Nothing but `sync_host` writes a mirror; two syncs of one host take turns (a lock file).
"""

from __future__ import annotations

import fcntl
import os
import re
import shlex
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from zero_tui.hosts.registry import (
    Host,
    HostError,
    SyncState,
    host_dir,
    load_state,
    mirror_root,
    save_state,
)
from zero_tui.hosts.ssh_link import SshLink, ssh_failure
from zero_tui.store.root import default_root
from zero_tui.store.store import valid_session_id

EVENTS_FILE = "events.jsonl"
NOT_MIRRORED = ("session.lock", "*.tmp-*")
RSYNC_VANISHED = 24  # a file removed on the host while rsync read the tree: not a failure
_STAT_LINE = re.compile(r"^([A-Za-z][A-Za-z ]+): ([\d,]+)", re.MULTILINE)


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


def sync_host(host: Host) -> SyncReport:
    """Mirror `host`'s store; its state records the outcome either way. HostError (one
    line) when the host, ssh, the store or rsync failed: the mirror then holds what the
    last sync left, and no other host's mirror is touched."""
    with _sync_lock(host.name):
        state = load_state(host.name)
        try:
            report = _sync(host)
        except HostError as error:
            state.error, state.error_at = str(error), _now()
            save_state(host.name, state)
            raise
        save_state(
            host.name, SyncState(last_sync=_now(), sessions=report.sessions, stats=report.stats)
        )
        return report


def _sync(host: Host) -> SyncReport:
    mirror = mirror_root(host.name)
    with SshLink(host.name, host.target) as link:
        facts = probe(link, host.store)
        problem = store_problem(host, facts)
        if problem:
            raise HostError(problem)
        stats: dict[str, int] = {}
        source = f"{host.target}:{facts.store.rstrip('/')}/"
        if mirror.is_dir():
            _add(stats, _rsync(link, host.name, _logs_in_place(source, mirror)))
        mirror.mkdir(parents=True, exist_ok=True)
        _add(stats, _rsync(link, host.name, _whole_tree(source, mirror)))
    return SyncReport(host.name, count_sessions(mirror), stats, facts.has_zero)


def _excluded() -> list[str]:
    return [f"--exclude={pattern}" for pattern in NOT_MIRRORED]


def _logs_in_place(source: str, mirror: Path) -> list[str]:
    return [
        "--existing",
        "--inplace",
        "--no-whole-file",
        "--include=*/",
        f"--include={EVENTS_FILE}",
        "--exclude=*",
        source,
        f"{mirror}/",
    ]


def _whole_tree(source: str, mirror: Path) -> list[str]:
    return ["--delete-delay", "--delay-updates", *_excluded(), source, f"{mirror}/"]


def _rsync(link: SshLink, name: str, arguments: list[str]) -> dict[str, int]:
    done = subprocess.run(
        ["rsync", "-a", "--stats", "-e", link.rsync_shell(), *arguments],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        errors="replace",
        check=False,
    )
    if done.returncode not in (0, RSYNC_VANISHED):
        raise HostError(_rsync_failure(name, done.returncode, done.stderr))
    return rsync_stats(done.stdout)


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


def _add(total: dict[str, int], stats: dict[str, int]) -> None:
    for key, value in stats.items():
        total[key] = total.get(key, 0) + value


def count_sessions(mirror: Path) -> int:
    try:
        return sum(
            1 for entry in os.scandir(mirror) if entry.is_dir() and valid_session_id(entry.name)
        )
    except OSError:
        return 0
