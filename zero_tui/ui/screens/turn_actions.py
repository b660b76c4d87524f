"""What the transcript does with one of its turns: /fork, /rewind, /approve, and the key to
a fork's parent.

`TurnActions` sits between reading (`TranscriptReader`) and continuing the session
(`TranscriptScreen`): it acts on the turn of the highlighted row, through the layers
below — `transcript.turns` (the turn, the fork), `transcript.denied_calls` (what a denied
call asked), `agent.zero_commands` (Zero's own rewind and grants) and `agent.running`
(never rewind a session an agent is writing). Each reads or runs in a thread worker that
only posts a message; the dialogs ask first, and nothing is rewound or allowed without
its key.
"""

from __future__ import annotations

from textual import on, work

from zero_tui.agent.running import refusal_while_written
from zero_tui.agent.settings import RunSettings
from zero_tui.agent.zero_commands import ZeroCommandError, allow_always, rewind, rewind_plan
from zero_tui.commands import REGISTRY, CommandError, Context, parse_no_args
from zero_tui.store import SessionStore, StoreError
from zero_tui.store.gotext import trim_space
from zero_tui.text.sanitize import sanitize_line
from zero_tui.transcript.denied_calls import DeniedCall, read_denied
from zero_tui.transcript.row_model import Row, RowKind
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
from zero_tui.ui.screens.command_screen import command_action
from zero_tui.ui.screens.transcript_reader import TranscriptReader
from zero_tui.ui.screens.zero_dialogs import GRANT, RETRY, ApprovalDialog, RewindDialog
from zero_tui.ui.widgets.transcript_log import TranscriptLog

NO_TURN_ROW = (
    "the highlighted row belongs to no turn of the log (the resume card): highlight a "
    "prompt or an answer"
)


class TurnActions(TranscriptReader):
    """/fork, /rewind and /approve on the highlighted turn; alt+p to a fork's parent."""

    store: SessionStore
    settings: RunSettings

    @property
    def running(self) -> bool:
        """A run of this screen is in flight (the screen says)."""
        raise NotImplementedError

    async def send_prompt(self, prompt: str, *, auto: str | None = None) -> bool:
        """Start a run (the screen's); `auto` overrides the autonomy for this run only."""
        raise NotImplementedError

    # -- the highlighted turn -----------------------------------------------------------

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

    # -- /fork ----------------------------------------------------------------------------

    @command_action
    def action_fork(self, args: str) -> None:
        session_id = self.command_session()
        self._refuse_while_running()
        self._loaded_index()
        self._fork(session_id, self._turn_sequence(), trim_space(args))

    @work(thread=True, exclusive=True, group="fork", exit_on_error=False)
    def _fork(self, session_id: str, sequence: int | None, title: str) -> None:
        try:
            refusal = refusal_while_written(self.store, session_id, "not forking", by_log=False)
            forked = fork_turn(self.store, session_id, sequence, title=title, refuse=refusal)
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
        self.post_message(OpenSession(fork.session_id))

    # -- alt+p: the parent ------------------------------------------------------------

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

    @on(TranscriptLog.Read)
    def _log_read(self) -> None:
        self.refresh_bindings()  # alt+p shows once the metadata says there is a parent

    # -- /rewind --------------------------------------------------------------------------

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
        self._plan_rewind(session_id, sequence)

    def _busy(self, session_id: str) -> str | None:
        """Why not rewind now: someone could be writing the session (asked under its lock;
        Zero's rewind takes the lock itself, so it is let go before Zero runs)."""
        with self.store.locked(session_id):
            return refusal_while_written(self.store, session_id, "not rewinding")()

    @work(thread=True, exclusive=True, group="rewind", exit_on_error=False)
    def _plan_rewind(self, session_id: str, sequence: int) -> None:
        try:
            busy = self._busy(session_id)
            if busy is not None:
                self.post_message(ActionFailed("Rewind", busy))
                return
            turn = read_turn(self.store, session_id, sequence)
            if turn.is_last:
                self.post_message(
                    ActionFailed(
                        "Rewind",
                        f"nothing to rewind: {sanitize_line(turn.label())} is the last turn "
                        "(highlight an earlier one: the turns after it are dropped)",
                    )
                )
                return
            plan = rewind_plan(self.store, session_id, turn.last_sequence)
            meta = self.store.get(session_id)
        except (StoreError, ZeroCommandError, OSError) as error:
            self.post_message(ActionFailed("Rewind", str(error)))
            return
        cwd = meta.cwd if meta is not None else ""
        self.post_message(RewindPlanned(session_id, turn, plan, cwd))

    def on_rewind_planned(self, message: RewindPlanned) -> None:
        meta = self.transcript_log.follower.meta
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
            result = rewind(self.store, session_id, sequence)
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
        if message.session_id == self.session_id:
            self.transcript_log.reload()

    # -- /approve ---------------------------------------------------------------------

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
        self._find_denied(session_id, row.sequence if row is not None and on_denied else None)

    @work(thread=True, exclusive=True, group="approve", exit_on_error=False)
    def _find_denied(self, session_id: str, sequence: int | None) -> None:
        try:
            denied = read_denied(self.store, session_id, sequence)
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

        self.app.push_screen(ApprovalDialog(denied, self.settings.auto), chosen)

    async def _retry_allowed(self, denied: DeniedCall) -> None:
        turn = denied.turn
        if turn is None:
            return
        self.notify(
            f"Sending “{sanitize_line(short_prompt(turn.prompt))}” again with --auto high, "
            "this run only: its tools run without asking. "
            f"The next runs: auto {self.settings.auto or 'low'}.",
            title="Allow and retry",
            severity="warning",
            markup=False,
        )
        await self.send_prompt(turn.prompt, auto="high")

    @work(thread=True, exclusive=True, group="grant", exit_on_error=False)
    def _grant(self, denied: DeniedCall) -> None:
        try:
            allow_always(self.store, denied.ask.tool)
        except ZeroCommandError as error:
            self.post_message(ActionFailed("Always allow", str(error)))
            return
        self.post_message(GrantSaved(denied))

    def on_grant_saved(self, message: GrantSaved) -> None:
        from zero_tui.ui.screens.dialogs import ConfirmDialog

        denied = message.denied
        tool = denied.ask.tool
        self.notify(
            f"Zero now allows every {tool} call (zero sandbox grants allow {tool}); "
            "/permissions lists and revokes it.",
            title="Always allow",
            markup=False,
        )
        turn = denied.turn
        if turn is None or self.running:
            return

        async def answered(yes: bool | None) -> None:
            if yes:
                await self.send_prompt(turn.prompt)

        level = self.settings.auto or "low"
        question = (
            f"Send “{sanitize_line(short_prompt(turn.prompt))}” again now, as a new turn? "
            f"The grant lets {tool} run at auto {level}."
        )
        dialog = ConfirmDialog("Retry the turn?", question, "send it", no="not now")
        self.app.push_screen(dialog, answered)
