"""The dialogs of what zero-tui asks Zero to do: a rewind (Zero's plan, then yes or no), a
denied tool call (what was asked, the ways forward Zero honours) and Zero's persistent
sandbox grants (listed, revocable). Like the other dialogs they only collect an answer;
the calling screen runs Zero's command in a worker. Nothing is done without its key.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from zero_tui.agent.zero_commands import Grant, RewindPlan
from zero_tui.store.approvals import ApprovalAsk
from zero_tui.text.sanitize import home_relative, sanitize_line
from zero_tui.transcript.denied_calls import DeniedCall, why_no_grant, why_no_retry
from zero_tui.transcript.turns import TurnSpan, short_prompt

FILES_SHOWN = 12
_ACTION_WIDTH = 8


def rewind_plan_text(plan: RewindPlan, cwd: str) -> str:
    """What Zero's plan keeps and drops, and the workspace files it touches."""
    noun = "event" if plan.kept == 1 else "events"
    lines = [
        f"Zero's plan (zero sessions rewind-plan): keep {plan.kept} {noun}, through "
        f"#{plan.target_sequence}; drop the {plan.dropped} after them.",
    ]
    if plan.dropped_types:
        dropped = " · ".join(
            f"{count} {sanitize_line(kind)}"
            for kind, count in sorted(plan.dropped_types.items(), key=lambda item: -item[1])
        )
        lines.append(f"  dropped: {dropped}")
    where = home_relative(sanitize_line(cwd)) if cwd else "the session's workspace"
    if plan.files:
        lines += ["", f"Files in {where}:"]
        for change in plan.files[:FILES_SHOWN]:
            lines.append(f"  {change.action.ljust(_ACTION_WIDTH)}{sanitize_line(change.path)}")
        if len(plan.files) > FILES_SHOWN:
            lines.append(f"  … and {len(plan.files) - FILES_SHOWN} more")
        if any(change.action == "skipped" for change in plan.files):
            lines.append("  (skipped: Zero kept no copy of it, so it stays as it is)")
    else:
        lines += ["", f"No file in {where} changes: no checkpoint comes after this turn."]
    lines += ["", "The dropped events are gone from the log for good."]
    return "\n".join(lines)


class RewindDialog(ModalScreen[bool]):
    """Zero's rewind plan; y rewinds (through `zero sessions rewind`), n or Esc keeps all."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Rewind"),
        Binding("n,escape", "answer(False)", "Keep"),
    ]

    def __init__(self, session_title: str, plan: RewindPlan, turn: TurnSpan, cwd: str) -> None:
        super().__init__()
        self._session_title = session_title
        self._plan = plan
        self._turn = turn
        self._cwd = cwd

    def compose(self) -> ComposeResult:
        title = sanitize_line(f"Rewind “{self._session_title}” to the end of {self._turn.label()}?")
        with Vertical(classes="dialog rewind"):
            yield Static(Content(title), classes="dialog-title")
            with VerticalScroll(classes="dialog-body"):
                body = rewind_plan_text(self._plan, self._cwd)
                yield Static(Content(body), id="rewind-plan")
            yield Static(
                Content("y: rewind (zero sessions rewind) · n or Esc: keep everything"),
                classes="dialog-hint",
            )

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


RETRY = "retry"
GRANT = "grant"


def approval_text(denied: DeniedCall, auto: str | None) -> str:
    """What was asked, then each way forward Zero would honour, or why it would not help:
    one paragraph each (the dialog wraps them)."""
    ask: ApprovalAsk = denied.ask
    tool = sanitize_line(ask.tool)
    paragraphs = [sanitize_line(ask.describe())]
    where = f"In {sanitize_line(denied.turn.label())}: " if denied.turn is not None else ""
    paragraphs.append(f"{where}zero exec cannot ask, so Zero's sandbox denied it.")
    if not ask.retry_helps:
        paragraphs.append("✗  Allow and retry: " + why_no_retry(ask))
    elif denied.turn is None:
        paragraphs.append("✗  Allow and retry: no prompt comes before this call to send again.")
    else:
        prompt = sanitize_line(short_prompt(denied.turn.prompt))
        paragraphs.append(
            f"r  Allow and retry: send “{prompt}” again, as a new turn, with --auto high for "
            "this one run only (every tool of that run runs without asking); the runs after "
            f"it stay at auto {auto or 'low'}."
        )
    if ask.grant_helps:
        paragraphs.append(
            f"a  Always allow {tool}: Zero's persistent grant (zero sandbox grants allow "
            f"{tool}) allows every {tool} call, in every session, until /permissions revokes it."
        )
    else:
        paragraphs.append("✗  Always allow: " + why_no_grant(ask))
    return "\n\n".join(paragraphs)


class ApprovalDialog(ModalScreen[str | None]):
    """A denied tool call: r allows and retries once, a always allows the tool (each only
    when Zero would honour it); Esc does nothing."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "choose('retry')", "Allow and retry"),
        Binding("a", "choose('grant')", "Always allow"),
        Binding("escape,n", "choose('')", "Nothing now"),
    ]

    def __init__(self, denied: DeniedCall, auto: str | None) -> None:
        super().__init__()
        self._denied = denied
        self._auto = auto

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog approval"):
            yield Static(Content("Approval required"), classes="dialog-title")
            with VerticalScroll(classes="dialog-body"):
                yield Static(Content(approval_text(self._denied, self._auto)), id="approval-text")
            yield Static(Content(self._hint()), classes="dialog-hint")

    def _offers(self) -> list[str]:
        ask = self._denied.ask
        offers = [RETRY] if ask.retry_helps and self._denied.turn is not None else []
        return offers + ([GRANT] if ask.grant_helps else [])

    def _hint(self) -> str:
        keys = {RETRY: "r: allow and retry", GRANT: "a: always allow"}
        return " · ".join([keys[offer] for offer in self._offers()] + ["Esc: nothing now"])

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "choose" and parameters and parameters[0]:
            return parameters[0] in self._offers()
        return True

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice or None)


def grant_label(grant: Grant) -> str:
    when = f"  approved {sanitize_line(grant.approved_at)}" if grant.approved_at else ""
    return sanitize_line(grant.describe()) + when


class PermissionsDialog(ModalScreen[Grant | None]):
    """Zero's persistent sandbox grants: Enter (or Delete) revokes the highlighted one."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close"),
        Binding("delete,d", "revoke", "Revoke", show=False),
    ]

    def __init__(self, grants: list[Grant]) -> None:
        super().__init__()
        self._grants = grants

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog permissions"):
            yield Static(
                Content("Zero's persistent sandbox grants (every session, every workspace)"),
                classes="dialog-title",
            )
            if self._grants:
                yield OptionList(
                    *(Option(Content(grant_label(grant))) for grant in self._grants),
                    id="grants",
                )
                hint = "Enter: revoke the highlighted grant (zero sandbox grants revoke) · Esc"
            else:
                yield Static(
                    Content(
                        "No persistent sandbox grants: Zero asks (and zero exec denies) "
                        "whatever its sandbox prompts for."
                    ),
                    id="no-grants",
                )
                hint = "An approval's “always allow” adds one · Esc closes"
            yield Static(Content(hint), classes="dialog-hint")

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self._grants[event.option_index])

    def action_revoke(self) -> None:
        if not self._grants:
            return
        highlighted = self.query_one("#grants", OptionList).highlighted
        if highlighted is not None:
            self.dismiss(self._grants[highlighted])

    def action_close(self) -> None:
        self.dismiss(None)
