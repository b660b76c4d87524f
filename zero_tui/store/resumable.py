"""The resume picker's list: Zero's filters, plus the counts of what each one hid."""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import BinaryIO, Literal, Protocol

from zero_tui.store.errors import StoreError
from zero_tui.store.events import decode_line
from zero_tui.store.gofields import payload_map, text
from zero_tui.store.gotext import (
    atoi,
    clean_path,
    equal_fold,
    trim_space,
    trim_space_bytes,
)
from zero_tui.store.models import Event, Metadata
from zero_tui.store.store import (
    EVENTS_FILE,
    SessionStore,
    open_regular,
    sort_sessions,
    valid_session_id,
)
from zero_tui.store.workspace import forget_directory_identities, workspace_matches

_NO_PROGRESS = re.compile(
    r"Agent stopped after (\S+) turns with no output \(no visible text and no tool calls\) "
    r"to avoid consuming tokens without making progress\.",
    re.DOTALL,
)
_FIRST_READ = 4 * 1024
_READ_CHUNK = 64 * 1024


def is_no_progress_answer(content: str) -> bool:
    """The agent's no-progress guard answer, exactly (its count must pass strconv.Atoi)."""
    match = _NO_PROGRESS.fullmatch(trim_space(content))
    return match is not None and atoi(match.group(1)) is not None


def event_shows_progress(event: Event) -> bool:
    """A tool call/result, or a non-user message with real content (tui-behaviour §1.2.3)."""
    if event.type in ("tool_call", "tool_result"):
        return True  # whatever its payload: it is not even decoded
    if event.type != "message":
        return False
    # its role and content as `payload_decoder` reads a message's, without its dataclasses
    message = payload_map(event)
    if equal_fold(text(message, "role"), "user"):
        return False
    content = text(message, "content")
    return bool(trim_space(content)) and not is_no_progress_answer(content)


def has_resumable_content(store: SessionStore, session_id: str) -> bool:
    """Whether the log holds real progress, reading only as far as the first such event.

    Gives Zero's answer without parsing whole logs: a log Zero's reader would reject, or
    one that cannot be read, keeps the session (fail open).
    """
    if not valid_session_id(session_id):
        return True  # Zero's ReadEvents fails on it, and a failed read keeps the session
    try:
        handle = os.fdopen(open_regular(os.path.join(store.root, session_id, EVENTS_FILE)), "rb")
    except FileNotFoundError:
        return False
    except OSError:
        return True
    with handle:
        try:
            return _shows_progress(_chunks(handle), session_id)
        except OSError:
            return True


def log_has_resumable_content(data: bytes, session_id: str) -> bool:
    """`has_resumable_content` of a log already read whole (`data`)."""
    if not valid_session_id(session_id):
        return True
    # its first lines alone, as a read of the file would: they usually decide
    head = (data[:_FIRST_READ], data[_FIRST_READ:]) if len(data) > _FIRST_READ else (data,)
    return _shows_progress(head, session_id)


def _chunks(handle: BinaryIO) -> Iterator[bytes]:
    """The file's bytes, a small first read (the deciding event is usually among the
    first lines), then larger ones."""
    chunk = handle.read(_FIRST_READ)
    while chunk:
        yield chunk
        chunk = handle.read(_READ_CHUNK)


def _shows_progress(chunks: Iterable[bytes], session_id: str) -> bool:
    """`has_resumable_content`'s answer over a log's bytes, given in chunks."""
    pending = iter(chunks)
    first = next(pending, b"")
    if _progress_after_the_prompts(first, session_id):
        return True
    undecodable_line = False  # forgiven only as a torn last line
    line_number = 0
    ends_with_newline = False
    carry = b""
    for chunk in itertools.chain((first,), pending, (b"",)):
        at_end = not chunk
        if not at_end:
            ends_with_newline = chunk.endswith(b"\n")
        lines = (carry + chunk).split(b"\n")
        carry = b"" if at_end else lines.pop()
        for line in lines:
            line_number += 1
            content = trim_space_bytes(line)
            if not content:
                continue
            if undecodable_line:
                return True  # a bad line before another line: Zero's read fails
            try:
                event = decode_line(content, session_id, line_number)
            except StoreError:
                undecodable_line = True
                continue
            if event_shows_progress(event):
                return True
    # a bad last line is a torn tail (dropped) unless the file ends in "\n"
    return undecodable_line and ends_with_newline


_USER_ROLE = b'"role":"user"'


