"""What the transcript does with one of its turns: /fork, /rewind, /approve — a widget with
nothing to show, beside the screen (as the picker's `SessionTrash` is).

The screen checks a command against what it shows (a session, its loaded rows, the
highlighted turn, no run in flight) and hands the turn here. Everything after that is the
widget's, through the layers below — `transcript.turns` (the turn, the fork),
`transcript.denied_calls` (what a denied call asked), `agent.zero_commands` (Zero's own
rewind and grants) and `agent.running` (never rewind a session an agent is writing). Each
reads or runs in a thread worker that only posts a message; the dialogs ask first, and
nothing is rewound or allowed without its key. A retry sends its prompt through the
screen's `send_prompt`, given to the widget with the screen's `running`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from textual import work
from textual.widget import Widget

from zero_tui.agent.running import refusal_while_written
from zero_tui.agent.settings import RunSettings
from zero_tui.agent.zero_commands import ZeroCommandError, allow_always, rewind, rewind_plan
from zero_tui.commands import REGISTRY, Context
from zero_tui.hosts.registry import Host
from zero_tui.remote.host_sessions import plan_rewind_on_host, rewind_on_host, zero_runner_on
from zero_tui.store import SessionStore, StoreError
from zero_tui.text.sanitize import sanitize_line
from zero_tui.transcript.denied_calls import DeniedCall, read_denied
from zero_tui.transcript.turns import fork_turn, read_turn, short_prompt
from zero_tui.ui.messages import (
    ActionFailed,
    ApprovalFound,
    GrantSaved,
    OpenSession,
    RewindApplied,
    RewindPlanned,
    TurnForked,
)
from zero_tui.ui.screens.zero_dialogs import GRANT, RETRY, ApprovalDialog, RewindDialog
from zero_tui.ui.widgets.transcript_log import TranscriptLog

SendPrompt = Callable[[str, str | None], Awaitable[bool]]
"""Start a run with a prompt; the second argument overrides the autonomy of this run."""


class TurnActions(Widget):
    """Forks, rewinds and approves a turn of the transcript's session."""

    DEFAULT_CSS = """
    TurnActions {
        display: none;
    }
    """

    def __init__(
        self,
        store: SessionStore,
        settings: RunSettings,
        log: TranscriptLog,
        *,
        send_prompt: SendPrompt,
        running: Callable[[], bool],
        host: Host | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self._host = host  # the store is this host's mirror: Zero's rewind runs there
        self._store = store
        self._settings = settings
        self._log = log
        self._send_prompt = send_prompt
        self._run_in_flight = running

    def on_action_failed(self, message: ActionFailed) -> None:
        self.notify(message.message, title=message.title, severity="error", markup=False)

    # -- /fork ----------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="fork", exit_on_error=False)
    def fork(self, session_id: str, sequence: int | None, title: str) -> None:
        """Fork `session_id` through the turn of `sequence` (None: whole)."""
        try:
            refusal = refusal_while_written(self._store, session_id, "not forking", by_log=False)
            forked = fork_turn(self._store, session_id, sequence, title=title, refuse=refusal)
        except (StoreError, OSError) as error:
            self.post_message(ActionFailed("Fork", f"could not fork {session_id}: {error}"))
            return
        self.post_message(TurnForked(session_id, forked))

    def on_turn_forked(self, message: TurnForked) -> None:
        fork, turn = message.forked.fork, message.forked.turn
        where = f"at {sanitize_line(turn.label())}" if turn and not turn.is_last else "whole"
        key = REGISTRY.action_key_for("open_parent", Context.TRANSCRIPT) or "the palette"
        self.notify(
            f"Forked {message.parent_id} ({where}) into {fork.session_id}; "
            f"{key} goes back to the parent.",
            title="Fork",
            markup=False,
        )
        self.screen.post_message(OpenSession(fork.session_id))

    # -- /rewind --------------------------------------------------------------------------

    def _busy(self, session_id: str) -> str | None:
        """Why not rewind now: someone could be writing the session (asked under its lock;
        Zero's rewind takes the lock itself, so it is let go before Zero runs). A host's
        session is asked on the host, by the command itself."""
        if self._host is not None:
            return None
        with self._store.locked(session_id):
            return refusal_while_written(self._store, session_id, "not rewinding")()

    @work(thread=True, exclusive=True, group="rewind", exit_on_error=False)
    def plan_rewind(self, session_id: str, sequence: int) -> None:
        """What rewinding to the turn of `sequence` would do, asked before it is done."""
        try:
            busy = self._busy(session_id)
            if busy is not None:
                self.post_message(ActionFailed("Rewind", busy))
                return
            turn = read_turn(self._store, session_id, sequence)
            if turn.is_last:
                self.post_message(
                    ActionFailed(
                        "Rewind",
                        f"nothing to rewind: {sanitize_line(turn.label())} is the last turn "
                        "(highlight an earlier one: the turns after it are dropped)",
                    )
                )
                return
            if self._host is not None:
                plan = plan_rewind_on_host(self._host, session_id, turn.last_sequence)
            else:
                plan = rewind_plan(self._store, session_id, turn.last_sequence)
            meta = self._store.get(session_id)
        except (StoreError, ZeroCommandError, OSError) as error:
            self.post_message(ActionFailed("Rewind", str(error)))
            return
        cwd = meta.cwd if meta is not None else ""
        self.post_message(RewindPlanned(session_id, turn, plan, cwd))

    def on_rewind_planned(self, message: RewindPlanned) -> None:
        meta = self._log.follower.meta
        title = meta.title if meta is not None and meta.title else message.session_id

        def answered(yes: bool | None) -> None:
            if yes:
                self._rewind(message.session_id, message.turn.last_sequence)
            else:
                self.notify("nothing rewound", title="Rewind", markup=False)

        dialog = RewindDialog(title, message.plan, message.turn, message.cwd)
        self.app.push_screen(dialog, answered)

    @work(thread=True, exclusive=True, group="rewind", exit_on_error=False)
    def _rewind(self, session_id: str, sequence: int) -> None:
        try:
            busy = self._busy(session_id)  # again: time passed while the plan was read
            if busy is not None:
                self.post_message(ActionFailed("Rewind", busy))
                return
            if self._host is not None:
                result, resync_problem = rewind_on_host(self._host, session_id, sequence)
                if resync_problem:
                    self.post_message(ActionFailed("Rewind", resync_problem))
            else:
                result = rewind(self._store, session_id, sequence)
        except (StoreError, ZeroCommandError, OSError) as error:
            self.post_message(ActionFailed("Rewind", str(error)))
            return
        self.post_message(RewindApplied(session_id, result))

    def on_rewind_applied(self, message: RewindApplied) -> None:
        result = message.result
        self.notify(
            f"Rewound to event #{result.target_sequence}: {result.restored} file(s) restored, "
            f"{result.deleted} deleted, {result.skipped} skipped.",
            title="Rewind",
            markup=False,
        )
        if message.session_id == self._log.follower.session_id:
            self._log.reload()

    # -- /approve ---------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="approve", exit_on_error=False)
    def find_denied(self, session_id: str, sequence: int | None) -> None:
        """The denied call of the row at `sequence` (None: the session's last one)."""
        try:
            denied = read_denied(self._store, session_id, sequence)
        except (StoreError, OSError) as error:
            self.post_message(ActionFailed("Approve", str(error)))
            return
        self.post_message(ApprovalFound(session_id, denied))

    def on_approval_found(self, message: ApprovalFound) -> None:
        denied = message.denied

        async def chosen(choice: str | None) -> None:
            if choice == RETRY:
                await self._retry_allowed(denied)
            elif choice == GRANT:
                self._grant(denied)

        self.app.push_screen(ApprovalDialog(denied, self._settings.auto), chosen)

    async def _retry_allowed(self, denied: DeniedCall) -> None:
        turn = denied.turn
        if turn is None:
            return
        self.notify(
            f"Sending “{sanitize_line(short_prompt(turn.prompt))}” again with --auto high, "
            "this run only: its tools run without asking. "
            f"The next runs: auto {self._settings.auto or 'low'}.",
            title="Allow and retry",
            severity="warning",
            markup=False,
        )
        await self._send_prompt(turn.prompt, "high")

    @work(thread=True, exclusive=True, group="grant", exit_on_error=False)
    def _grant(self, denied: DeniedCall) -> None:
        try:
            run = zero_runner_on(self._host) if self._host is not None else None
            allow_always(self._store, denied.ask.tool, run=run)
        except ZeroCommandError as error:
            self.post_message(ActionFailed("Always allow", str(error)))
            return
        self.post_message(GrantSaved(denied))

    def on_grant_saved(self, message: GrantSaved) -> None:
        from zero_tui.ui.screens.dialogs import ConfirmDialog  # 37 ms of the start

        denied = message.denied
        tool = denied.ask.tool
        self.notify(
            f"Zero now allows every {tool} call (zero sandbox grants allow {tool}); "
            "/permissions lists and revokes it.",
            title="Always allow",
            markup=False,
        )
        turn = denied.turn
        if turn is None or self._run_in_flight():
            return

        async def answered(yes: bool | None) -> None:
            if yes:
                await self._send_prompt(turn.prompt, None)

        level = self._settings.auto or "low"
        question = (
            f"Send “{sanitize_line(short_prompt(turn.prompt))}” again now, as a new turn? "
            f"The grant lets {tool} run at auto {level}."
        )
        dialog = ConfirmDialog("Retry the turn?", question, "send it", no="not now")
        self.app.push_screen(dialog, answered)
