"""One session's transcript: header, resume card, rows; live while another process appends.

The screen composes its widgets and routes between them: `TranscriptLog` reads and follows
the log, `AgentPane` runs the agent, the find bar finds, the editor sends prompts and
commands; reading the rows (keys, find, copy) is `TranscriptReader`'s. The run's settings
and status are one value (`run_status`): the status line is bound to it, and its watcher
refreshes what depends on a run being in flight.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import ClassVar

from textual import on
from textual.app import ComposeResult, SystemCommand
from textual.binding import BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.reactive import var

from zero_tui.agent.engine import ExecEngine, RunRequest
from zero_tui.agent.settings import RunSettings
from zero_tui.commands import NOTHING_TO_EXPORT, CommandError, Context, parse_no_args
from zero_tui.store import Metadata, SessionStore
from zero_tui.store.gotext import trim_space
from zero_tui.transcript.recall import PromptRecall
from zero_tui.ui.copier import Copier
from zero_tui.ui.messages import PromptRecalled, ResumeRequest
from zero_tui.ui.mounting import composed
from zero_tui.ui.screens.command_screen import command_action, screen_bindings
from zero_tui.ui.screens.transcript_reader import READ_ONLY_NOTICE
from zero_tui.ui.screens.turn_actions import TurnActions
from zero_tui.ui.widgets.agent_pane import (
    AgentPane,
    RunPhase,
    RunState,
    RunStatus,
    RunStatusLine,
)
from zero_tui.ui.widgets.composer import EditorRun, PromptEditor, SlashComplete
from zero_tui.ui.widgets.find_bar import FindBar
from zero_tui.ui.widgets.live_turn import LiveTurn
from zero_tui.ui.widgets.steady_footer import SteadyFooter
from zero_tui.ui.widgets.transcript_log import TranscriptLog

__all__ = ["READ_ONLY_NOTICE", "TranscriptCommands", "TranscriptScreen"]

EDITOR_HINT = "Ask zero… · Enter sends, alt+Enter: new line · / for commands · Tab: rows"
BROWSE_ONLY_HINT = (
    "Browse-only: Zero continues sessions only in a store at …/zero/sessions · "
    "/ for commands · Tab: rows"
)
_DEFAULT_SCREEN_ID = "_default"  # the blank screen `App.get_default_screen` puts first


class TranscriptCommands(Provider):
    """The transcript's actions in the command palette."""

    def _commands(self) -> list[SystemCommand]:
        screen = self.screen
        return list(screen.system_commands()) if isinstance(screen, TranscriptScreen) else []

    async def discover(self) -> Hits:
        for command in self._commands():
            yield DiscoveryHit(command.title, command.callback, help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in self._commands():
            score = matcher.match(command.title)
            if score > 0:
                yield Hit(
                    score, matcher.highlight(command.title), command.callback, help=command.help
                )


class TranscriptScreen(TurnActions):
    """The rows of one session, newest at the bottom, following the log while it grows;
    a prompt in the editor continues the session."""

    COMMAND_CONTEXT: ClassVar[Context] = Context.TRANSCRIPT

    COMMANDS: ClassVar[set[type[Provider] | Callable[[], type[Provider]]]] = {TranscriptCommands}

    BINDINGS: ClassVar[list[BindingType]] = screen_bindings(Context.TRANSCRIPT)

    run_status: var[RunStatus] = var(RunStatus("", unsafe=False), init=False)

    def __init__(
        self,
        store: SessionStore,
        session_id: str | None,
        *,
        notice: str | None = None,
        workspace: str = "",
        clock: Callable[[], datetime] | None = None,
        copier: Copier | None = None,
        engine: ExecEngine | None = None,
        settings: RunSettings | None = None,
        at_sequence: int | None = None,
        mark: str = "",
    ) -> None:
        """`session_id` None: a new conversation, saved by the agent on its first prompt.

        `at_sequence`: open at that event (a search hit) rather than the latest, with `mark`
        highlighted as the find bar highlights."""
        super().__init__(copier)
        self.store = store
        self.workspace = workspace
        self.settings = settings or RunSettings()
        self.transcript_log = TranscriptLog(
            store,
            session_id,
            notice=notice,
            workspace=workspace,
            clock=clock,
            at_sequence=at_sequence,
            mark=mark,
            id="transcript-log",
        )
        self.agent = AgentPane(engine or ExecEngine(store), id="agent-pane")
        self.set_reactive(TranscriptScreen.run_status, RunStatus.of(self.settings, RunState()))
        # a run ended: once its stored rows are read, the live turn goes ("clear") or keeps
        # only the partial answer of a cancelled run ("keep-cancelled")
        self._after_read: str | None = None

    def compose(self) -> ComposeResult:
        yield self.transcript_log
        yield self.agent
        yield FindBar(id="find-bar")
        yield SlashComplete(id="slash-complete")
        yield RunStatusLine(id="run-status").data_bind(status=TranscriptScreen.run_status)
        yield PromptEditor(Context.TRANSCRIPT, placeholder=EDITOR_HINT, id="composer")
        yield SteadyFooter()

    @property
    def loaded(self) -> bool:
        """The whole log is indexed."""
        return self.transcript_log.follower.loaded

    @property
    def order(self) -> Sequence[int]:
        """The log's lines the rows show, in order (the rehydrated view)."""
        return self.transcript_log.follower.order

    @property
    def painted(self) -> bool:
        return self.transcript_log.painted

    @property
    def live(self) -> LiveTurn:
        return self.agent.live

    @property
    def running(self) -> bool:
        """A run is starting or in flight (until its end is handled)."""
        return self.agent.running

    @property
    def run_in_flight(self) -> bool:
        return self.agent.running

    def on_mount(self) -> None:
        if not composed(self):
            return
        self.composer.attach(self.query_one(SlashComplete))
        self.view.type_target = self.composer
        self.set_focus(self.composer)

    # -- a run of the agent -------------------------------------------------------------

    async def send_prompt(self, prompt: str, *, auto: str | None = None) -> bool:
        """Start a run with `prompt`; False (and the reason shown) when it cannot start.
        `auto`: the autonomy of this run only (allow and retry); the settings stay."""
        if self.running:
            self._error("Prompt", "a run is in progress: wait for it, or press Esc to cancel it")
            return False
        log = self.transcript_log.follower
        refusal = log.why_not_continuable() or self.agent.browse_only
        if refusal is not None:
            self._error("Prompt", refusal)
            return False
        self.settings.last_prompt = prompt
        recorded = log.meta.cwd if log.meta is not None else ""
        request = RunRequest(
            prompt,
            log.session_id,
            recorded or self.workspace,
            model=self.settings.model,
            auto=auto or self.settings.auto,
        )
        # Not following from now: the run's appends are its stream's. Waiting for the run's
        # state to come back as a message let a look at the log read them in between, and
        # the run's rows showed twice.
        self.transcript_log.following = False
        self.agent.start(request, self.workspace)
        self.view.action_jump_bottom()
        return True

    def on_agent_pane_state_changed(self, message: AgentPane.StateChanged) -> None:
        self.run_status = RunStatus.of(self.settings, message.state)
        hint = BROWSE_ONLY_HINT if message.state.browse_only else EDITOR_HINT
        if self.composer.placeholder != hint:
            self.composer.placeholder = hint

    def settings_changed(self) -> None:
        self.run_status = RunStatus.of(self.settings, self.run_status.run)

    def watch_run_status(self, old: RunStatus, new: RunStatus) -> None:
        if old.run.running != new.run.running:
            # While our own run is live, the agent's appends are its stream's: the log is not
            # followed (its rows are read again when the run ends), so nothing shows twice.
            self.transcript_log.following = not new.run.running
            self.transcript_log.header.look_running()  # the header's mark, at once
        claimed = old.run.phase is RunPhase.CLAIMING and new.run.running
        if old.run.running != new.run.running or claimed:
            self.refresh_bindings()  # Esc: back, nothing while claiming, or cancel the run

    def on_agent_pane_session_started(self, message: AgentPane.SessionStarted) -> None:
        if self.session_id is None:
            self.transcript_log.named(message.session_id)  # a new conversation's, from Zero

    async def on_agent_pane_run_ended(self, message: AgentPane.RunEnded) -> None:
        if self.session_id is not None:  # a run killed mid-turn is not someone else's
            self.transcript_log.header.quiet_since = self.agent.ended_at(self.session_id)
        # refused, or failed before run_start: Zero stored nothing, so the prompt is kept
        saved_nothing = (
            message.refused is not None or not message.started or self.session_id is None
        )
        if saved_nothing and not self.composer.text:
            self.composer.replace_text(message.prompt)
        if saved_nothing:
            await self.agent.clear()
        elif message.fate is None:
            self._after_read = "keep-cancelled" if message.cancelled else "clear"
            self.transcript_log.reload()
        # else the session was removed or replaced: what was on screen stays as it is

    async def on_transcript_log_read(self) -> None:
        after, self._after_read = self._after_read, None
        if after == "keep-cancelled":
            await self.agent.keep_cancelled_answer()
        elif after == "clear" or (self.live.kept and not self.running):
            await self.agent.clear()  # the rows were rebuilt: a kept partial answer goes too

    async def on_transcript_log_extended(self) -> None:
        if self.live.kept and not self.running:
            await self.agent.clear()  # another run's rows come after the cancelled one

    def action_cancel_run(self) -> None:
        self.agent.cancel()

    # /retry, /edit

    @command_action
    def action_retry(self, args: str) -> None:
        parse_no_args("retry", args)
        if self.running:
            raise CommandError("cannot retry while a run is in progress.")
        self.transcript_log.recall(PromptRecall("retry", self.settings.last_prompt))

    @command_action
    def action_edit(self, args: str) -> None:
        parse_no_args("edit", args)
        self.transcript_log.recall(PromptRecall("edit", self.settings.last_prompt))

    async def on_prompt_recalled(self, message: PromptRecalled) -> None:
        recall, prompt = message.recall, message.prompt
        if not prompt:
            self._error(recall.title, recall.nothing)
        elif recall.sends:
            await self.send_prompt(prompt)
        else:
            self.composer.replace_text(prompt)
            self.set_focus(self.composer)

    # -- keys, the editor's Enter, commands -------------------------------------------

    def action_back(self) -> None:
        """Back to the screen below (the picker); quit when nothing but the app's blank
        default screen is below."""
        stack = self.app.screen_stack
        below = stack[-2] if len(stack) >= 2 and stack[-1] is self else None
        if below is None or below.id == _DEFAULT_SCREEN_ID:
            self.app.exit()
        else:
            self.app.pop_screen()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "quit_app":
            return self.focused is self.view
        if action == "switch_focus":
            on_rows = self.focused is self.view
            return parameters == (("editor",) if on_rows else ("rows",))
        if action == "cancel_run":
            return self.agent.cancellable
        if action == "back":
            return not self.running
        if action == "open_parent":
            return self.forked_from_parent()
        return True

    @on(EditorRun)
    async def _composer_run(self, event: EditorRun) -> None:
        """Enter: a slash command runs; any other text is a prompt for the agent."""
        event.stop()
        text = trim_space(event.text)
        if not text:
            return
        done = (
            await self.run_text(event.text)
            if text.startswith("/")
            else await self.send_prompt(text)
        )
        if done:
            self.composer.clear_line()

    def command_time(self) -> datetime:
        return self.transcript_log.header.now()

    # /export and /rename (CommandScreen) act on this session

    def command_session(self) -> str:
        if self.session_id is None:
            raise CommandError("nothing is saved yet: send a prompt first")
        return self.session_id

    def current_title(self, session_id: str) -> str:
        meta = self.transcript_log.follower.meta
        return meta.title if meta is not None else ""

    def check_export_ready(self) -> None:
        self._loaded_index()
        if not self.transcript_log.follower.order:
            raise CommandError(NOTHING_TO_EXPORT)

    def session_renamed(self, meta: Metadata) -> None:
        if meta.session_id == self.session_id:
            self.transcript_log.renamed(meta)

    # /resume, /new

    @command_action
    def action_resume(self, args: str) -> None:
        self._refuse_while_running()
        if not args:
            self.action_back()  # the picker
            return
        self.post_message(ResumeRequest(args))

    def leaving_for_new(self) -> None:
        self._refuse_while_running()
        if self.session_id is not None:
            self.notify(
                f"Left session {self.session_id} — resume it anytime with "
                f"/resume {self.session_id}.",
                title="Sessions",
                markup=False,
            )

    def system_commands(self) -> Iterable[SystemCommand]:
        """Palette entries for this screen (the app adds them to its system commands)."""
        yield from self.registry_commands()
