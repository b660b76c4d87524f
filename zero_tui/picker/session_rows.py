"""Resume-picker rows and the status line that says what the picker hides (no Textual, no Rich)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING, Protocol

from zero_tui.hosts.registry import SessionRef
from zero_tui.picker.head_cache import CachedSession
from zero_tui.picker.hint_keys import DEFAULT_HINT_KEYS, HintKeys
from zero_tui.text.labels import TIME_COLUMN_WIDTH, display_title, one_line, time_label
from zero_tui.text.sanitize import sanitize_line

if TYPE_CHECKING:
    from zero_tui.store.models import Metadata


def local_now(clock: Callable[[], datetime] | None = None) -> tuple[datetime, tzinfo | None]:
    """Now, and the zone the picker shows times in: the local one (None), or the zone of
    `clock`'s time when a clock is given (tests and snapshots fix both)."""
    if clock is None:
        return datetime.now().astimezone(), None
    now = clock()
    return now, now.tzinfo


def picker_label(updated_at: str, title: str, now: datetime, tz: tzinfo | None = None) -> str:
    """Go's row label: `<when padded to 12>  <title>`, or the bare title without a time."""
    when = time_label(updated_at, now, tz)
    shown_title = display_title(title)
    if when is None:
        return shown_title
    return f"{when:<{TIME_COLUMN_WIDTH}}  {shown_title}"


FORK_MARK = "⑂"
SHORT_ID = 20  # a parent named by its id shows this much of it (a unique prefix, mostly)


class Titled(Protocol):
    """What a fork's row reads of its parent."""

    @property
    def title(self) -> str: ...


@dataclass(frozen=True, slots=True)
class RememberedParent:
    """A fork's parent as the remembered head knows it: by its title."""

    title: str


Parents = Mapping[str, Titled]
"""Sessions by id, where a fork's row finds its parent's title."""


@dataclass(frozen=True, slots=True)
class PickerRow:
    """One session as the picker shows it. `label` is what ranking matches and highlights."""

    session_id: str
    label: str
    when: str
    title: str
    model: str
    provider: str
    event_count: int
    is_fork: bool
    workspace: str
    updated_at: str = ""  # as the metadata has it: the picker's order (Zero's)
    parent_id: str = ""  # a fork's parent (parentSessionId)
    parent_name: str = ""  # its title on one line, else a short id ("" when no parent)
    forked_at: int = 0  # forkedFromSequence: the parent's last event the fork holds
    host: str | None = None  # the host whose mirrored store holds it (None: this machine's)

    @property
    def ref(self) -> SessionRef:
        return SessionRef(self.host, self.session_id)

    @property
    def key(self) -> str:
        """The row's session across the hosts (`HOST/ID` on a host: ids repeat across stores)."""
        return self.session_id if self.host is None else self.ref.key

    @property
    def title_offset(self) -> int:
        """Where the title starts inside `label` (after the time column and two spaces)."""
        return TIME_COLUMN_WIDTH + 2 if self.when else 0

    @property
    def lineage(self) -> str:
        """`⑂ fork of “Plan the parser” at event #24`: where a fork came from ("" for a
        session that is no fork)."""
        if not self.is_fork:
            return ""
        if not self.parent_id:
            return f"{FORK_MARK} fork"
        text = f"{FORK_MARK} fork of {self.parent_name}"
        return f"{text} at event #{self.forked_at}" if self.forked_at else text


def parent_name(parent_id: str, parents: Parents | None) -> str:
    """How a fork's row names its parent: `“its title”`, else a short id."""
    parent = parents.get(parent_id) if parents is not None else None
    if parent is not None and parent.title.strip():
        return f"“{display_title(parent.title)}”"
    shown = one_line(parent_id)
    return shown if len(shown) <= SHORT_ID else shown[:SHORT_ID] + "…"


def picker_row(
    meta: Metadata | CachedSession,
    now: datetime,
    tz: tzinfo | None = None,
    parents: Parents | None = None,
) -> PickerRow:
    """`meta`'s row; `parents`: the sessions a fork's parent is looked up in (no IO)."""
    when = time_label(meta.updated_at, now, tz) or ""
    title = display_title(meta.title)
    label = f"{when:<{TIME_COLUMN_WIDTH}}  {title}" if when else title
    is_fork = meta.session_kind == "fork"
    parent_id = meta.parent_session_id if is_fork else ""
    return PickerRow(
        session_id=meta.session_id,
        label=label,
        when=when,
        title=title,
        model=one_line(meta.model_id.strip()),
        provider=one_line(meta.provider.strip()),
        event_count=meta.event_count,
        is_fork=is_fork,
        workspace=one_line(meta.cwd),
        updated_at=meta.updated_at,
        parent_id=parent_id,
        parent_name=parent_name(parent_id, parents) if parent_id else "",
        forked_at=meta.forked_from_sequence if is_fork else 0,
    )


def picker_rows(
    metas: Iterable[Metadata | CachedSession],
    now: datetime,
    tz: tzinfo | None = None,
    parents: Parents | None = None,
) -> list[PickerRow]:
    return [picker_row(meta, now, tz, parents) for meta in metas]


