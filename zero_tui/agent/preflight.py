"""Before and after an agent's run on a session (issue 17, items 4 to 6). No Textual import.

Before anything is sent: one run per session across zero-tuis (`running.claim_run`, held
for the run's length, dropped by the kernel should zero-tui die), then a log that Zero's
reader and `zero exec --resume` accept (`check.prepare_run`: a torn last line is cut with
a copy kept, any other damage refuses the run). A new conversation has no id until the
agent names it in `run_start`: its claim is taken then.

After the run: whether the log it appended to is still there and still the same file. A
session removed or replaced while the run was in flight is said plainly, rather than read
back as an empty session.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from zero_tui.agent.running import RunBusy, RunClaim, Running, claim_run
from zero_tui.store import SessionStore, StoreError
from zero_tui.store.check import Repair, prepare_run
from zero_tui.store.store import os_reason


class RunRefused(Exception):
    """The run must not start; the message is the one line the user sees. `running`: the
    run that holds the session, when that is why."""

    def __init__(self, message: str, running: Running | None = None) -> None:
        super().__init__(message)
        self.running = running


@dataclass(frozen=True, slots=True)
class LogMark:
    """The log a run appends to, as it was when the run began: its file and size."""

    identity: tuple[int, int] | None  # (device, inode); None: no log file yet
    size: int


@dataclass(slots=True)
class RunGuard:
    """What a run holds and was told before it began: release() when it is over."""

    session_id: str | None
    claim: RunClaim | None = None
    mark: LogMark | None = None
    notes: list[str] = field(default_factory=list)  # said under the run

    def release(self) -> None:
        if self.claim is not None:
            self.claim.release()
            self.claim = None


def refusal_text(running: Running) -> str:
    """Why a prompt was not sent to a session another run holds, and what happens now."""
    return (
        f"Not sent: this session is running {running.describe()}. The transcript follows "
        "that run live, read-only; send again once it has ended (your prompt is kept)."
    )


def repair_note(repair: Repair) -> str:
    backup = f"; the log as it was is kept at {repair.backup}" if repair.backup else ""
    return (
        f"Before the run: the log's last line was torn (a write that never finished), "
        f"so zero-tui {repair.action}{backup}."
    )


def guard_run(
    store: SessionStore,
    session_id: str | None,
    *,
    quiet_since: float | None = None,
    mirror: bool = False,
) -> RunGuard:
    """Claim the session's run and ready its log, or RunRefused with nothing changed
    (a refused log keeps its torn tail too). None: a new conversation (see claim_named).
    `mirror`: `store` is a host's mirror, never written and never checked for a run (the
    host checks its own): only this machine's claim is taken."""
    guard = RunGuard(session_id)
    if session_id is None:
        return guard
    try:
        guard.claim = claim_run(store, session_id, quiet_since=quiet_since, new_session=mirror)
    except RunBusy as busy:
        raise RunRefused(refusal_text(busy.running), busy.running) from None
    except OSError as error:
        guard.notes.append(_unregistered(error))
    if mirror:
        return guard
    try:
        repair = prepare_run(store, session_id)
    except StoreError as error:
        guard.release()
        raise RunRefused(_sentence(str(error))) from None
    if repair is not None:
        guard.notes.append(repair_note(repair))
    guard.mark = log_mark(store, session_id)
    return guard


def claim_named(store: SessionStore, guard: RunGuard, session_id: str) -> str | None:
    """A new conversation's run, once the agent named its session: claim it. What to say
    when it could not be claimed (the run goes on: the agent is running already)."""
    if guard.session_id is not None:
        return None
    guard.session_id = session_id
    guard.mark = log_mark(store, session_id)
    try:
        guard.claim = claim_run(store, session_id, new_session=True)
    except RunBusy as busy:
        return (
            f"This new session is also claimed {busy.running.describe()}: two runs may be "
            "writing it."
        )
    except OSError as error:
        return _unregistered(error)
    return None


def log_mark(store: SessionStore, session_id: str) -> LogMark:
    try:
        info = os.stat(store.events_path(session_id))
    except OSError:
        return LogMark(None, 0)
    return LogMark((info.st_dev, info.st_ino), info.st_size)


def session_fate(store: SessionStore, session_id: str, mark: LogMark | None) -> str | None:
    """After a run: why its session cannot be read back as the run left it (removed, or its
    log replaced), or None when the log is the one the run appended to."""
    if not os.path.isdir(store.session_dir(session_id)):
        return (
            "This session was removed while the run was in flight, so Zero could not store "
            "the rest of the run: what was on screen stays, and nothing of it is saved."
        )
    if mark is None:
        return None
    try:
        info = os.stat(store.events_path(session_id))
    except FileNotFoundError:
        if mark.identity is None:
            return None
        return (
            "This session's log was removed while the run was in flight: what was on "
            "screen stays, and nothing of it is saved."
        )
    except OSError:
        return None
    if mark.identity is not None and (
        (info.st_dev, info.st_ino) != mark.identity or info.st_size < mark.size
    ):
        return (
            "This session's log was replaced while the run was in flight (rewound, restored "
            "or rewritten by another program): the run as it was streamed stays below; the "
            "rows are the log as it is now."
        )
    return None


def _unregistered(error: OSError) -> str:
    return (
        f"This run could not be registered as running ({os_reason(error)}): another "
        "zero-tui will not see it."
    )


def _sentence(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")
