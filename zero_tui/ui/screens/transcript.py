"""One session's transcript: header, resume card, rows; live while another process appends."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.containers import Vertical
from textual.content import Content
from textual.reactive import var
from textual.widgets import Footer, Static
from textual.worker import get_current_worker

from zero_tui.agent import ExecEngine, RunRequest
from zero_tui.agent.settings import RunSettings
from zero_tui.clipboard import CopyResult
from zero_tui.commands import (
    NOTHING_TO_EXPORT,
    CommandError,
    Context,
    CopyRequest,
    parse_copy_args,
    parse_no_args,
)
from zero_tui.store import Metadata, SessionStore, StoreError
from zero_tui.store.gotext import trim_space
from zero_tui.text.sanitize import home_relative, sanitize_line
from zero_tui.transcript.answers import NO_ANSWER, code_blocks, log_answers, log_last_prompt
from zero_tui.transcript.geometry import PRELUDE_POSITION, is_tool_card
from zero_tui.transcript.header import header_facts
from zero_tui.transcript.log_index import (
    LogChange,
    LogIndex,
    extend_facts,
    index_facts,
    log_problems,
    matching_positions,
    next_match,
)
from zero_tui.transcript.rows import LogFacts, Row, card_row, resume_card
from zero_tui.ui.copier import Copier, terminal_copier
from zero_tui.ui.messages import (
    CodeBlocksFound,
    CopyDone,
    EventLocated,
    LogPolled,
    MatchesFound,
    OpenSession,
    PromptRecalled,
    ResumeRequest,
    TranscriptFailed,
    TranscriptLoaded,
)
from zero_tui.ui.screens.command_screen import CommandScreen, screen_bindings
from zero_tui.ui.screens.dialogs import CodeBlockPicker
from zero_tui.ui.widgets.agent_pane import AgentPane, RunState, RunStatus, RunStatusLine
from zero_tui.ui.widgets.composer import EditorMove, EditorRun, PromptEditor, SlashComplete
from zero_tui.ui.widgets.find_bar import FindBar
from zero_tui.ui.widgets.live_turn import LiveTurn
from zero_tui.ui.widgets.transcript_view import TranscriptView

POLL_SECONDS = 0.5

EDITOR_HINT = "Ask zero… · Enter sends, alt+Enter: new line · / for commands · Tab: rows"
READ_ONLY_NOTICE = (
    "Read-only: this session (a specialist's sub-session, or another kind Zero does not "
    "resume) cannot be continued. Esc goes back."
)
TITLE_TOOLTIP_LIMIT = 2000
CARD_LINE_LIMIT = 240
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


class TranscriptScreen(CommandScreen):
    """The rows of one session, newest at the bottom, following the log while it grows."""

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
        super().__init__()
        self._open_at = at_sequence
        self._mark = mark
        self.store = store
        self.session_id = session_id
        self.settings = settings or RunSettings()
        self.agent = AgentPane(engine or ExecEngine(store), id="agent-pane")
        self.set_reactive(TranscriptScreen.run_status, RunStatus.of(self.settings, RunState()))
        self.notice = notice
        self.workspace = workspace
        self._clock = clock
        self._copier = copier
        self.meta: Metadata | None = None
        self.index: LogIndex | None = None
        self.order: Sequence[int] = ()
        self.facts: LogFacts | None = None  # of the whole log, once it is indexed
        self._matches: tuple[str, list[int]] | None = None  # a find's query and its rows
        self.loaded = False  # the whole log is indexed
        self.shown = False  # rows are in the view (maybe only the latest, while loading)
        self.painted = False  # ... and have been drawn once
        self._load_id = 0
        self._polling = False
        self._note: str | None = None
        self._clear_live_on_load = False  # a run ended: its stored rows replace the live turn

    def compose(self) -> ComposeResult:
        with Vertical(id="transcript-header"):
            yield Static(Content(self.session_id or "New conversation"), id="transcript-title")
            yield Static(Content("loading…"), id="transcript-facts")
            yield Static(Content(""), id="transcript-note")
        yield TranscriptView(id="transcript-view")
        yield self.agent
        yield FindBar(id="find-bar")
        yield SlashComplete(id="slash-complete")
        yield RunStatusLine(id="run-status").data_bind(status=TranscriptScreen.run_status)
        yield PromptEditor(Context.TRANSCRIPT, placeholder=EDITOR_HINT, id="composer")
        yield Footer()

    @property
    def view(self) -> TranscriptView:
        return self.query_one(TranscriptView)

    @property
    def find_bar(self) -> FindBar:
        return self.query_one(FindBar)

    @property
    def composer(self) -> PromptEditor:
        return self.query_one(PromptEditor)

    @property
    def live(self) -> LiveTurn:
        return self.agent.live

    @property
    def running(self) -> bool:
        """A run is starting or in flight (until its end is handled)."""
        return self.agent.running

    def on_mount(self) -> None:
        self._show_note()
        self.composer.attach(self.query_one(SlashComplete))
        self.view.type_target = self.composer
        self.set_focus(self.composer)
        if self.session_id is None:
            self._show_header()
        else:
            self._load(self._load_id, self.session_id)
        self.set_interval(POLL_SECONDS, self._poll)

    def on_unmount(self) -> None:
        self._load_id += 1
        if self.index is not None:
            self.index.close()

    # -- loading ----------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="transcript-load", exit_on_error=False)
    def _load(self, load_id: int, session_id: str, *, latest_first: bool = True) -> None:
        """Index the log. A huge one shows its latest events first: they are posted on their
        own, and the whole log is indexed once they are painted (`_load` again)."""
        try:
            meta = self.store.get(session_id)
            path = self.store.events_path(session_id)
            index = LogIndex.open_tail(path, session_id) if latest_first else None
            if index is not None and index.is_partial:
                if index.find_last_compaction() is None:
                    # No compaction among the latest events: they end the rehydrated view
                    # as they are, so they can be shown while the rest is indexed.
                    latest = TranscriptLoaded(
                        load_id, meta, index, range(len(index)), None, partial=True
                    )
                    self.post_message(latest)
                    return
                index.close()
                index = None
            if index is None:
                index = LogIndex.open(path, session_id)
        except (StoreError, OSError, ValueError) as error:
            self.post_message(TranscriptFailed(load_id, str(error)))
            return
        note: str | None = None
        order: Sequence[int]
        try:
            order = index.rehydrated_order()
        except StoreError as error:
            order = range(len(index))
            note = f"The compacted view could not be rebuilt ({error}); showing the raw log."
        worker = get_current_worker()
        facts = index_facts(index, order, cancelled=lambda: worker.is_cancelled)
        if facts is None or worker.is_cancelled:
            index.close()
            return
        self.post_message(TranscriptLoaded(load_id, meta, index, order, note, facts=facts))

    async def on_transcript_loaded(self, message: TranscriptLoaded) -> None:
        if message.load_id != self._load_id:
            message.index.close()
            return
        if self._clear_live_on_load and not message.partial:
            # the run's rows are in the store now: they replace the live turn
            self._clear_live_on_load = False
            await self.agent.clear()
        previous, shown = self.index, len(self.order)
        self.meta, self.index, self.order = message.meta, message.index, message.order
        self._matches = None
        self.facts = message.facts
        self._note = message.note
        if message.partial:
            self.view.set_source(message.index, message.order, [])
            self.shown = True
            self._show_header()
            self.call_after_refresh(self._latest_painted, message.load_id)
            return
        if previous is not None and previous is not message.index:
            previous.close()
        prelude = self._prelude()
        if self.shown and not self.loaded:
            # the whole log replaces the look at its latest events
            self.view.replace_source(
                message.index,
                message.order,
                prelude,
                shift=len(message.order) - shown,
                facts=message.facts,
            )
        else:
            self.view.set_source(message.index, message.order, prelude, message.facts)
        self.shown = self.loaded = True
        self.call_after_refresh(self._rows_painted)
        self._show_header()
        self._show_note()
        if self._open_at is not None:
            self._locate(message.index, message.order, self._open_at)
            self._open_at = None

    @work(thread=True, exclusive=True, group="transcript-locate", exit_on_error=False)
    def _locate(self, index: LogIndex, order: Sequence[int], sequence: int) -> None:
        """Find the order position of the event with `sequence` (a search hit's)."""
        position = index.position_of_sequence(order, sequence)
        if not get_current_worker().is_cancelled:
            self.post_message(EventLocated(sequence, position))

    def on_event_located(self, message: EventLocated) -> None:
        if message.position is None:
            self.notify(f"event #{message.sequence} is not in this view", title="Search")
            return
        if self._mark:
            self.view.set_search(self._mark)
        self.view.move_cursor(message.position, align_top=True)
        self.set_focus(self.view)

    def _prelude(self) -> list[Row]:
        """The rows above the log's: the resume card (once the whole log is in)."""
        meta, index = self.meta, self.index
        if meta is None or index is None:
            return []
        card = resume_card(
            meta,
            len(self.order),
            model=meta.model_id,
            provider=meta.provider,
            problems=log_problems(index, self.facts),
        )
        # a line is cut to a few screen lines: a 20,000-character title must not fill them
        shown = [
            line if len(line) <= CARD_LINE_LIMIT else line[:CARD_LINE_LIMIT] + "…" for line in card
        ]
        return [card_row(shown)]

    def _latest_painted(self, load_id: int) -> None:
        self.painted = True
        if load_id == self._load_id and self.session_id is not None:
            self._load(load_id, self.session_id, latest_first=False)

    def _rows_painted(self) -> None:
        self.painted = True

    async def on_transcript_failed(self, message: TranscriptFailed) -> None:
        if message.load_id == self._load_id:
            if self._clear_live_on_load:
                self._clear_live_on_load = False
                await self.agent.clear()
            self._note = f"This session cannot be read: {message.error}"
            self._show_note()
            self.query_one("#transcript-facts", Static).update(Content(""))

    def _show_header(self) -> None:
        meta = self.meta
        if self.session_id is None:
            self.query_one("#transcript-title", Static).update(Content("New conversation"))
            where = "the first prompt starts a session in " + home_relative(
                sanitize_line(self.workspace)
            )
            self.query_one("#transcript-facts", Static).update(Content(where))
            return
        title = sanitize_line(meta.title) if meta is not None and meta.title else "untitled"
        title_line = self.query_one("#transcript-title", Static)
        title_line.update(Content(title))
        # one line, cut with an ellipsis; the whole title (up to a screenful) on hover
        title_line.tooltip = Content(title[:TITLE_TOOLTIP_LIMIT])
        shown = len(self.order) if self.loaded else None
        facts = header_facts(self.session_id, meta, shown, self._now())
        self.query_one("#transcript-facts", Static).update(Content(facts))

    def _show_note(self) -> None:
        notes = [note for note in (self.notice, self._note) if note]
        widget = self.query_one("#transcript-note", Static)
        widget.update(Content("\n".join(sanitize_line(note) for note in notes)))
        widget.display = bool(notes)

    # -- following the log ------------------------------------------------------------

    def _poll(self) -> None:
        # While our own run is live, the agent's appends are its stream's: no poll (the
        # rows are rebuilt from the store when it ends), so nothing shows twice.
        index, session_id = self.index, self.session_id
        if self.loaded and not self._polling and not self.running and index and session_id:
            self._polling = True
            keeps_all = isinstance(self.order, range)
            self._poll_log(self._load_id, index, session_id, len(self.order), keeps_all=keeps_all)

    @work(thread=True, group="transcript-poll", exit_on_error=False)
    def _poll_log(
        self, load_id: int, index: LogIndex, session_id: str, shown: int, *, keeps_all: bool
    ) -> None:
        """One look at the log's end; the answer always comes back as `LogPolled`, with the
        facts of the new events (`shown`: the positions the screen has)."""
        first_changed: int | None = None
        replaced = False
        meta: Metadata | None = None
        facts: LogFacts | None = None
        try:
            before = len(index)
            refresh = index.refresh()
            if refresh.change is LogChange.REPLACED:
                replaced = True
            elif refresh.change is LogChange.GROWN:
                first_changed = refresh.first_changed
                # A compaction changes what the rehydrated view keeps; a rewritten last
                # line moves positions when the view keeps only some lines.
                # A rewritten last line (it had no newline yet) changes a position the
                # facts hold: read the whole log again then.
                replaced = index.has_compaction_from(first_changed) or first_changed < before
                if not replaced:
                    meta = self.store.get(session_id)
                    start = first_changed if keeps_all else shown
                    new_lines = range(first_changed, len(index))
                    facts = extend_facts(index, new_lines, LogFacts(length=start))
        except (StoreError, OSError, ValueError):
            first_changed = None  # the next poll tries again; a vanished session keeps its rows
        self.post_message(LogPolled(load_id, first_changed, replaced, meta, facts))

    def on_log_polled(self, message: LogPolled) -> None:
        self._polling = False
        if message.load_id != self._load_id or self.index is None:
            return
        if message.replaced:
            self._reload()
            return
        if message.first_changed is None:
            return
        if message.meta is not None:
            self.meta = message.meta
        if isinstance(self.order, range):
            self.order = range(len(self.index))
            first_position = message.first_changed
        else:
            first_position = len(self.order)
            self.order = [*self.order, *range(message.first_changed, len(self.index))]
        stale: set[int] = set()
        if self.facts is not None and message.facts is not None:
            # earlier rows linked to the new events (a call whose result came) change too
            stale = self.facts.linked_positions(message.facts.linked)
            self.facts.merge(message.facts)
        self._matches = None  # the new rows may match too
        self.view.extend_source(self.order, first_position, self.facts, stale)
        self._show_header()

    def _reload(self) -> None:
        """Read the log again, from the start (it was replaced, or a run ended)."""
        if self.session_id is None:
            return
        self._load_id += 1
        self.loaded = self.shown = self.painted = False
        self._load(self._load_id, self.session_id)

    # -- a run of the agent --------------------------------------------------------------

    def _continuable(self) -> str | None:
        """Why this session cannot be continued (zero-exec §1.4), or None."""
        meta = self.meta
        if meta is not None and not meta.is_resumable_kind:
            return (
                f"Zero session is not resumable: {meta.session_id} "
                f"(a {sanitize_line(meta.session_kind)} session is read-only; "
                "continue its parent instead)"
            )
        if self.session_id is not None and not self.loaded:
            return "the transcript is still loading: try again in a moment"
        return None

    async def send_prompt(self, prompt: str) -> bool:
        """Start a run with `prompt`; False (and the reason shown) when it cannot start."""
        if self.running:
            self._error("Prompt", "a run is in progress: wait for it, or press Esc to cancel it")
            return False
        refusal = self._continuable()
        if refusal is not None:
            self._error("Prompt", refusal)
            return False
        self.settings.last_prompt = prompt
        recorded = self.meta.cwd if self.meta is not None else ""
        request = RunRequest(
            prompt,
            self.session_id,
            recorded or self.workspace,
            model=self.settings.model,
            auto=self.settings.auto,
        )
        self.agent.start(request, self.workspace)
        self.view.action_jump_bottom()
        return True

    def on_agent_pane_state_changed(self, message: AgentPane.StateChanged) -> None:
        self.run_status = RunStatus.of(self.settings, message.state)

    def watch_run_status(self, old: RunStatus, new: RunStatus) -> None:
        if old.run.running != new.run.running:
            self.refresh_bindings()  # Esc: cancel the run, or back

    def on_agent_pane_session_started(self, message: AgentPane.SessionStarted) -> None:
        if self.session_id is None:
            self.session_id = message.session_id  # a new conversation: its id from Zero
            self.query_one("#transcript-title", Static).update(Content(message.session_id))

    async def on_agent_pane_run_ended(self, message: AgentPane.RunEnded) -> None:
        saved_nothing = message.refused is not None or self.session_id is None
        if saved_nothing and not self.composer.text:
            self.composer.replace_text(message.prompt)  # nothing ran: the prompt is kept
        self.agent.show_outcome(message.outcome, message.refused)
        if saved_nothing:
            await self.agent.clear()
        else:
            # the rows rebuilt from the store replace the live turn once they are loaded
            self._clear_live_on_load = True
            self._reload()

    def action_cancel_run(self) -> None:
        self.agent.cancel()

    # /retry, /edit, /model, /auto

    def command_retry(self, args: str) -> None:
        parse_no_args("retry", args)
        if self.running:
            raise CommandError("cannot retry while a run is in progress.")
        self._with_remembered_prompt("retry")

    def command_edit(self, args: str) -> None:
        parse_no_args("edit", args)
        self._with_remembered_prompt("edit")

    def _with_remembered_prompt(self, command: str) -> None:
        """The prompt last sent in this process; else the session's last user message."""
        if self.settings.last_prompt:
            self.call_later(self._use_prompt, command, self.settings.last_prompt)
        elif self.index is not None and self.loaded:
            self._recall_prompt(command, self.index, self.order)
        else:
            self.call_later(self._use_prompt, command, None)

    @work(thread=True, exclusive=True, group="recall", exit_on_error=False)
    def _recall_prompt(self, command: str, index: LogIndex, order: Sequence[int]) -> None:
        worker = get_current_worker()
        prompt = log_last_prompt(index, order, cancelled=lambda: worker.is_cancelled)
        if not worker.is_cancelled:
            self.post_message(PromptRecalled(command, prompt))

    async def on_prompt_recalled(self, message: PromptRecalled) -> None:
        await self._use_prompt(message.command, message.prompt)

    async def _use_prompt(self, command: str, prompt: str | None) -> None:
        if command == "edit":
            if not prompt:
                self._error("Edit", "no previous prompt to recall.")
                return
            self.composer.replace_text(prompt)
            self.set_focus(self.composer)
            return
        if not prompt:
            self._error("Retry", "no previous prompt to resend.")
            return
        await self.send_prompt(prompt)

    def settings_changed(self) -> None:
        self.run_status = RunStatus.of(self.settings, self.run_status.run)

    # -- find -------------------------------------------------------------------------

    def action_find(self) -> None:
        self.find_bar.open()

    @on(FindBar.Changed)
    def _find_changed(self, message: FindBar.Changed) -> None:
        self.view.set_search(message.query)

    @on(FindBar.Find)
    def _find(self, message: FindBar.Find) -> None:
        if self.index is None:
            return
        self.view.set_search(message.query)
        if self._matches is not None and self._matches[0] == message.query:
            self._go_to_match(self._matches[1], message.backwards)
            return
        self.find_bar.set_status("searching…")
        self._search(self.index, self.order, message.query, message.backwards)

    @work(thread=True, exclusive=True, group="transcript-find", exit_on_error=False)
    def _search(self, index: LogIndex, order: Sequence[int], query: str, backwards: bool) -> None:
        worker = get_current_worker()
        positions = matching_positions(
            index, order, query, facts=self.facts, cancelled=lambda: worker.is_cancelled
        )
        if positions is not None and not worker.is_cancelled:
            self.post_message(MatchesFound(query, positions, backwards))

    def on_matches_found(self, message: MatchesFound) -> None:
        if message.query != self.find_bar.text:
            return
        self._matches = (message.query, message.positions)
        self._go_to_match(message.positions, message.backwards)

    def _go_to_match(self, positions: Sequence[int], backwards: bool) -> None:
        """The next (or previous) match after the cursor: `3/12`, and a word on wrapping."""
        cursor = self.view.cursor
        if cursor is None or cursor == PRELUDE_POSITION:
            cursor = len(self.order) if backwards else -1
        match = next_match(positions, cursor, backwards=backwards)
        if match is None:
            self.find_bar.set_status("no match")
            return
        status = f"{match.number}/{match.total}"
        if match.wrapped and match.total > 1:
            status += " · wrapped to the bottom" if backwards else " · wrapped to the top"
        self.find_bar.set_status(status)
        self.view.move_cursor(match.position, align_top=False)

    @on(FindBar.Closed)
    def _find_closed(self) -> None:
        self.view.set_search("")
        self.set_focus(self.view)

    # -- actions ----------------------------------------------------------------------

    def action_back(self) -> None:
        """Back to the screen below (the picker); quit when nothing but the app's blank
        default screen is below."""
        stack = self.app.screen_stack
        below = stack[-2] if len(stack) >= 2 and stack[-1] is self else None
        if below is None or below.id == _DEFAULT_SCREEN_ID:
            self.app.exit()
        else:
            self.app.pop_screen()

    def action_quit_app(self) -> None:
        self.app.exit()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "quit_app":
            return self.focused is self.view
        if action == "switch_focus":
            on_rows = self.focused is self.view
            return parameters == (("editor",) if on_rows else ("rows",))
        if action == "cancel_run":
            return self.running
        if action == "back":
            return not self.running
        return True

    def action_toggle_card(self) -> None:
        self.view.toggle_card()

    @on(TranscriptView.ChildRequested)
    def _open_child(self, message: TranscriptView.ChildRequested) -> None:
        """A specialist's sub-session, read-only, on top of this one (Esc comes back)."""
        self.post_message(
            OpenSession(message.child_session_id, notice=READ_ONLY_NOTICE, above=True)
        )

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

    # -- commands ---------------------------------------------------------------------

    @on(EditorRun)
    async def _composer_run(self, event: EditorRun) -> None:
        """Enter: a slash command runs; any other text is a prompt for the agent."""
        event.stop()
        text = trim_space(event.text)
        if not text:
            return
        done = self.run_text(event.text) if text.startswith("/") else await self.send_prompt(text)
        if done:
            self.composer.clear_line()

    def _error(self, title: str, message: str) -> None:
        self.notify(message, title=title, severity="error", markup=False)

    def _now(self) -> datetime:
        return self._clock() if self._clock is not None else datetime.now().astimezone()

    def command_time(self) -> datetime:
        return self._now()

    def _loaded_index(self) -> LogIndex:
        if self.index is None or not self.loaded:
            raise CommandError("the transcript is still loading: try again in a moment")
        return self.index

    # /export and /rename (CommandScreen) act on this session

    def command_session(self) -> str:
        if self.session_id is None:
            raise CommandError("nothing is saved yet: send a prompt first")
        return self.session_id

    def current_title(self, session_id: str) -> str:
        return self.meta.title if self.meta is not None else ""

    def check_export_ready(self) -> None:
        self._loaded_index()
        if not self.order:
            raise CommandError(NOTHING_TO_EXPORT)

    def session_renamed(self, meta: Metadata) -> None:
        if meta.session_id == self.session_id:
            self.meta = meta
            self._show_header()
            if self.loaded:
                self.view.replace_prelude(self._prelude())

    # /copy

    def command_copy(self, args: str) -> None:
        request = parse_copy_args(args)
        if self.session_id is None:
            raise CommandError(NO_ANSWER)
        self._find_answer(self._loaded_index(), self.order, request)

    @work(thread=True, exclusive=True, group="copy", exit_on_error=False)
    def _find_answer(self, index: LogIndex, order: Sequence[int], request: CopyRequest) -> None:
        worker = get_current_worker()
        answers = log_answers(
            index, order, request.nth, cancelled=lambda: worker.is_cancelled, facts=self.facts
        )
        if worker.is_cancelled:
            return
        if len(answers) < request.nth:
            message = (
                NO_ANSWER
                if not answers
                else f"there is no answer {request.nth} back: this session has {len(answers)}."
            )
            self.post_message(CopyDone(CopyResult(False, message)))
            return
        text = answers[request.nth - 1]
        if request.code:
            blocks = code_blocks(text)
            if len(blocks) != 1:
                self.post_message(CodeBlocksFound(blocks))
                return
            text = blocks[0].text
        self._copy(text)

    def on_code_blocks_found(self, message: CodeBlocksFound) -> None:
        if not message.blocks:
            self._error("Copy", "that answer has no code block.")
            return
        blocks = message.blocks

        def picked(choice: int | None) -> None:
            if choice is not None:
                self._copy_in_worker(blocks[choice].text)

        self.app.push_screen(CodeBlockPicker(blocks), picked)

    def _copy(self, text: str) -> None:
        """Copy now (called from a worker thread)."""
        copier = self._copier or terminal_copier(self.app)
        self.post_message(CopyDone(copier(text)))

    @work(thread=True, exclusive=True, group="copy", exit_on_error=False)
    def _copy_in_worker(self, text: str) -> None:
        self._copy(text)

    def on_copy_done(self, message: CopyDone) -> None:
        result = message.result
        self.notify(
            result.message,
            title="Copy",
            severity="information" if result.ok else "error",
            markup=False,
        )

    def action_copy_highlighted(self) -> None:
        """ctrl+y: the highlighted message's text; with nothing highlighted, the last answer."""
        view = self.view
        row = view.row_at(view.cursor) if view.cursor is not None else None
        if row is None:
            self.run_text("/copy")
            return
        text = row.detail if is_tool_card(row) and row.detail else row.text
        if not trim_space(text):
            self._error("Copy", "the highlighted row has no text to copy.")
            return
        self._copy_in_worker(text)

    # /resume, /new

    def _refuse_while_running(self) -> None:
        if self.running:
            raise CommandError("a run is in progress: press Esc to cancel it first")

    def command_resume(self, args: str) -> None:
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
