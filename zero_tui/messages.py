"""Messages posted by thread workers and widgets; handlers on screens own all UI changes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from textual.message import Message

from zero_tui.search.ranking import Ranking
from zero_tui.search.rows import PickerRow, PreviewData

ScopeKey = tuple[bool, bool]
"""(all_workspaces, include_empty): one view of the store in the picker."""


@dataclass
class ScopeLoaded(Message):
    """Rows of one picker scope: `replace` starts the scope over, else `rows` extends it."""

    scan_id: int
    key: ScopeKey
    rows: list[PickerRow]
    other_workspace: int
    empty_runs: int
    not_resumable: int
    store_total: int
    complete: bool
    replace: bool = False


@dataclass
class ScanFailed(Message):
    """The store could not be listed at all (the picker shows the reason)."""

    scan_id: int
    error: str


@dataclass
class RankingDone(Message):
    """The ranked order of one scope's rows for one query (`ranking` gives highlights)."""

    key: ScopeKey
    query: str
    rows: Sequence[PickerRow]
    order: list[int]
    ranking: Ranking


@dataclass
class PreviewLoaded(Message):
    session_id: str
    preview: PreviewData


@dataclass
class OpenSession(Message):
    """Open the transcript of a session (from the picker or from `--resume`)."""

    session_id: str
    notice: str | None = None


@dataclass
class ResumeResolved(Message):
    """The outcome of `--resume`: a session to open, or the message to show instead."""

    session_id: str | None
    message: str | None


@dataclass
class ResumeRequest(Message):
    """`/resume latest` or `/resume <id>` typed in a screen: the app resolves it."""

    argument: str
