"""One session's transcript: header, resume card, rows; live while another process appends.

The screen composes its widgets and routes between them: `TranscriptLog` reads and follows
the log, `AgentPane` runs the agent, the find bar finds, the editor sends prompts and
commands, `AnswerCopy` copies (/copy, ctrl+y) and `TurnActions` forks, rewinds and
approves a turn (/fork, /rewind, /approve). The screen's own part is the keys that move in
the rows, and checking a command against what it shows before a widget acts. The run's
settings and status are one value (`run_status`): the status line is bound to it, and its
watcher refreshes what depends on a run being in flight.
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
from zero_tui.agent.zero_commands import ZeroRunner
from zero_tui.commands import (
    NOTHING_TO_EXPORT,
    CommandError,
    Context,
    parse_copy_args,
    parse_no_args,
)
from zero_tui.hosts.registry import Host
from zero_tui.preferences import said_with_user_keys
from zero_tui.remote.host_runs import RemoteEngine
from zero_tui.remote.host_sessions import refusal, zero_runner_on
from zero_tui.store import Metadata, SessionStore
from zero_tui.store.gotext import trim_space
from zero_tui.transcript.answers import NO_ANSWER
from zero_tui.transcript.geometry import is_tool_card
from zero_tui.transcript.log_index import LogIndex
from zero_tui.transcript.recall import PromptRecall
from zero_tui.transcript.row_model import Row, RowKind
from zero_tui.ui.copier import Copier
from zero_tui.ui.messages import MatchesFound, OpenSession, PromptRecalled, ResumeRequest
from zero_tui.ui.mounting import composed
from zero_tui.ui.screens.command_screen import CommandScreen, command_action, screen_bindings
from zero_tui.ui.widgets.agent_pane import (
    AgentPane,
    RunPhase,
    RunState,
    RunStatus,
    RunStatusLine,
)
from zero_tui.ui.widgets.answer_copy import AnswerCopy
from zero_tui.ui.widgets.composer import EditorMove, EditorRun, PromptEditor, SlashComplete
from zero_tui.ui.widgets.find_bar import FindBar
from zero_tui.ui.widgets.live_turn import LiveTurn
from zero_tui.ui.widgets.steady_footer import SteadyFooter
from zero_tui.ui.widgets.transcript_log import TranscriptLog
from zero_tui.ui.widgets.transcript_view import TranscriptView
from zero_tui.ui.widgets.turn_actions import TurnActions

__all__ = ["READ_ONLY_NOTICE", "TranscriptCommands", "TranscriptScreen"]

EDITOR_HINT = "Ask zero… · Enter sends, alt+Enter: new line · / for commands · Tab: rows"
BROWSE_ONLY_HINT = "Browse-only: {why} · / for commands · Tab: rows"
_DEFAULT_SCREEN_ID = "_default"  # the blank screen `App.get_default_screen` puts first
READ_ONLY_NOTICE = (
    "Read-only: this session (a specialist's sub-session, or another kind Zero does not "
    "resume) cannot be continued. Esc goes back."
)
NO_TURN_ROW = (
    "the highlighted row belongs to no turn of the log (the resume card): highlight a "
    "prompt or an answer"
)


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


class TranscriptScreen(CommandScreen):
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
        host: Host | None = None,
    ) -> None:
        """`session_id` None: a new conversation, saved by the agent on its first prompt.

        `at_sequence`: open at that event (a search hit) rather than the latest, with `mark`
        highlighted as the find bar highlights. `host`: `store` is that host's mirror; a
        prompt runs there (RemoteEngine), and so do /rewind and /retry."""
        super().__init__()
        self.host = host
        if engine is None:
            engine = RemoteEngine(host) if host is not None else ExecEngine(store)
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
        self.agent = AgentPane(engine, id="agent-pane")
        self.answer_copy = AnswerCopy(copier, id="answer-copy")
        self.turn_actions = TurnActions(
            store,
            self.settings,
            self.transcript_log,
            send_prompt=lambda prompt, auto: self.send_prompt(prompt, auto=auto),
            running=lambda: self.running,
            host=host,
            id="turn-actions",
        )
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
        yield PromptEditor(Context.TRANSCRIPT, placeholder=self.editor_hint(), id="composer")
        yield SteadyFooter()
        yield self.answer_copy
        yield self.turn_actions

    @property
    def session_id(self) -> str | None:
        return self.transcript_log.follower.session_id

    def editor_hint(self, browse_only: str | None = None) -> str:
        """What the empty editor says (`browse_only`: why the session cannot be continued
        here), naming Tab as the user's config.toml moved it."""
        keymap = getattr(self.app, "user_keymap", {})
        if browse_only is None:
            return said_with_user_keys(EDITOR_HINT, keymap, "focus", "tab")
        hint = said_with_user_keys(BROWSE_ONLY_HINT, keymap, "focus", "tab")
        return hint.format(why=browse_only)  # the reason after the keys: it names a path

    @property
    def view(self) -> TranscriptView:
        return self.transcript_log.view

    @property
    def find_bar(self) -> FindBar:
        return self.query_one(FindBar)

    @property
    def composer(self) -> PromptEditor:
        return self.query_one(PromptEditor)

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

    def _error(self, title: str, message: str) -> None:
        self.notify(message, title=title, severity="error", markup=False)

    def _loaded_index(self) -> LogIndex:
        log = self.transcript_log.follower
        if log.index is None or not log.loaded:
            raise CommandError("the transcript is still loading: try again in a moment")
        return log.index

    # -- moving in the rows ---------------------------------------------------------------

    def action_previous_turn(self) -> None:
        self.view.action_previous_turn()

    def action_next_turn(self) -> None:
        self.view.action_next_turn()

    def action_page(self, pages: int) -> None:
        self.view.page(pages)

    def action_top(self) -> None:
        self.view.action_jump_top()

    def action_bottom(self) -> None:
        self.view.action_jump_bottom()

    def action_toggle_card(self) -> None:
        self.view.toggle_card()

    @on(TranscriptView.ChildRequested)
    def _open_child(self, message: TranscriptView.ChildRequested) -> None:
        """A specialist's sub-session, read-only, on top of this one (Esc comes back)."""
        self.post_message(
            OpenSession(message.child_session_id, notice=READ_ONLY_NOTICE, above=True)
        )

    def action_quit_app(self) -> None:
        self.call_next(self.app.run_action, "app.quit")  # the app asks first mid-run

    # -- focus: the editor and the rows ----------------------------------------------

    def action_switch_focus(self, to: str) -> None:
        """Tab: from the editor to the rows and back (set_focus now, not the deferred
        `widget.focus()`: the next key, typed at once, must go to the new widget)."""
        self.set_focus(self.view if to == "rows" else self.composer)

    def on_descendant_focus(self) -> None:
        self.refresh_bindings()  # Tab's label: Rows or Prompt

    @on(EditorMove)
    def _composer_move(self, event: EditorMove) -> None:
        if event.delta < 0:
            self.view.action_cursor_up()
        else:
            self.view.action_cursor_down()

    # -- find: the bar's messages to the log ----------------------------------------------

    def action_find(self) -> None:
        self.find_bar.open()

    @on(FindBar.Changed)
    def _find_changed(self, message: FindBar.Changed) -> None:
        self.view.set_search(message.query)

    @on(FindBar.Find)
    def _find(self, message: FindBar.Find) -> None:
        status = self.transcript_log.find(message.query, message.backwards)
        if status is not None:
            self.find_bar.set_status(status)

    def on_matches_found(self, message: MatchesFound) -> None:
        if message.query == self.find_bar.text:
            log = self.transcript_log
            status = log.go_to_match(message.query, message.positions, message.backwards)
            self.find_bar.set_status(status)

    @on(FindBar.Closed)
    def _find_closed(self) -> None:
        self.view.set_search("")
        self.set_focus(self.view)

    # -- /copy, ctrl+y (`AnswerCopy`) ---------------------------------------------------

    @command_action
    def action_copy(self, args: str) -> None:
        request = parse_copy_args(args)
        if self.session_id is None:
            raise CommandError(NO_ANSWER)
        index = self._loaded_index()
        log = self.transcript_log.follower
        self.answer_copy.copy_answer(index, log.order, log.facts, request)

    async def action_copy_highlighted(self) -> None:
        """ctrl+y: the highlighted message's text; with nothing highlighted, the last answer."""
        row = self.highlighted_row()
        if row is None:
            await self.run_text("/copy")
            return
        text = row.detail if is_tool_card(row) and row.detail else row.text
        if not trim_space(text):
            self._error("Copy", "the highlighted row has no text to copy.")
            return
        self.answer_copy.copy_text(text)

    # -- /fork, /rewind, /approve (`TurnActions`) and alt+p, on the highlighted turn ------

    def highlighted_row(self) -> Row | None:
        view = self.view
        return view.row_at(view.cursor) if view.cursor is not None else None

    def _turn_sequence(self) -> int | None:
        """An event of the highlighted row's turn (None: no row is highlighted)."""
        row = self.highlighted_row()
        if row is None:
            return None
        if not row.sequences:
            raise CommandError(NO_TURN_ROW)
        return row.sequence

    def _refuse_while_running(self) -> None:
        if self.running:
            raise CommandError("a run is in progress: press Esc to cancel it first")

    @command_action
    def action_fork(self, args: str) -> None:
        session_id = self.command_session()
        refused = self.refusal_on_host("fork")
        if refused is not None:
            raise CommandError(refused)
        self._refuse_while_running()
        self._loaded_index()
        self.turn_actions.fork(session_id, self._turn_sequence(), trim_space(args))

    @command_action
    def action_rewind(self, args: str) -> None:
        parse_no_args("rewind", args)
        session_id = self.command_session()
        self._refuse_while_running()
        self._loaded_index()
        sequence = self._turn_sequence()
        if sequence is None:
            raise CommandError(
                "highlight the turn to rewind to (Tab to the rows, then ↑ ↓): the turns "
                "after it are dropped"
            )
        self.turn_actions.plan_rewind(session_id, sequence)

    @command_action
    def action_approve(self, args: str) -> None:
        parse_no_args("approve", args)
        session_id = self.command_session()
        if self.running:
            raise CommandError("a run is in progress: answer its denied calls once it ends")
        self._loaded_index()
        row = self.highlighted_row()
        on_denied = row is not None and (
            row.approval is not None
            or (
                row.kind is RowKind.PERMISSION
                and row.permission is not None
                and row.permission.action == "prompt"
            )
        )
        sequence = row.sequence if row is not None and on_denied else None
        self.turn_actions.find_denied(session_id, sequence)

    def action_open_parent(self) -> None:
        meta = self.transcript_log.follower.meta
        if meta is None or not meta.parent_session_id:
            self._error("Parent", "this session has no parent")
            return
        link = self.transcript_log.header.parent_link
        if link is not None and link.missing:
            self._error("Parent", f"{link.parent_id} is no longer in the store")
            return
        sequence = meta.forked_from_sequence or None
        self.post_message(OpenSession(meta.parent_session_id, above=True, sequence=sequence))

    def forked_from_parent(self) -> bool:
        meta = self.transcript_log.follower.meta
        return meta is not None and bool(meta.parent_session_id)

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
        state = message.state
        hint = self.editor_hint(state.browse_only_status if state.browse_only else None)
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
        self.refresh_bindings()  # alt+p shows once the metadata says there is a parent
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

    def zero_runner(self) -> ZeroRunner | None:
        return zero_runner_on(self.host) if self.host is not None else None

    def refusal_on_host(self, operation: str) -> str | None:
        return refusal(operation, self.host.name) if self.host is not None else None

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