def _progress_after_the_prompts(chunk: bytes, session_id: str) -> bool:
    """Whether a whole line of the log's first chunk shows progress, its lines that name the
    user's role passed over undecoded: a cheap first look, as a log usually opens with the
    user's prompt and then the answer. Such a line settles it whatever the lines before it
    (one that does not decode, followed by another, fails Zero's read: the session is kept
    then too). False: not settled, `_shows_progress` reads the lines in order."""
    for number, line in enumerate(chunk.split(b"\n")[:-1], 1):  # not a cut-off last line
        content = trim_space_bytes(line)
        if not content or _USER_ROLE in content:
            continue
        try:
            event = decode_line(content, session_id, number)
        except StoreError:
            continue
        if event_shows_progress(event):
            return True
    return False


@dataclass(slots=True)
class ResumeList:
    """The picker's sessions, in Zero's order, and exactly how many each key would add.

    `other_workspace`: what widening to all workspaces adds (Tab, `--all`);
    `empty_runs`: what showing empty runs adds (ctrl+e, `--include-empty`);
    `other_empty_runs`: empty runs of other workspaces, which only both together show.
    """

    sessions: list[Metadata] = field(default_factory=list)
    other_workspace: int = 0
    empty_runs: int = 0
    not_resumable: int = 0
    other_empty_runs: int = 0

    @property
    def hidden(self) -> int:
        return self.other_workspace + self.empty_runs + self.other_empty_runs


def log_is_missing(store: SessionStore, session_id: str) -> bool:
    """No events.jsonl at all (not even a broken link) beside a session's metadata."""
    try:
        return not os.path.lexists(store.events_path(session_id))
    except StoreError:
        return False


Placement = Literal["listed", "other_workspace", "empty_runs", "other_empty_runs", "not_resumable"]
"""Where the picker puts a session in one scope: listed, or hidden under the key that
would show it (`ResumeList`'s counts)."""


def is_empty_run(store: SessionStore, meta: Metadata, content_check: Callable[[str], bool]) -> bool:
    """An empty run: no event, or no real progress in the log (`content_check`). A session
    whose metadata counts events but whose log is gone is damaged, not empty."""
    if meta.event_count > 0 and content_check(meta.session_id):
        return False
    return not (meta.event_count > 0 and log_is_missing(store, meta.session_id))


def placement(*, resumable: bool, elsewhere: bool, empty: bool) -> Placement:
    """Where one session goes in a scope: `elsewhere`, in another workspace the scope does
    not list; `empty`, an empty run the scope hides."""
    if not resumable:
        return "not_resumable"
    if elsewhere and empty:
        return "other_empty_runs"
    if elsewhere:
        return "other_workspace"
    if empty:
        return "empty_runs"
    return "listed"


def filter_resumable(
    store: SessionStore,
    workspace: str,
    *,
    all_workspaces: bool = False,
    include_empty: bool = False,
    sessions: Iterable[Metadata] | None = None,
    content_check: Callable[[str], bool] | None = None,
) -> ResumeList:
    """Zero's workspace-scoped resume list (tui-behaviour §1.2) with counts of what it hid.

    Zero's filters: resumable kind, workspace, eventCount > 0, resumable content. A hidden
    session is counted under the one key that would show it (an empty run of another
    workspace needs both, and is counted apart), so every count is what its key adds.
    Beyond Zero: a session whose metadata counts events but whose log is gone is damaged,
    not an empty run: it is listed, and opening it says what is wrong.
    `sessions` replaces `store.list()`; `content_check(session_id)` replaces reading the
    log (a catalog passes its remembered verdicts).
    """
    check = content_check or (lambda session_id: has_resumable_content(store, session_id))
    forget_directory_identities()
    candidates = sort_sessions(list(sessions)) if sessions is not None else store.list()
    result = ResumeList()
    for meta in candidates:
        resumable = meta.is_resumable_kind
        where = placement(
            resumable=resumable,
            elsewhere=resumable
            and not all_workspaces
            and not workspace_matches(meta.cwd, workspace),
            empty=resumable and not include_empty and is_empty_run(store, meta, check),
        )
        match where:
            case "listed":
                result.sessions.append(meta)
            case "other_workspace":
                result.other_workspace += 1
            case "empty_runs":
                result.empty_runs += 1
            case "other_empty_runs":
                result.other_empty_runs += 1
            case "not_resumable":
                result.not_resumable += 1
    return result


