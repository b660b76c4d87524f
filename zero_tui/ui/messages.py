"""Every message of the UI: posted by thread workers and widgets, handled on the screens.

Workers hand results back only through these; the handlers own all UI changes. Messages that
concern the widget or screen posting them only do not bubble: `class X(Message, bubble=False)`,
the class keyword (`Message.__init_subclass__` overrides a `bubble = False` in the body). Those
a screen handles from a widget below it bubble (the picker's `StoreFeed` and `SessionTrash`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:  # annotations only
    from zero_tui.agent.engine import ExecRun
    from zero_tui.agent.guarded_delete import Deletion
    from zero_tui.agent.outcome import RunOutcome
    from zero_tui.agent.stream import AgentEvent
    from zero_tui.agent.zero_commands import CostEstimate, Grant, RewindPlan, RewindResult
    from zero_tui.clipboard import CopyResult
    from zero_tui.commands import ExportRequest, Outcome
    from zero_tui.picker.content_search import ContentOutcome
    from zero_tui.picker.host_rows import HostSync
    from zero_tui.picker.loader import LoadStage
    from zero_tui.picker.preview_data import PreviewData
    from zero_tui.picker.ranking import Ranking
    from zero_tui.picker.scopes import ScopeKey
    from zero_tui.picker.session_rows import PickerRow
    from zero_tui.store.session_flags import FlagBook
    from zero_tui.store.token_counts import Tokens
    from zero_tui.transcript.answers import CodeBlock
    from zero_tui.transcript.denied_calls import DeniedCall
    from zero_tui.transcript.follower import LogEnd, OpenedLog
    from zero_tui.transcript.recall import PromptRecall
    from zero_tui.transcript.turns import ForkedTurn, ParentLink, TurnSpan
    from zero_tui.transcript.usage_report import UsageOverviews

# --- the picker ------------------------------------------------------------------------


@dataclass
class ScanStage(Message):
    """One stage of the picker's scan number `scan` (zero_tui.picker.loader), posted by
    the picker's `StoreFeed`: it goes on up to the screen, as the three below do."""

    scan: int
    stage: LoadStage
    host: str | None = None  # the host whose mirror was scanned (None: this machine's store)


@dataclass
class StoreChanges(Message):
    """The store watcher saw these sessions change (created, appended to, renamed or
    removed); none: look at the whole store again."""

    session_ids: frozenset[str]
    host: str | None = None


@dataclass
class WatchMode(Message):
    """How the store watcher finds changes now (`StoreWatcher.mode`)."""

    mode: str
    host: str | None = None


@dataclass
class IndexProgress(Message):
    """The text index is being brought up to date: `done` of `total` sessions looked at."""

    done: int
    total: int
    finished: bool = False
    host: str | None = None  # a host's mirror's index (None: this machine's)


@dataclass
class HostSynced(Message):
    """A host's mirror: a sync started, ended or failed (`sync`), or what the last one
    left, read at start; `sync` None: only the time moved (the freshness' ages)."""

    sync: HostSync | None


@dataclass
class RankingDone(Message, bubble=False):
    """The ranked order of one scope's rows for one query (`ranking` gives highlights)."""

    key: ScopeKey
    query: str
    rows: Sequence[PickerRow]
    order: list[int]
    ranking: Ranking


@dataclass
class ContentResults(Message, bubble=False):
    """A content search of one scope's rows for one query."""

    key: ScopeKey
    query: str
    rows: Sequence[PickerRow]
    outcome: ContentOutcome


@dataclass
class PreviewLoaded(Message, bubble=False):
    session_id: str
    preview: PreviewData


# --- opening sessions ------------------------------------------------------------------


@dataclass
class OpenSession(Message):
    """Open the transcript of a session (from the picker or from `--resume`)."""

    session_id: str
    notice: str | None = None
    above: bool = False  # on top of the current transcript (Esc comes back to it)
    host: str | None = None  # a session of this host's mirror (continued on that host)
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
class CommandDone(Message, bubble=False):
    """An export or rename finished (in a worker): what to tell the user."""

    title: str
    session_id: str
    outcome: Outcome
    request: ExportRequest | None = None  # an export's, to ask again with force


@dataclass
class TrashCounted(Message):
    """How many of the store's sessions are in zero-tui's trash (read in a worker)."""

    count: int


@dataclass
class FlagsRead(Message):
    """The store's pins, tags and archive, read or changed in a worker; `said`: what a
    change did (one line, "" for a read); `failed`: why a change was not made."""

    book: FlagBook
    said: str = ""
    failed: str = ""


@dataclass
class BulkDeleted(Message):
    """A delete of several marked sessions finished (in a worker): what it did, in one line,
    and whether any was refused."""

    said: str
    failed: bool


@dataclass
class SessionDeleted(Message):
    """A delete from the picker finished (in a worker): moved to the trash, or why not."""

    session_id: str
    outcome: Deletion
    quiet: bool = False  # one of several marked: `BulkDeleted` says how they went


@dataclass
class ActionFailed(Message, bubble=False):
    """A command's worker could not do what was asked: one line for the user."""

    title: str
    message: str


@dataclass
class GrantsListed(Message, bubble=False):
    """Zero's persistent sandbox grants (`/permissions`)."""

    grants: list[Grant]