def head_rows(
    sessions: Sequence[CachedSession], now: datetime, tz: tzinfo | None = None
) -> list[PickerRow]:
    """The rows of a remembered head (the picker's first rows): a
    fork names its parent by the title remembered with it, as the scan's row did."""
    parents: dict[str, Titled] = {
        session.parent_session_id: RememberedParent(session.parent_title)
        for session in sessions
        if session.parent_session_id and session.parent_title
    }
    return picker_rows(sessions, now, tz, parents)


def insert_in_zero_order(rows: list[PickerRow], row: PickerRow) -> None:
    """Put `row` in `rows` (in Zero's order: updatedAt descending, then id) where it goes."""
    low, high = 0, len(rows)
    while low < high:
        middle = (low + high) // 2
        other = rows[middle]
        if other.updated_at > row.updated_at or (
            other.updated_at == row.updated_at and other.session_id < row.session_id
        ):
            low = middle + 1
        else:
            high = middle
    rows.insert(low, row)


def rescan_summary(
    before: Iterable[PickerRow], after: Iterable[PickerRow], store_total: int
) -> str:
    """What a rescan (ctrl+r) found: `12 shown · 2 new · 3 changed · 1 removed · 340
    sessions in the store` (a row that changed: a new time, title, model or count)."""
    old = {row.session_id: row for row in before}
    new = {row.session_id: row for row in after}
    parts = [f"{len(new):,} shown"]
    added = len(new.keys() - old.keys())
    changed = sum(1 for key in new.keys() & old.keys() if _facts(new[key]) != _facts(old[key]))
    removed = len(old.keys() - new.keys())
    found = [(added, "new"), (changed, "changed"), (removed, "removed")]
    parts += [f"{count:,} {word}" for count, word in found if count] or ["no change"]
    noun = "session" if store_total == 1 else "sessions"
    parts.append(f"{store_total:,} {noun} in the store")
    return " · ".join(parts)


def _facts(row: PickerRow) -> tuple[object, ...]:
    """What a row says of its session (not its time label, which moves with the clock)."""
    return (row.updated_at, row.title, row.model, row.provider, row.event_count, row.workspace)


# --- title, query and status lines ------------------------------------------------------


def picker_title(workspace: str, *, content_mode: bool = False) -> str:
    """The picker's title line (the workspace is data: escape sequences made visible)."""
    mode = " · searching what was said (ctrl+t: titles)" if content_mode else ""
    return f"Resume a session · {sanitize_line(workspace)}{mode}"


def query_placeholder(*, content_mode: bool = False, keys: HintKeys = DEFAULT_HINT_KEYS) -> str:
    """What the empty query line says."""
    if content_mode:
        syntax = 'words, "a phrase", -word, title: model: id: after: before:'
        return f"{syntax} · {keys.search_mode}: titles"
    return f"type to filter titles… · {keys.search_mode}: what was said · / for commands"


def status_text(
    *,
    shown: int,
    total_in_scope: int,
    query: str,
    all_workspaces: bool,
    include_empty: bool,
    other_workspace: int,
    empty_runs: int,
    not_resumable: int,
    unreadable: int = 0,
    running: int = 0,
    polling: str = "",
    loading: bool = False,
    scanned: tuple[int, int] | None = None,
    enclosing: Sequence[tuple[str, int]] = (),
    trashed: int = 0,
    keys: HintKeys = DEFAULT_HINT_KEYS,
) -> str:
    """The line that always says what the picker hides and why (design §3.2, §3.9).

    `enclosing`: folders above the workspace with sessions, named when none is shown here;
    `running`: the scope's sessions an agent is writing now; `polling`: how the store is
    watched when no file-change notification is at hand; `trashed`: the store's sessions
    in zero-tui's trash.
    """
    parts: list[str] = []
    if query:
        parts.append(f"{shown:,} of {total_in_scope:,} match")
    else:
        parts.append(f"{shown:,} shown")
    if running:
        parts.append(f"{running:,} running")
    if all_workspaces:
        parts.append(f"all workspaces ({keys.scope}: this workspace)")
    elif other_workspace:
        parts.append(f"{other_workspace:,} in other workspaces ({keys.scope}: all)")
    if include_empty:
        parts.append(f"empty runs shown ({keys.empty}: hide)")
    elif empty_runs:
        noun = "empty run" if empty_runs == 1 else "empty runs"
        parts.append(f"{empty_runs:,} {noun} ({keys.empty}: show)")
    if not_resumable:
        noun = "sub-session" if not_resumable == 1 else "sub-sessions"
        parts.append(f"{not_resumable:,} {noun} not resumable")
    if unreadable:
        parts.append(f"{unreadable:,} unreadable (zero-tui check)")
    if trashed:
        parts.append(f"{trashed:,} in the trash (zero-tui trash)")
    if enclosing and shown == 0 and not query and not all_workspaces:
        folders = ", ".join(f"{one_line(folder)} ({count})" for folder, count in enclosing)
        parts.insert(1, f"in enclosing folders: {folders} ({keys.enclosing_folder}: go there)")
    if loading:
        parts.append(scanning_text(scanned))
    if polling:
        parts.append(polling)
    return " · ".join(parts)


def scanning_text(scanned: tuple[int, int] | None) -> str:
    """What the status line says while the store is read: how far, when it is known."""
    if scanned is None:
        return "scanning…"
    done, total = scanned
    return f"scanning {done:,}/{total:,}…"
