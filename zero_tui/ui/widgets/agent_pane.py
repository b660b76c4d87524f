"""The agent under the rows: the run in flight (the live turn), what it said, its status line.

`AgentPane` runs `zero exec`, one run at a time. Before anything is sent it claims the
session's run and readies its log (agent.preflight: refused while the session runs
elsewhere or its log is damaged; a torn last line is cut and said). It folds the agent's
events into the live turn, a batch at a time and at most one frame's worth of drawing at
once, sends Esc on to the agent, and posts up what the screen acts on (the run's state, a
new conversation's id, the end of the run). Under the live turn, the run's notes: what was
done before it, what the agent said on stderr (even when it succeeded), a session removed
or replaced meanwhile, and how the run ended. `RunStatusLine` shows one `RunStatus` value:
the settings for the next runs and the run.
"""

from __future__ import annotations

import asyncio
import enum
import time
from dataclasses import dataclass, replace
from typing import Literal

from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import var
from textual.widgets import Static

from zero_tui.agent.engine import AgentUnavailable, ExecEngine, ExecRun, RunRequest
from zero_tui.agent.outcome import RunOutcome, stderr_notes
from zero_tui.agent.preflight import RunGuard, RunRefused, claim_named, session_fate
from zero_tui.agent.settings import RunSettings
from zero_tui.agent.stream import RunEnd, RunStart
from zero_tui.agent.turn import ReasoningBlock, TextBlock, TurnModel
from zero_tui.text.labels import counted
from zero_tui.text.sanitize import home_relative, sanitize_line
from zero_tui.ui.messages import (
    AgentEventsArrived,
    AgentExited,
    EventBatch,
    RunClaimed,
    RunFinished,
    RunNotes,
    RunStarted,
    StoreChecked,
)
from zero_tui.ui.widgets.live_turn import LiveTurn

STATUS_SECONDS = 0.1
LIVE_FRAME_SECONDS = 1 / 30  # streamed text redraws at most this often; deltas between coalesce
QUIET_SECONDS = 15.0  # a run this long without output says it is waiting for the model
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
FINISHING_NOTE = (
    "The agent has exited: zero-tui is reading the last of its output (2 s at most), "
    "there is nothing left to cancel."
)


def run_clock() -> float:
    """Seconds for a run's elapsed time (a function, so snapshot tests can fix it)."""
    return time.monotonic()


class RunPhase(enum.Enum):
    """Where the run is; the value is what the status line says."""

    IDLE = ""
    CLAIMING = "checking that no other process runs this session"
    STARTING = "starting zero"
    RUNNING = "running"
    CANCELLING = "cancelling (Esc again: kill)"
    FINISHING = "finishing…"


@dataclass(frozen=True)
class RunState:
    """The run as the status line shows it."""

    phase: RunPhase = RunPhase.IDLE
    began: float = 0.0  # run_clock() when the prompt was sent
    tokens: int = 0
    cwd_note: str | None = None  # where the last run worked, when not the session's folder
    last_output: float = 0.0  # run_clock() when the agent last said something (to a second)
    retrying: str | None = None  # Zero's notice of a retry in progress
    browse_only: str | None = None  # why no session of this store can be continued
    browse_only_status: str = ""  # that, as short as the status line says it
    auto: str | None = None  # the run's autonomy, when it overrides the settings' (one run)

    @property
    def running(self) -> bool:
        return self.phase is not RunPhase.IDLE


