"""Which sessions an agent is writing right now, and one run per session across zero-tuis.

Zero leaves no lock, pid file or marker in the store while it runs (`zero exec` takes
`session.lock` only for each append, and the store has no run_start/run_end events), so a
run is seen by combining what each writer does leave:

1. **zero-tui's own run registry.** Each zero-tui that runs an agent holds an exclusive
   `flock` on `<runtime>/runs/<store>/<session id>.run` for as long as the run lasts and
   writes its pid there. The kernel drops the lock when that zero-tui exits, even by
   SIGKILL, so a crashed zero-tui leaves no false mark. Taking that lock is also how a
   second zero-tui is refused (`claim_run`).
2. **`zero` processes whose arguments name the session**: `zero exec --resume ID` (either
   spelling), `--init-session-id ID`, and `zero -p … --resume ID`. Found in `/proc`
   (Linux; elsewhere this signal is absent).
3. **A Zero TUI with the session open while its last event is the user's prompt.** Zero's
   TUI publishes `<peers>/registry/<pid>-<nonce>.json` naming its session; it writes the
   prompt alone and the rest of the turn in one batch at the end, so a prompt as the last
   event of a session open there means a turn in flight.
4. **A log written in the last seconds that does not end a run**: the last event is not an
   answer or an error (a run that `zero exec` writes live, started by something that
   does not name the session, e.g. a bare `--resume`).

Limits: a `zero` that was SIGKILLed mid-run leaves a log that looks like (4) for
`RECENT_SECONDS`; a Zero TUI that was SIGKILLed leaves its peer record, so (3) holds until
its pid is gone; a run on another machine sharing the store is seen only by (4).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from zero_tui.paths import default_cache_dir
from zero_tui.store import Metadata, SessionStore, StoreError
from zero_tui.store.events import decode_line
from zero_tui.store.regular_files import open_regular, read_own_file
from zero_tui.store.root import default_root, store_key
from zero_tui.store.store import EVENTS_FILE
from zero_tui.text.labels import parse_rfc3339

RECENT_SECONDS = 20.0
"""How long after its last write a log that does not end a run still counts as running."""

TAIL_BYTES = 64 * 1024
RECORD_LIMIT = 64 * 1024  # a run claim or a Zero peer record: a few hundred bytes
_IN_FLIGHT_TYPES = frozenset(
    {
        "tool_call",
        "tool_result",
        "session_checkpoint",
        "permission",
        "permission_request",
        "permission_decision",
        "provider_usage",
    }
)
PROCESS_SCAN_SECONDS = 1.0  # a scan of /proc is reused for this long

_SESSION_FLAGS = ("--resume", "--init-session-id")


@dataclass(frozen=True, slots=True)
class Running:
    """Where a session's run is: `kind` is `zero-tui` (a zero-tui's registry entry, `own`
    when it is this process), `zero-process` (a `zero` process naming it), `zero-ui` (Zero's
    own TUI with a turn in flight), `recent` (its log, written just now) or `zero-latest`
    (a `zero` resuming the store's latest session, which may be this one: see
    `possible_writer`)."""

    session_id: str
    kind: str
    pid: int | None = None
    own: bool = False

    def describe(self) -> str:
        """Where it runs, in one line: `in this zero-tui`, `in another zero-tui (pid 12)`…"""
        if self.kind == "zero-tui":
            return "in this zero-tui" if self.own else f"in another zero-tui (pid {self.pid})"
        if self.kind == "zero-process":
            return f"in a `zero` process (pid {self.pid})"
        if self.kind == "zero-ui":
            return f"in Zero's TUI (pid {self.pid})"
        if self.kind == "zero-latest":
            return (
                f"in a `zero` process (pid {self.pid}) that resumes the latest session of "
                "this store, which may be this one"
            )
        return "by an agent that wrote to it in the last seconds"

    def refusal(self, doing: str) -> str:
        """Why `doing` (`not deleting`, `not rewinding`…) is refused, in one line."""
        if self.kind == "zero-latest":
            return (
                f"{doing} {self.session_id}: a `zero` process (pid {self.pid}) is resuming "
                "the latest session of this store, which may be this one"
            )
        return f"{doing} {self.session_id}: it is running {self.describe()}"


class RunBusy(Exception):
    """Another run holds the session; `running` says where."""

    def __init__(self, running: Running) -> None:
        super().__init__(f"this session is running {running.describe()}")
        self.running = running


def runtime_dir(env: Mapping[str, str] | None = None) -> Path:
    """zero-tui's runtime directory: `$XDG_RUNTIME_DIR/zero-tui`, else the cache's `runtime`."""
    environ = os.environ if env is None else env
    base = environ.get("XDG_RUNTIME_DIR", "").strip()
    if base and os.path.isabs(base) and os.path.isdir(base):
        return Path(base) / "zero-tui"
    return default_cache_dir() / "runtime"


def _registry_dir(store: SessionStore) -> Path:
    return runtime_dir() / "runs" / store_key(store.root)


# --- 1. zero-tui's run registry -------------------------------------------------------------


class RunClaim:
    """This process's hold on a session's run: released by `release` (or at exit)."""

    def __init__(self, session_id: str, fd: int) -> None:
        self.session_id = session_id
        self._fd: int | None = fd

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            os.close(fd)  # drops the lock

    def __enter__(self) -> RunClaim:
        return self

    def __exit__(self, *_: object) -> None:
        self.release()


_own_claims: dict[tuple[str, str], RunClaim] = {}


def claim_run(
    store: SessionStore,
    session_id: str,
    *,
    new_session: bool = False,
    quiet_since: float | None = None,
) -> RunClaim:
    """Hold `session_id`'s run for this process, or raise RunBusy naming where it runs
    (another zero-tui, a `zero` process, a Zero TUI turn, a log written just now).

    `new_session`: the agent has just created the session for this run, so its log is
    this run's own; only another zero-tui's claim refuses it. `quiet_since`: a wall time
    after which this process's own run on the session ended: a log last written before it
    was written by that run (say one killed mid-turn), not by someone else."""
    if not new_session:
        elsewhere = running_elsewhere(store, session_id, quiet_since=quiet_since)
        if elsewhere is not None:
            raise RunBusy(elsewhere)
    directory = _registry_dir(store)
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = directory / f"{session_id}.run"
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as error:
        os.close(fd)
        if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            pid = _pid_in(path)
            raise RunBusy(Running(session_id, "zero-tui", pid, own=pid == os.getpid())) from None
        raise
    os.ftruncate(fd, 0)
    os.pwrite(fd, json.dumps({"pid": os.getpid(), "sessionId": session_id}).encode(), 0)
    claim = RunClaim(session_id, fd)
    _own_claims[(store_key(store.root), session_id)] = claim
    return claim


def running_elsewhere(
    store: SessionStore, session_id: str, *, quiet_since: float | None = None
) -> Running | None:
    """The run of `session_id` that is not this process's own, if any."""
    found = running_now(store, session_id, quiet_since=quiet_since)
    return None if found is None or found.own else found