def enclosing_workspaces(
    sessions: Iterable[Metadata], workspace: str, content_check: Callable[[str], bool]
) -> list[tuple[str, int]]:
    """The folders above `workspace` that the picker would list sessions for, nearest
    first, each with how many (started in `webapp/src`, the sessions are in `webapp`)."""
    current = clean_path(trim_space(workspace))
    if not os.path.isabs(current):
        return []
    counts: dict[str, int] = {}
    for meta in sessions:
        cwd = clean_path(trim_space(meta.cwd)) if trim_space(meta.cwd) else ""
        if not cwd or not os.path.isabs(cwd) or cwd == current:
            continue
        if not current.startswith(cwd.rstrip("/") + "/"):
            continue
        if meta.is_resumable_kind and meta.event_count > 0 and content_check(meta.session_id):
            counts[cwd] = counts.get(cwd, 0) + 1
    return sorted(counts.items(), key=lambda item: len(item[0]), reverse=True)


AMBIGUOUS_LISTED = 8
"""Candidates named in the message for an ambiguous id prefix."""


class Listing(Protocol):
    """Where `latest` is found without reading every session: the store's sessions and
    their verdicts as a catalog remembers them, each checked against its files first."""

    def refresh(self) -> list[Metadata]: ...

    def has_content(self, session_id: str) -> bool: ...


def resolve_session(
    store: SessionStore, argument: str, workspace: str, listing: Listing | None = None
) -> tuple[str, Metadata]:
    """The session a user names: `latest`, an id, or a unique prefix of an id.

    Returns the id that names its directory (what the store reads it by: metadata may
    spell it otherwise) and its metadata. `latest` is what the picker would list first
    for `workspace` (tui-behaviour §1.6), from `listing` when given. An exact id wins over
    a prefix. StoreError (one line) for an invalid or unknown id, or a prefix several
    sessions share (it names them).
    """
    target = trim_space(argument)
    if equal_fold(target, "latest"):
        return _latest(store, workspace, listing)
    meta = store.get(target)
    if meta is not None:
        return target, meta
    candidates: list[tuple[str, Metadata]] = []
    for name in _prefixed(store, target):
        try:
            found = store.get(name)
        except StoreError:
            continue
        if found is not None:
            candidates.append((name, found))
    _one_or_refuse(target, [name for name, _meta in candidates])
    return candidates[0]


def resolve_session_dir(
    store: SessionStore, argument: str, workspace: str, listing: Listing | None = None
) -> str:
    """The session directory a user names, as `resolve_session` finds it, but also when its
    metadata cannot be read (what `check` is for): an exact name, then a unique prefix."""
    target = trim_space(argument)
    if equal_fold(target, "latest"):
        return _latest(store, workspace, listing)[0]
    names = _prefixed(store, target)
    if target in names:
        return target
    _one_or_refuse(target, names)
    return names[0]


def _latest(store: SessionStore, workspace: str, listing: Listing | None) -> tuple[str, Metadata]:
    if listing is None:
        listed = filter_resumable(store, workspace).sessions
    else:
        listed = filter_resumable(
            store, workspace, sessions=listing.refresh(), content_check=listing.has_content
        ).sessions
    if not listed:
        raise StoreError("no zero sessions available to resume")
    return listed[0].session_id, listed[0]


def _prefixed(store: SessionStore, prefix: str) -> list[str]:
    return sorted(name for name in store.iter_session_dirs() if name.startswith(prefix))


def _one_or_refuse(target: str, names: list[str]) -> None:
    """StoreError unless exactly one session directory matched `target`."""
    if not names:
        raise StoreError(f"zero session not found: {target}")
    if len(names) > 1:
        listed = ", ".join(names[:AMBIGUOUS_LISTED])
        more = len(names) - AMBIGUOUS_LISTED
        if more > 0:
            listed += f" and {more} more"
        raise StoreError(
            f"ambiguous session id {target!r}: {len(names)} sessions start with it: {listed}"
        )


def resolve_resume_target(
    store: SessionStore, argument: str, workspace: str
) -> tuple[Metadata | None, str | None]:
    """`/resume latest`, `/resume <id or unique prefix>` (tui-behaviour §1.6, §1.7).

    The session, or the message saying why not.
    """
    try:
        _session_id, meta = resolve_session(store, argument, workspace)
    except StoreError as error:
        return None, str(error)
    if not meta.is_resumable_kind:
        return None, f"zero session is not resumable: {meta.session_id}"
    return meta, None