@dataclass(frozen=True)
class RunStatus:
    """What the run status line says: the settings for the next runs, and the run."""

    settings: str  # RunSettings.describe()
    unsafe: bool  # --auto high: tools run without approval
    run: RunState = RunState()

    @classmethod
    def of(cls, settings: RunSettings, run: RunState) -> RunStatus:
        """The settings for the next runs; while a run with its own autonomy is in flight
        (allow and retry: --auto high once), that run's."""
        run_auto = run.auto if run.running else None
        auto = run_auto or settings.auto
        return cls(settings.describe(run_auto), auto == "high", run)

    def text(self, now: float) -> str:
        """The line at `now` (run_clock()): a spinner and the elapsed time while running."""
        run = self.run
        if not run.running:
            parts = [self.settings]
            if run.browse_only:
                parts = [f"browse-only: {run.browse_only_status}"]
            elif self.unsafe:
                parts.append("unsafe: tools run without approval")
        else:
            elapsed = now - run.began
            frame = SPINNER[int(elapsed / STATUS_SECONDS) % len(SPINNER)]
            parts = [f"{frame} {run.phase.value} {elapsed:.0f}s"]
            quiet = now - (run.last_output or run.began)
            if run.retrying:
                parts.append(run.retrying)
            elif run.phase is RunPhase.RUNNING and quiet >= QUIET_SECONDS:
                parts.append(f"waiting for the model: no output for {quiet:.0f}s")
            if run.tokens:
                parts.append(counted(run.tokens, "token"))
            parts += [self.settings, "Esc: cancel"]
        if run.cwd_note:
            parts.append(run.cwd_note)  # last: a long path must not push the hint off
        return home_relative(" · ".join(sanitize_line(part) for part in parts))


class RunStatusLine(Static):
    """One line under the editor's neighbours: `status`, redrawn when it changes, and every
    STATUS_SECONDS while a run is in flight (its spinner and elapsed time)."""

    status: var[RunStatus] = var(RunStatus("", unsafe=False))

    def on_mount(self) -> None:
        self.set_interval(STATUS_SECONDS, self._tick)

    def watch_status(self) -> None:
        self._redraw()

    def _tick(self) -> None:
        if self.status.run.running:
            self._redraw()

    def _redraw(self) -> None:
        status = self.status
        self.update(Content(status.text(run_clock())))
        if not status.run.running:
            self.set_class(status.unsafe or bool(status.run.browse_only), "-unsafe")


Severity = Literal["warning", "error", "cancelled"]
_NOTE_STYLES = {"warning": "$warning", "error": "$error", "cancelled": "$warning"}
_NOTE_MARKERS = {"warning": "⚠ ", "error": "✖ ", "cancelled": "■ "}


@dataclass(frozen=True)
class RunNote:
    severity: Severity
    text: str


def outcome_notes(
    outcome: RunOutcome | None,
    refused: str | None,
    *,
    stored_error: bool,
    session_id: str | None,
) -> list[RunNote]:
    """How the run ended, with what the agent said on stderr. `stored_error`: Zero stored
    the run's error in the session, so the rows show it already (it is not said twice)."""
    if refused is not None:
        return [RunNote("error", refused)]
    if outcome is None:
        return []
    said = outcome.message
    notes = [
        RunNote("warning", "zero: " + line) for line in stderr_notes(outcome.stderr_tail, said)
    ]
    if outcome.ok:
        return notes
    if outcome.status == "interrupted":
        return [*notes, RunNote("cancelled", said or "Run cancelled.")]
    text = "The run failed: its error is above." if stored_error else (said or outcome.status)
    hint = outcome.hint
    if not hint and outcome.status == "usage_error" and session_id and "events.jsonl" in said:
        hint = f"see zero-tui check {session_id}"
    if hint:
        text += " — " + hint
    return [*notes, RunNote("error", text)]


