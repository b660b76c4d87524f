"""Every message of the UI: posted by thread workers and widgets, handled on the screens.

Workers hand results back only through these; the handlers own all UI changes. Messages that
concern one screen only do not bubble (`bubble = False`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from textual.message import Message

from zero_tui.agent import AgentEvent, ExecRun, RunOutcome
from zero_tui.clipboard import CopyResult
from zero_tui.commands import ExportRequest, Outcome
from zero_tui.picker.content_search import ContentOutcome
from zero_tui.picker.loader import LoadStage
from zero_tui.picker.preview_data import PreviewData
from zero_tui.picker.ranking import Ranking
from zero_tui.picker.scopes import ScopeKey
from zero_tui.picker.session_rows import PickerRow
from zero_tui.store import Metadata
from zero_tui.transcript.answers import CodeBlock
from zero_tui.transcript.log_index import LogIndex
from zero_tui.transcript.rows import LogFacts

# --- the picker ------------------------------------------------------------------------


@dataclass
class ScanStage(Message):
    """One stage of the picker's scan number `scan` (zero_tui.picker.loader)."""

    bubble = False

    scan: int
    stage: LoadStage


@dataclass
class StoreChanges(Message):
    """The store watcher saw these sessions change (created, appended to, renamed or
    removed); none: look at the whole store again."""

    bubble = False

    session_ids: frozenset[str]


@dataclass
class WatchMode(Message):
    """How the store watcher finds changes now (`StoreWatcher.mode`)."""

    bubble = False

    mode: str


@dataclass
class IndexProgress(Message):
    """The text index is being brought up to date: `done` of `total` sessions looked at."""

    bubble = False

    done: int
    total: int
    finished: bool = False


@dataclass
class RankingDone(Message):
    """The ranked order of one scope's rows for one query (`ranking` gives highlights)."""

    bubble = False

    key: ScopeKey
    query: str
    rows: Sequence[PickerRow]
    order: list[int]
    ranking: Ranking


@dataclass
class ContentResults(Message):
    """A content search of one scope's rows for one query."""

    bubble = False

    key: ScopeKey
    query: str
    rows: Sequence[PickerRow]
    outcome: ContentOutcome


@dataclass
class PreviewLoaded(Message):
    bubble = False

    session_id: str
    preview: PreviewData


# --- opening sessions ------------------------------------------------------------------


@dataclass
class OpenSession(Message):
    """Open the transcript of a session (from the picker or from `--resume`)."""

    session_id: str
    notice: str | None = None
    above: bool = False  # on top of the current transcript (Esc comes back to it)
    sequence: int | None = None  # open at this event (a content-search hit)
    highlight: str = ""  # and mark this text, as the find bar does


@dataclass
class NewConversation(Message):
    """`/new`: an empty conversation in the current workspace."""


@dataclass
class ResumeResolved(Message):
    """The outcome of `--resume`: a session to open, or the message to show instead."""

    session_id: str | None
    message: str | None
    read_only: bool = False  # a kind that cannot be continued (a specialist's child, …)


@dataclass
class ResumeRequest(Message):
    """`/resume latest` or `/resume <id>` typed in a screen: the app resolves it."""

    argument: str


# --- commands shared by the screens ------------------------------------------------------


@dataclass
class CommandDone(Message):
    """An export or rename finished (in a worker): what to tell the user."""

    bubble = False

    title: str
    session_id: str
    outcome: Outcome
    request: ExportRequest | None = None  # an export's, to ask again with force


# --- the transcript ----------------------------------------------------------------------


@dataclass
class TranscriptLoaded(Message):
    """The log is indexed: rows can be shown."""

    bubble = False

    load_id: int
    meta: Metadata | None
    index: LogIndex
    order: Sequence[int]
    note: str | None
    partial: bool = False  # only the latest events: the whole log follows
    facts: LogFacts | None = None  # the whole log's facts, for rows equal to a batch build


@dataclass
class TranscriptFailed(Message):
    bubble = False

    load_id: int
    error: str


@dataclass
class LogPolled(Message):
    """One look at the log's end. `first_changed` is None when nothing changed; `replaced`
    when it shrank, changed inode or gained a compaction (read it again)."""

    bubble = False

    load_id: int
    first_changed: int | None
    replaced: bool
    meta: Metadata | None
    facts: LogFacts | None = None  # of the new positions only (LogFacts.merge takes them in)


@dataclass
class MatchesFound(Message):
    """Every row position (ascending) matching a find query; go to the next one."""

    bubble = False

    query: str
    positions: list[int]
    backwards: bool


@dataclass
class EventLocated(Message):
    """Where a search hit's event sits in the transcript's order (None: not in it)."""

    bubble = False

    sequence: int
    position: int | None


@dataclass
class CopyDone(Message):
    bubble = False

    result: CopyResult


@dataclass
class CodeBlocksFound(Message):
    bubble = False

    blocks: list[CodeBlock]


@dataclass
class PromptRecalled(Message):
    """The prompt /retry or /edit works on, found in the session's log (None: none)."""

    bubble = False

    command: str
    prompt: str | None


# --- a run of the agent ------------------------------------------------------------------


@dataclass
class RunStarted(Message):
    """`zero exec` is running (its events follow as AgentEventArrived)."""

    bubble = False

    run_token: int
    run: ExecRun
    cwd: str
    cwd_note: str | None


@dataclass
class AgentEventArrived(Message):
    bubble = False

    run_token: int
    event: AgentEvent


@dataclass
class RunFinished(Message):
    """The run is over: its outcome, or why it could not start (`refused`)."""

    bubble = False

    run_token: int
    outcome: RunOutcome | None
    refused: str | None = None
