"""The agent under the rows: the run in flight (the live turn), how it ended, its status line.

`AgentPane` runs `zero exec`, one run at a time: it folds the agent's events into the live
turn, drawing at most one frame's worth of them at once, sends Esc on to the agent, and posts
up what the screen acts on (the run's state, a new conversation's id, the end of the run).
`RunStatusLine` shows one `RunStatus` value: the settings for the next runs and the run.
"""

from __future__ import annotations

import asyncio
import enum
import time
from dataclasses import dataclass, replace

from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import var
from textual.widgets import Static

from zero_tui.agent import (
    AgentUnavailable,
    ExecEngine,
    ExecRun,
    ReasoningBlock,
    RunOutcome,
    RunRequest,
    TextBlock,
    TurnModel,
    choose_cwd,
)
from zero_tui.agent.settings import RunSettings
from zero_tui.agent.stream import RunStart
from zero_tui.text.sanitize import home_relative, sanitize_line
from zero_tui.ui.messages import AgentEventArrived, RunFinished, RunStarted
from zero_tui.ui.widgets.live_turn import LiveTurn

STATUS_SECONDS = 0.1
LIVE_FRAME_SECONDS = 1 / 30  # streamed text redraws at most this often; deltas between coalesce
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


def run_clock() -> float:
    """Seconds for a run's elapsed time (a function, so snapshot tests can fix it)."""
    return time.monotonic()


class RunPhase(enum.Enum):
    """Where the run is; the value is what the status line says."""

    IDLE = ""
    STARTING = "starting zero"
    RUNNING = "running"
    CANCELLING = "cancelling (Esc again: kill)"


@dataclass(frozen=True)
class RunState:
    """The run as the status line shows it."""

    phase: RunPhase = RunPhase.IDLE
    began: float = 0.0  # run_clock() when the prompt was sent
    tokens: int = 0
    cwd_note: str | None = None  # where the last run worked, when not the session's folder

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
        return cls(settings.describe(), settings.auto == "high", run)

    def text(self, now: float) -> str:
        """The line at `now` (run_clock()): a spinner and the elapsed time while running."""
        run = self.run
        if not run.running:
            parts = [self.settings]
            if self.unsafe:
                parts.append("unsafe: tools run without approval")
        else:
            elapsed = now - run.began
            frame = SPINNER[int(elapsed / STATUS_SECONDS) % len(SPINNER)]
            parts = [f"{frame} {run.phase.value} {elapsed:.0f}s"]
            if run.tokens:
                parts.append(f"{run.tokens:,} tokens")
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
            self.set_class(status.unsafe, "-unsafe")


class AgentPane(Vertical):
    """The live turn and the run's outcome line; the run in flight is this pane's."""

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
        """The run is over: its outcome, or why it could not start (`refused`)."""

        prompt: str
        outcome: RunOutcome | None
        refused: str | None

    def __init__(self, engine: ExecEngine, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.engine = engine
        self.live = LiveTurn(id="live-turn")
        self._outcome = Static(Content(""), id="run-outcome")
        # the run in flight (one at a time): its token tells its messages from older runs'
        self._token = 0
        self._turn: TurnModel | None = None
        self._run: ExecRun | None = None
        self._state = RunState()
        self._render_pending = False
        self._text_rendered_at = 0.0  # when the live turn last drew streamed text

    def compose(self) -> ComposeResult:
        yield self.live
        yield self._outcome

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

    def on_mount(self) -> None:
        self._outcome.display = False

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
        self._outcome.display = False
        self.live.start(request.prompt)
        self._drive_run(self._token, request, fallback_cwd)
        self._set_state(replace(self._state, phase=RunPhase.STARTING, began=run_clock(), tokens=0))

    def cancel(self) -> None:
        """Esc during a run: SIGINT to the agent; again: kill it now."""
        run = self._run
        if run is None:
            self.notify("the run is starting: press Esc again in a moment", title="Run")
            return
        if run.cancelled:
            run.kill()
            self.notify("killed the agent", title="Run", severity="warning")
        else:
            run.cancel()
        self._set_state(replace(self._state, phase=RunPhase.CANCELLING))

    async def clear(self) -> None:
        """Drop the live turn (the rows rebuilt from the store show the run now)."""
        await self.live.clear()

    def show_outcome(self, outcome: RunOutcome | None, refused: str | None) -> None:
        """A failed, cancelled or refused run says so under the live turn; success is silent."""
        widget = self._outcome
        if refused is not None:
            text = "✖ " + refused
        elif outcome is None or outcome.ok:
            widget.display = False
            return
        else:
            text = ("✖ " if outcome.status != "interrupted" else "■ ") + (
                outcome.message or outcome.status
            )
            if outcome.hint:
                text += " — " + outcome.hint
        widget.update(Content(sanitize_line(text)))
        widget.set_class(outcome is not None and outcome.status == "interrupted", "-cancelled")
        widget.display = True

    @work(exclusive=True, group="agent-run", exit_on_error=False)
    async def _drive_run(self, token: int, request: RunRequest, fallback_cwd: str) -> None:
        """Run `zero exec`; every event comes back as a message, then the outcome."""
        cwd, cwd_note = await asyncio.to_thread(choose_cwd, request.cwd, fallback_cwd)
        request = replace(request, cwd=cwd)
        try:
            run = await self.engine.start(request)
        except AgentUnavailable as error:
            self.post_message(RunFinished(token, None, str(error)))
            return
        self.post_message(RunStarted(token, run, cwd, cwd_note))
        async with run:  # leaving early (the screen closed, the app quit) cancels the run
            async for event in run.events():
                self.post_message(AgentEventArrived(token, event))
            outcome = await run.wait()
        self.post_message(RunFinished(token, outcome))

    def on_run_started(self, message: RunStarted) -> None:
        if message.run_token != self._token or self._turn is None:
            return
        self._run = message.run
        self._set_state(replace(self._state, phase=RunPhase.RUNNING, cwd_note=message.cwd_note))

    def on_agent_event_arrived(self, message: AgentEventArrived) -> None:
        turn = self._turn
        if message.run_token != self._token or turn is None:
            return
        event = message.event
        turn.apply(event)
        if isinstance(event, RunStart) and event.session_id:
            self.post_message(self.SessionStarted(event.session_id))
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
            if any(isinstance(block, TextBlock | ReasoningBlock) for block in turn.blocks):
                self._text_rendered_at = time.monotonic()
            self._set_state(replace(self._state, tokens=turn.total_tokens))

    async def on_run_finished(self, message: RunFinished) -> None:
        turn = self._turn
        if message.run_token != self._token or turn is None:
            return
        await self.live.show(turn)
        self._turn = self._run = None
        self.post_message(self.RunEnded(turn.prompt, message.outcome, message.refused))
        self._set_state(replace(self._state, phase=RunPhase.IDLE))

    def _set_state(self, state: RunState) -> None:
        if state != self._state:
            self._state = state
            self.post_message(self.StateChanged(state))