@dataclass
class GrantChanged(Message, bubble=False):
    """A grant was saved or revoked through Zero: what to tell the user."""

    message: str
    revoked: bool


# --- the transcript ----------------------------------------------------------------------


@dataclass
class TranscriptLoaded(Message, bubble=False):
    """The log is indexed: rows can be shown."""

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
class TranscriptFailed(Message, bubble=False):
    load_id: int
    error: str
    removed: bool = False  # the session is no longer in the store


@dataclass
class LogPolled(Message, bubble=False):
    """One look at the log's end: what it found."""

    end: LogEnd


@dataclass
class MatchesFound(Message):
    """Every row position (ascending) matching a find query; go to the next one (posted by
    the log's widget, for the screen, which has the find bar)."""

    query: str
    positions: list[int]
    backwards: bool


@dataclass
class EventLocated(Message, bubble=False):
    """Where a search hit's event sits in the transcript's order (None: not in it)."""

    sequence: int
    position: int | None


@dataclass
class CopyDone(Message, bubble=False):
    result: CopyResult


@dataclass
class CodeBlocksFound(Message, bubble=False):
    blocks: list[CodeBlock]


@dataclass
class PromptRecalled(Message):
    """The prompt /retry or /edit works on (None: none), posted by the log's widget for the
    screen, which sends it or puts it in the editor."""

    recall: PromptRecall
    prompt: str | None


@dataclass
class SessionTokensLoaded(Message, bubble=False):
    """The tokens of a session's usage events, for the transcript's header (None: its log
    could not be read)."""

    session_id: str
    tokens: Tokens | None


@dataclass
class ParentLinked(Message, bubble=False):
    """Where the session came from (a fork's parent and turn), for the header."""

    session_id: str
    link: ParentLink | None


# --- the usage screen --------------------------------------------------------------------


@dataclass
class UsageProgress(Message, bubble=False):
    """`done` of the store's `total` sessions' logs read for the usage screen."""

    done: int
    total: int


@dataclass
class UsageLoaded(Message, bubble=False):
    """The usage of the window, read from the logs; or why it could not be (`error`)."""

    overviews: UsageOverviews | None
    error: str | None = None


@dataclass
class UsageCostLoaded(Message, bubble=False):
    """Zero's cost estimate for every workspace, or why there is none."""

    estimate: CostEstimate


# --- the turn commands: /fork, /rewind, /approve ----------------------------------------


@dataclass
class TurnForked(Message, bubble=False):
    parent_id: str
    forked: ForkedTurn


@dataclass
class RewindPlanned(Message, bubble=False):
    """Zero's plan for rewinding to the end of `turn`: shown before anything is done."""

    session_id: str
    turn: TurnSpan
    plan: RewindPlan
    cwd: str


@dataclass
class RewindApplied(Message, bubble=False):
    session_id: str
    result: RewindResult


@dataclass
class ApprovalFound(Message, bubble=False):
    """The denied tool call `/approve` acts on."""

    session_id: str
    denied: DeniedCall


@dataclass
class GrantSaved(Message, bubble=False):
    """`always allow` went through: the turn may be sent again (asked first)."""

    denied: DeniedCall


# --- a run of the agent ------------------------------------------------------------------


@dataclass
class RunStarted(Message, bubble=False):
    """`zero exec` is running (its events follow as AgentEventArrived)."""

    run_token: int
    run: ExecRun
    cwd: str
    cwd_note: str | None


class EventBatch:
    """Events a run's worker has read and the pane has not taken yet: the worker posts one
    message when the batch starts, not one per event, so that a flood of deltas costs one
    message per batch and the pane applies the whole batch at once."""

    def __init__(self) -> None:
        self._events: list[AgentEvent] = []

    def add(self, event: AgentEvent) -> bool:
        """Keep `event`; True when it starts a batch (post a message for it then)."""
        self._events.append(event)
        return len(self._events) == 1

    def take(self) -> list[AgentEvent]:
        events, self._events = self._events, []
        return events


@dataclass
class AgentEventsArrived(Message, bubble=False):
    """Events are waiting in `batch` (take them all)."""

    run_token: int
    batch: EventBatch


@dataclass
class RunClaimed(Message, bubble=False):
    """No other process runs the session: this run holds it now, and Esc can cancel it."""

    run_token: int


@dataclass
class RunNotes(Message, bubble=False):
    """Things to say under the run, as they come: a cut torn tail, a claim not taken."""

    run_token: int
    notes: list[str]


@dataclass
class AgentExited(Message, bubble=False):
    """The agent's process has exited: what is left is the drain of its output."""

    run_token: int


@dataclass
class RunFinished(Message, bubble=False):
    """The run is over: its outcome, or why it could not start (`refused`); `fate`: the
    session was removed or replaced while it ran (preflight.session_fate)."""

    run_token: int
    outcome: RunOutcome | None
    refused: str | None = None
    fate: str | None = None


@dataclass
class StoreChecked(Message, bubble=False):
    """Whether the agent can continue sessions of this store: why not (None: it can)."""

    refusal: str | None
    status: str = ""  # the refusal as short as the status line says it


@dataclass
class RunningLooked(Message, bubble=False):
    """Who is running the shown session now (agent.running), as `describe()` says, or None."""

    session_id: str
    where: str | None