def running_now(
    store: SessionStore, session_id: str, *, quiet_since: float | None = None
) -> Running | None:
    """The run of `session_id`, this process's own included, if any (`quiet_since`: as
    claim_run's)."""
    try:
        meta = store.get(session_id)
    except StoreError:
        meta = None
    listed = [meta] if meta is not None else []
    found = running_sessions(store, listed, session_id=session_id).get(session_id)
    if found is not None and found.kind == "recent" and quiet_since is not None:
        try:
            written = os.stat(store.root / session_id / EVENTS_FILE).st_mtime
        except OSError:
            written = None
        if written is not None and written <= quiet_since:
            return None  # the last write was this process's own run's
    return found


def _pid_in(path: Path) -> int | None:
    try:
        value = json.loads(read_own_file(path, RECORD_LIMIT) or b"{}").get("pid")
    except (OSError, ValueError, AttributeError, RecursionError):
        return None
    return value if isinstance(value, int) else None


def _registry_runs(store: SessionStore) -> dict[str, Running]:
    directory = _registry_dir(store)
    try:
        names = os.listdir(directory)
    except OSError:
        return {}
    found: dict[str, Running] = {}
    root = store_key(store.root)
    for name in names:
        if not name.endswith(".run"):
            continue
        session_id = name[: -len(".run")]
        own = (root, session_id) in _own_claims and _own_claims[(root, session_id)]._fd is not None
        if own:
            found[session_id] = Running(session_id, "zero-tui", os.getpid(), own=True)
        elif _held(directory / name):
            found[session_id] = Running(session_id, "zero-tui", _pid_in(directory / name))
    return found


