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
from zero_tui.commands import Outcome
from zero_tui.picker.head_cache import ScopeHead
from zero_tui.picker.preview_data import PreviewData
from zero_tui.picker.ranking import Ranking
from zero_tui.picker.scopes import ScopeKey
from zero_tui.picker.session_rows import PickerRow
from zero_tui.search.query import SearchHit
from zero_tui.store.store import UnreadableSession
from zero_tui.transcript.answers import CodeBlock
from zero_tui.transcript.follower import LogEnd, OpenedLog
from zero_tui.transcript.recall import PromptRecall

# --- the picker ------------------------------------------------------------------------


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
class UnreadableFound(Message):
    """The session directories the last scan could not read, with why (design §3.9)."""

    scan_id: int
    sessions: tuple[UnreadableSession, ...]


@dataclass
class EnclosingFolders(Message):
    """The folders above the workspace with sessions the picker would list there."""

    scan_id: int
    folders: list[tuple[str, int]]


@dataclass
class RememberedRowsLoaded(Message):
    """The rows remembered from the last run (no store IO yet): the catalog scan follows
    once they are painted."""

    scan_id: int
    key: ScopeKey
    head: ScopeHead | None
    rows: list[PickerRow]


@dataclass
class ScanFailed(Message):
    """The store could not be listed at all (the picker shows the reason)."""

    scan_id: int
    error: str


@dataclass
class ScanProgress(Message):
    """A scan with nothing remembered to show: `done` of `total` session directories read."""

    scan_id: int
    done: int
    total: int


@dataclass
class ContentResults(Message):
    """A content search of one scope's rows: the rows that matched, best first, with hits."""

    key: ScopeKey
    query: str
    rows: Sequence[PickerRow]
    order: list[int]
    hits: list[SearchHit]
    matched: int
    error: str | None = None
    notices: tuple[str, ...] = ()


@dataclass
class IndexProgress(Message):
    """The text index is being brought up to date: `done` of `total` sessions looked at."""

    done: int
    total: int
    finished: bool = False


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


# --- the transcript ----------------------------------------------------------------------


@dataclass
class TranscriptLoaded(Message):
    """The log is indexed: rows can be shown."""

    bubble = False

    load_id: int
    log: OpenedLog

    @property
    def partial(self) -> bool:
        """Only the latest events: the whole log follows."""
        return self.log.partial

    @property
    def order(self) -> Sequence[int]:
        return self.log.order


@dataclass
class TranscriptFailed(Message):
    bubble = False

    load_id: int
    error: str


@dataclass
class LogPolled(Message):
    """One look at the log's end: what it found."""

    bubble = False

    end: LogEnd


@dataclass
class MatchesFound(Message):
    """Every row position (ascending) matching a find query; go to the next one (posted by
    the log's widget, for the screen, which has the find bar)."""

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
    """The prompt /retry or /edit works on (None: none), posted by the log's widget for the
    screen, which sends it or puts it in the editor."""

    recall: PromptRecall
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