class AgentPane(Vertical):
    """The live turn and the run's notes; the run in flight is this pane's."""

    DEFAULT_CSS = """
    AgentPane { height: auto; }
    """

    @dataclass
    class StateChanged(Message):
        state: RunState

    @dataclass
    class SessionStarted(Message):
        """The agent named the session it runs in (a new conversation's first run)."""

        session_id: str

    @dataclass
    class RunEnded(Message):
        """The run is over: its outcome, or why it could not start (`refused`).

        `started`: the agent said `run_start` (else Zero stored nothing of the prompt);
        `cancelled`: Esc stopped it; `fate`: the session was removed or replaced meanwhile."""

        prompt: str
        outcome: RunOutcome | None
        refused: str | None
        started: bool = False
        cancelled: bool = False
        fate: str | None = None

    def __init__(self, engine: ExecEngine, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.engine = engine
        self.live = LiveTurn(id="live-turn")
        self._notes = Static(Content(""), id="run-outcome")
        # the run in flight (one at a time): its token tells its messages from older runs'
        self._token = 0
        self._turn: TurnModel | None = None
        self._run: ExecRun | None = None
        self._cancelled = False
        self._run_notes: list[RunNote] = []
        self._state = RunState()
        self._render_pending = False
        self._text_rendered_at = 0.0  # when the live turn last drew streamed text
        self._ended_at: dict[str, float] = {}  # session id -> when this pane's run on it ended

    def compose(self) -> ComposeResult:
        yield self.live
        yield self._notes

    @property
    def running(self) -> bool:
        """A run is starting or in flight (until its end is handled)."""
        return self._turn is not None

    @property
    def turn(self) -> TurnModel | None:
        return self._turn

    @property
    def exec_run(self) -> ExecRun | None:
        """The agent's process, once it started."""
        return self._run

    @property
    def browse_only(self) -> str | None:
        return self._state.browse_only

    @property
    def cancellable(self) -> bool:
        """Esc has a run of ours to cancel: not while another process may still own the
        session (the claim is being checked), nor between runs."""
        return self._state.phase not in (RunPhase.IDLE, RunPhase.CLAIMING)

    def ended_at(self, session_id: str) -> float | None:
        """When this pane's last run on `session_id` ended (wall time), if it had one:
        the log's writes until then were that run's."""
        return self._ended_at.get(session_id)

    def on_mount(self) -> None:
        self._notes.display = False
        self._check_store()

    @work(thread=True, exclusive=True, group="agent-store", exit_on_error=False)
    def _check_store(self) -> None:
        refusal = self.engine.store_refusal()
        status = self.engine.browse_only_status() if refusal is not None else ""
        self.post_message(StoreChecked(refusal, status))

    def on_store_checked(self, message: StoreChecked) -> None:
        state = replace(self._state, browse_only=message.refusal, browse_only_status=message.status)
        self._set_state(state)

    async def on_unmount(self) -> None:
        run = self._run
        if run is not None and run.running:
            # Leaving (or quitting) mid-run cancels it as Esc does, and waits for the agent
            # to stop, so that it records the cancel and no process or pipe outlives us.
            # Once only: the run's worker, cancelled on exit too, may have sent the SIGINT
            # already, and a second cancel() is Esc pressed twice, a SIGKILL.
            if not run.cancelled:
                run.cancel()
            await run.wait()

    def start(self, request: RunRequest, fallback_cwd: str) -> None:
        """Run the agent: the prompt shows at once, what the agent streams follows."""
        self._token += 1
        self._turn = TurnModel(request.prompt)
        self._text_rendered_at = 0.0  # the first streamed characters are drawn at once
        self._run = None
        self._cancelled = False
        self._run_notes = []
        self._show_notes()
        self.live.start(request.prompt)
        quiet_since = self._ended_at.get(request.session_id or "")
        self._drive_run(self._token, request, fallback_cwd, quiet_since)
        began = run_clock()
        state = replace(
            self._state, phase=RunPhase.CLAIMING, began=began, tokens=0, auto=request.auto
        )
        self._set_state(replace(state, last_output=began, retrying=None))

    def cancel(self) -> None:
        """Esc during a run: SIGINT to the agent; again: kill it now."""
        run = self._run
        if self._state.phase is RunPhase.FINISHING:
            self.notify(FINISHING_NOTE, title="Run")
            return
        if run is None:
            self.notify("the run is starting: press Esc again in a moment", title="Run")
            return
        self._cancelled = True
        if run.cancelled:
            run.kill()
            self.notify("killed the agent", title="Run", severity="warning")
        else:
            run.cancel()
        self._set_state(replace(self._state, phase=RunPhase.CANCELLING))

    async def clear(self) -> None:
        """Drop the live turn (the rows rebuilt from the store show the run now)."""
        await self.live.clear()

    async def keep_cancelled_answer(self) -> None:
        """The rows are rebuilt after a cancel: keep only the partial answer, marked."""
        if not await self.live.keep_cancelled_answer():
            await self.live.clear()

    def _show_notes(self, extra: list[RunNote] | None = None) -> None:
        notes = [*self._run_notes, *(extra or [])]
        widget = self._notes
        widget.display = bool(notes)
        if not notes:
            widget.update(Content(""))
            return
        lines = []
        for number, note in enumerate(notes):
            text = _NOTE_MARKERS[note.severity] + sanitize_line(note.text)
            lines.append(("\n" if number else "", ""))
            lines.append((text, _NOTE_STYLES[note.severity]))
        widget.update(Content.assemble(*lines))

    def notes_text(self) -> str:
        """The notes under the run, as plain text (for tests)."""
        return str(self._notes.visual) if self._notes.display else ""

    @work(exclusive=True, group="agent-run", exit_on_error=False)
    async def _drive_run(
        self, token: int, request: RunRequest, fallback_cwd: str, quiet_since: float | None
    ) -> None:
        try:
            await self._run_claimed(token, request, fallback_cwd, quiet_since)
        except Exception as error:  # whatever went wrong, the run ends on screen
            self.post_message(RunFinished(token, None, f"The run could not go on: {error}"))

    async def _run_claimed(
        self, token: int, request: RunRequest, fallback_cwd: str, quiet_since: float | None
    ) -> None:
        """Claim the session, ready its log, run `zero exec`; the events come back in
        batches, then the outcome (after the claim is let go)."""
        store = self.engine.store
        cwd, cwd_note = await asyncio.to_thread(self.engine.workspace, request.cwd, fallback_cwd)
        request = replace(request, cwd=cwd)
        try:
            guard = await asyncio.to_thread(
                self.engine.guard, request.session_id, quiet_since=quiet_since
            )
        except RunRefused as refused:
            self.post_message(RunFinished(token, None, str(refused)))
            return
        self.post_message(RunClaimed(token))
        try:
            if guard.notes:
                self.post_message(RunNotes(token, list(guard.notes)))
            try:
                run = await self.engine.start(request)
            except AgentUnavailable as error:
                self.post_message(RunFinished(token, None, str(error)))
                return
            self.post_message(RunStarted(token, run, cwd, cwd_note))
            said = len(run.notes)
            if said:
                self.post_message(RunNotes(token, list(run.notes)))
            outcome = await self._follow_run(token, run, guard)
            if len(run.notes) > said:  # what the run's end added (a host's sync)
                self.post_message(RunNotes(token, run.notes[said:]))
            fate = None
            if guard.session_id is not None:
                fate = await asyncio.to_thread(session_fate, store, guard.session_id, guard.mark)
        finally:
            guard.release()  # before the end is told: the next prompt may claim it at once
        self.post_message(RunFinished(token, outcome, fate=fate))

    async def _follow_run(self, token: int, run: ExecRun, guard: RunGuard) -> RunOutcome:
        batch = EventBatch()
        exited = asyncio.create_task(self._tell_exit(token, run))
        try:
            async with run:  # leaving early (the screen closed, the app quit) cancels the run
                async for event in run.events():
                    if isinstance(event, RunStart) and event.session_id:
                        note = await asyncio.to_thread(
                            claim_named, self.engine.store, guard, event.session_id
                        )
                        if note is not None:
                            self.post_message(RunNotes(token, [note]))
                    if batch.add(event):
                        self.post_message(AgentEventsArrived(token, batch))
                return await run.wait()
        finally:
            exited.cancel()

    async def _tell_exit(self, token: int, run: ExecRun) -> None:
        await run.agent_exited()
        self.post_message(AgentExited(token))

    def on_run_claimed(self, message: RunClaimed) -> None:
        if message.run_token == self._token and self._state.phase is RunPhase.CLAIMING:
            self._set_state(replace(self._state, phase=RunPhase.STARTING))

    def on_run_started(self, message: RunStarted) -> None:
        if message.run_token != self._token or self._turn is None:
            return
        self._run = message.run
        if self._state.phase in (RunPhase.CLAIMING, RunPhase.STARTING):
            self._set_state(replace(self._state, phase=RunPhase.RUNNING, cwd_note=message.cwd_note))
        else:
            self._set_state(replace(self._state, cwd_note=message.cwd_note))

    def on_run_notes(self, message: RunNotes) -> None:
        if message.run_token == self._token and self._turn is not None:
            self._run_notes += [RunNote("warning", note) for note in message.notes]
            self._show_notes()

    def on_agent_exited(self, message: AgentExited) -> None:
        if message.run_token == self._token and self._turn is not None:
            self._set_state(replace(self._state, phase=RunPhase.FINISHING))

    def on_agent_events_arrived(self, message: AgentEventsArrived) -> None:
        turn = self._turn
        events = message.batch.take()
        if message.run_token != self._token or turn is None or not events:
            return
        for event in events:
            turn.apply(event)
            if isinstance(event, RunStart) and event.session_id:
                self.post_message(self.SessionStarted(event.session_id))
            elif isinstance(event, RunEnd):
                self._set_state(replace(self._state, phase=RunPhase.FINISHING))
        if not self._render_pending:
            # One render for all the events that arrive until it runs: once the events
            # queued behind this one are applied, and no sooner than a frame after the
            # last render of streamed text (each render lays the screen out again).
            self._render_pending = True
            wait = self._text_rendered_at + LIVE_FRAME_SECONDS - time.monotonic()
            if wait > 0:
                self.set_timer(wait, self._render_live)
            else:
                self.call_later(self._render_live)

    async def _render_live(self) -> None:
        self._render_pending = False
        turn = self._turn
        if turn is not None:
            await self.live.show(turn)
            if any(isinstance(block, TextBlock | ReasoningBlock) for block in turn.blocks[-2:]):
                self._text_rendered_at = time.monotonic()
            state = replace(self._state, tokens=turn.total_tokens, retrying=turn.retrying)
            now = run_clock()
            if now - state.last_output >= 1.0:
                state = replace(state, last_output=now)
            self._set_state(state)

    async def on_run_finished(self, message: RunFinished) -> None:
        turn = self._turn
        if message.run_token != self._token or turn is None:
            return
        await self.live.show(turn)
        outcome = message.outcome
        session_id = turn.session_id or None
        stored_error = (
            message.fate is None
            and turn.run_start is not None
            and turn.error is not None
            and turn.error.code == "provider_error"
        )
        notes = []
        if message.fate is not None:
            notes.append(RunNote("error", message.fate))
        notes += outcome_notes(
            outcome, message.refused, stored_error=stored_error, session_id=session_id
        )
        self._show_notes(notes)
        if session_id is not None:
            self._ended_at[session_id] = time.time()
        self._turn = self._run = None
        self.post_message(
            self.RunEnded(
                turn.prompt,
                outcome,
                message.refused,
                started=turn.run_start is not None,
                cancelled=self._cancelled,
                fate=message.fate,
            )
        )
        self._set_state(replace(self._state, phase=RunPhase.IDLE, retrying=None))

    def _set_state(self, state: RunState) -> None:
        if state != self._state:
            self._state = state
            self.post_message(self.StateChanged(state))