def _held(path: Path) -> bool:
    """Whether a live process holds the lock on `path` (a shared lock cannot be had)."""
    try:
        fd = open_regular(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # also drops the shared lock when it was had
    return False


# --- 2. zero processes ------------------------------------------------------------------------


def session_named_by(argv: list[str]) -> str | None:
    """The session a `zero` command line continues or creates, if it names one."""
    if not argv or not _is_zero(argv):
        return None
    for index, arg in enumerate(argv):
        if arg == "--":
            break
        for flag in _SESSION_FLAGS:
            if arg == flag and index + 1 < len(argv):
                value = argv[index + 1]
                return value if value and not value.startswith("-") else None
            if arg.startswith(flag + "="):
                return arg[len(flag) + 1 :] or None
    return None


def _is_zero(argv: list[str]) -> bool:
    """argv[0] is a `zero`, or an interpreter running a script called `zero` (or what
    `$ZERO_BIN` names)."""
    names = {"zero"}
    configured = os.environ.get("ZERO_BIN", "").strip()
    if configured:
        names.add(os.path.basename(configured))
    return any(os.path.basename(arg) in names for arg in argv[:2])


def resumes_latest(argv: list[str]) -> bool:
    """Whether a `zero` command line resumes without naming a session (`--resume` bare or
    before another flag, `--resume=`): Zero then continues its store's latest resumable
    session (Store.LatestResumable), chosen as it starts."""
    if not argv or not _is_zero(argv):
        return False
    for index, arg in enumerate(argv):
        if arg == "--":
            break
        if arg == "--resume=":
            return True
        if arg == "--resume":
            value = argv[index + 1] if index + 1 < len(argv) else ""
            return not value.strip() or value.startswith("-")
    return False


@dataclass(frozen=True, slots=True)
class _ZeroProcess:
    session_id: str | None  # None: it resumes the latest session, unnamed
    pid: int
    store_root: str | None  # the store it writes (realpath), None when /proc does not say


_process_scan: tuple[float, list[_ZeroProcess]] | None = None


def zero_processes(
    store_root: Path | None = None,
    now: float | None = None,
    *,
    max_age: float = PROCESS_SCAN_SECONDS,
) -> dict[str, Running]:
    """session id -> the `zero` process whose arguments name it (Linux's /proc); a scan
    younger than `max_age` seconds is reused. Given `store_root`, a process known to write
    another store (Zero's DefaultRoot from its environment) is left out: the same id in two
    stores is two sessions."""
    found: dict[str, Running] = {}
    for process in _zero_processes_of(store_root, now, max_age):
        if process.session_id is not None and process.session_id not in found:
            found[process.session_id] = Running(process.session_id, "zero-process", process.pid)
    return found


def _zero_processes_of(
    store_root: Path | None, now: float | None, max_age: float
) -> list[_ZeroProcess]:
    """The `zero` processes that name a session or resume the latest one, less those known
    to write another store than `store_root`."""
    global _process_scan
    moment = time.monotonic() if now is None else now
    if _process_scan is None or moment - _process_scan[0] >= max_age:
        scanned: list[_ZeroProcess] = []
        for pid, argv in _command_lines():
            session_id = session_named_by(argv)
            if session_id is not None or resumes_latest(argv):
                scanned.append(_ZeroProcess(session_id, pid, _store_written_by(pid)))
        _process_scan = (moment, scanned)
    wanted = None if store_root is None else os.path.realpath(store_root)
    return [
        process
        for process in _process_scan[1]
        if wanted is None or process.store_root in (None, wanted)
    ]


def _store_written_by(pid: int) -> str | None:
    """The store a `zero` process writes: Zero's DefaultRoot from its environment, a
    relative one from its working folder; None when /proc does not say (not ours)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            raw = handle.read(1 << 20)
        cwd = os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return None
    environ: dict[str, str] = {}
    for entry in raw.split(b"\0"):
        name, sep, value = entry.partition(b"=")
        if sep and name in (b"HOME", b"XDG_DATA_HOME"):
            environ[os.fsdecode(name)] = os.fsdecode(value)
    root = default_root(environ)
    return os.path.realpath(os.path.join(cwd, root))


def _command_lines() -> Iterator[tuple[int, list[str]]]:
    try:
        entries = os.listdir("/proc")
    except OSError:
        return
    own = os.getpid()
    for entry in entries:
        if not entry.isdigit() or int(entry) == own:
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                raw = handle.read(64 * 1024)
        except OSError:
            continue
        if b"zero" not in raw:
            continue
        argv = [os.fsdecode(part) for part in raw.split(b"\0") if part]
        yield int(entry), argv


# --- 3. Zero's own TUI ------------------------------------------------------------------------


def zero_tui_peers(env: Mapping[str, str] | None = None) -> dict[str, int]:
    """session id -> pid of a live Zero TUI that has it open (Zero's peer registry)."""
    environ = os.environ if env is None else env
    runtime = environ.get("XDG_RUNTIME_DIR", "").strip()
    if runtime:
        root = Path(runtime) / "zero" / "peers"
    else:
        cache = environ.get("XDG_CACHE_HOME", "").strip()
        root = (Path(cache) if cache else Path.home() / ".cache") / "zero" / "peers"
    try:
        names = os.listdir(root / "registry")
    except OSError:
        return {}
    found: dict[str, int] = {}
    for name in names:
        if not name.endswith(".json"):
            continue
        try:
            record = json.loads(read_own_file(root / "registry" / name, RECORD_LIMIT))
        except (OSError, ValueError, RecursionError):
            continue
        if not isinstance(record, dict):
            continue
        session_id, pid = record.get("sessionId"), record.get("pid")
        if isinstance(session_id, str) and isinstance(pid, int) and _alive(pid):
            found[session_id] = pid
    return found


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# --- 4. the log -------------------------------------------------------------------------------


def _log_ends_a_run(store: SessionStore, session_id: str) -> bool | None:
    """Whether the log's last complete event closes a run (an answer or an error); None
    when it cannot be read. A prompt, a tool call or result, usage: a run is in flight."""
    complete = _tail_lines(store, session_id)
    if complete is None:
        return None
    for line in reversed(complete):
        if not line:
            continue
        try:
            event = decode_line(line, session_id, 0)
        except StoreError:
            return None
        if event.type == "message":
            payload = event.payload
            role = payload.get("role") if isinstance(payload, dict) else None
            return role not in ("user", "goal")
        # what a run writes while it runs (zero exec appends each live); anything else (an
        # error, a fork's or rewind's or compaction's marker, goal bookkeeping) ends a run
        # or comes after one
        return event.type not in _IN_FLIGHT_TYPES
    return True  # an empty log: nothing in flight


def _tail_lines(store: SessionStore, session_id: str) -> list[bytes] | None:
    """The complete lines of the log's last `TAIL_BYTES`, stripped (None: unreadable)."""
    try:
        fd = open_regular(store.root / session_id / EVENTS_FILE)
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        start = max(0, size - TAIL_BYTES)
        data = os.pread(fd, size - start, start)
    except OSError:
        return None
    finally:
        os.close(fd)
    lines = [line.strip() for line in data.split(b"\n")]
    complete = lines[:-1] if data and not data.endswith(b"\n") else lines
    return complete if start == 0 else complete[1:]


def _written_recently(store: SessionStore, session_id: str, now: float) -> bool:
    try:
        modified = os.stat(store.root / session_id / EVENTS_FILE).st_mtime
    except OSError:
        return False
    return now - modified < RECENT_SECONDS


# --- all together ---------------------------------------------------------------------------


def running_sessions(
    store: SessionStore,
    sessions: Iterable[Metadata] | None = None,
    *,
    session_id: str | None = None,
    now: float | None = None,
    recent: Iterable[Metadata] | None = None,
    process_age: float = PROCESS_SCAN_SECONDS,
) -> dict[str, Running]:
    """The sessions of `store` (of `sessions` and `session_id`, when given) that an agent is
    writing now, each with where; the strongest signal wins (the module docstring's order).

    Signals 1-3 cost the same whatever the store's size; for 4, given `sessions`, only the
    logs of those updated in the last `RECENT_SECONDS` are looked at, else every
    session's metadata is stat-ed. `recent` names the candidates for 4 instead (a caller
    that follows the store knows which sessions were written just now); `process_age`: how
    old a scan of the processes may be (a caller that has just seen a write wants none)."""
    wall = time.time() if now is None else now
    listed = None if sessions is None else list(sessions)
    wanted = None if listed is None else {meta.session_id for meta in listed}
    if session_id is not None:  # also one whose metadata could not be read
        wanted = (wanted or set()) | {session_id}
    found: dict[str, Running] = {}

    def add(running: Running) -> None:
        sid = running.session_id
        if (wanted is None or sid in wanted) and sid not in found and (store.root / sid).is_dir():
            found[sid] = running

    for running in _registry_runs(store).values():
        add(running)
    for running in zero_processes(store.root, max_age=process_age).values():
        add(running)
    for peer_session, pid in zero_tui_peers().items():
        if peer_session not in found and _log_ends_a_run(store, peer_session) is False:
            add(Running(peer_session, "zero-ui", pid))
    looked_at = recent if recent is not None else listed
    if looked_at is None:
        candidates = _recently_written(store, wall)
    else:
        updated_since = _updater_since(wall)
        candidates = [meta.session_id for meta in looked_at if updated_since(meta)]
    for candidate in candidates:
        if candidate in found or not _written_recently(store, candidate, wall):
            continue
        if _log_ends_a_run(store, candidate) is False:
            add(Running(candidate, "recent"))
    return found


# --- before an act that removes or rewrites a session -----------------------------------------

START_SLACK_SECONDS = 2.0
"""How much earlier than /proc says a process may have started (boot time is whole seconds)."""


def possible_writer(store: SessionStore, session_id: str) -> Running | None:
    """Whoever could be writing `session_id`, for an act that removes or rewrites it
    (delete, fork, rewind); the caller holds the session's lock, so no append is half-way.

    Every signal of `running_now`, from a fresh look at the processes, and also a `zero`
    on this store that resumes its latest session without naming it (issue 25): after
    its prompt it may wait on its model for minutes, writing nothing. Zero picks that
    session as it starts (Store.LatestResumable: the resumable session updated last), so
    this one may be it when it was the latest then, or has been written since."""
    try:
        meta = store.get(session_id)
    except StoreError:
        meta = None
    listed = [meta] if meta is not None else []
    found = running_sessions(store, listed, session_id=session_id, process_age=0)
    if session_id in found:
        return found[session_id]
    for process in _zero_processes_of(store.root, None, PROCESS_SCAN_SECONDS):
        if process.session_id is None and _may_have_resumed(
            store, session_id, _started_at(process.pid)
        ):
            return Running(session_id, "zero-latest", process.pid)
    return None


def refusal_while_written(
    store: SessionStore, session_id: str, doing: str, *, by_log: bool = True
) -> Callable[[], str | None]:
    """For a store call that asks under the session's lock (`refuse=`): `doing` refused
    (`not deleting X: …`, one line) while `possible_writer` finds someone, else None.
    `by_log` False: a log written just now is no reason (only a process is), for an act
    that loses nothing, such as a fork."""

    def refusal() -> str | None:
        writer = possible_writer(store, session_id)
        if writer is None or (writer.kind == "recent" and not by_log):
            return None
        return writer.refusal(doing)

    return refusal


def _may_have_resumed(store: SessionStore, session_id: str, started: float | None) -> bool:
    """Whether a `zero` that resumed the latest session at `started` (None: not known)
    may have picked `session_id`: one written since (perhaps by it), or the latest then.

    A session written since has lost its `updatedAt` of then: the last event of its log
    written before stands in for it (Zero sets updatedAt as it appends), so the prompt
    Zero appends as it resumes does not make the session before look like the latest."""
    resumable = [meta for meta in store.list() if meta.is_resumable_kind]
    target = next((meta for meta in resumable if meta.session_id == session_id), None)
    if target is None:
        return store.get(session_id) is None  # unreadable metadata: cannot say it is not
    if started is None:
        return True
    cutoff = started - START_SLACK_SECONDS

    def created_since(meta: Metadata) -> bool:  # after Zero chose: never its choice
        created = parse_rfc3339(meta.created_at)
        return created is not None and created.timestamp() >= started + START_SLACK_SECONDS

    if created_since(target):
        return False
    updated = parse_rfc3339(target.updated_at)
    if updated is None or updated.timestamp() >= cutoff:
        return True  # written since it started: perhaps by it
    latest_then = 0.0
    for meta in resumable:
        if created_since(meta):
            continue
        moment = _written_before(store, meta, cutoff)
        if moment is None:
            return True  # when it was written last before is not known: it may be the one
        latest_then = max(latest_then, moment)
    return updated.timestamp() >= latest_then


def _written_before(store: SessionStore, meta: Metadata, cutoff: float) -> float | None:
    """When `meta`'s session was last written before `cutoff` (None: not known)."""
    updated = parse_rfc3339(meta.updated_at)
    if updated is not None and updated.timestamp() < cutoff:
        return updated.timestamp()
    for line in reversed(_tail_lines(store, meta.session_id) or []):
        try:
            created = parse_rfc3339(decode_line(line, meta.session_id, 0).created_at)
        except StoreError:
            continue
        if created is not None and created.timestamp() < cutoff:
            return created.timestamp()
    return None


def _started_at(pid: int) -> float | None:
    """When process `pid` started (wall time, from /proc), None when not known."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rpartition(b")")[2].split()
        with open("/proc/stat", "rb") as handle:
            boot = next(int(line.split()[1]) for line in handle if line.startswith(b"btime "))
        return boot + int(fields[19]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def _updater_since(now: float) -> Callable[[Metadata], bool]:
    """Whether a session's `updatedAt` falls in the last `RECENT_SECONDS` (and 2 more).

    A listing asks it of 10,000 sessions: one whose date (written in whatever zone) comes
    two days or more before the window's UTC date cannot, and is passed over unparsed."""
    window = now - RECENT_SECONDS - 2
    earliest_day = (datetime.fromtimestamp(window, UTC) - timedelta(days=1)).strftime("%Y-%m-%d")

    def updated_since(meta: Metadata) -> bool:
        if meta.updated_at[:10] < earliest_day:
            return False
        updated = parse_rfc3339(meta.updated_at)
        return updated is not None and updated.timestamp() > window

    return updated_since


def _recently_written(store: SessionStore, now: float) -> list[str]:
    """The sessions whose metadata changed in the last `RECENT_SECONDS` (Zero rewrites it
    after every append): a stat each, no log read."""
    found: list[str] = []
    for name in store.iter_session_dirs():
        try:
            modified = os.stat(store.metadata_path(name)).st_mtime
        except OSError:
            continue
        if now - modified < RECENT_SECONDS:
            found.append(name)
    return found
