"""`/usage`: tokens per day over the last 30 UTC days as a bar chart, the top sessions,
models and workspaces, and Zero's own cost estimate where Zero can give one.

The figures are `zero usage report`'s (`transcript.usage_report`), read in a worker; the cost is
asked of Zero (`zero_commands.estimate_cost`) after the figures are shown. Zero's report has no
workspace filter, so the cost is shown for every workspace, and this workspace's view says
so. Enter on a session opens it; Esc comes back here.
"""

from __future__ import annotations

import os
from datetime import UTC, date, datetime
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from zero_tui.agent.zero_commands import CostEstimate, estimate_cost
from zero_tui.store import SessionStore, StoreError
from zero_tui.store.token_counts import Tokens
from zero_tui.text.labels import WEEKDAYS, cost_label, counted, display_title, one_line
from zero_tui.text.sanitize import home_relative, sanitize_line
from zero_tui.transcript.usage_report import (
    WINDOW_DAYS,
    UsageCancelled,
    UsageOverview,
    UsageOverviews,
    usage_overviews,
)
from zero_tui.ui.messages import OpenSession, UsageCostLoaded, UsageLoaded, UsageProgress
from zero_tui.ui.mounting import composed
from zero_tui.ui.widgets.day_chart import DayChart
from zero_tui.ui.widgets.ranked_table import RankedTable, share_label
from zero_tui.ui.widgets.steady_footer import SteadyFooter

MUTED = "$text-muted"
ASKING_ZERO = "Zero's cost estimate: asking `zero usage report`…"
NO_WORKSPACE_COST = (
    "Zero's cost estimate is for every workspace only (Tab): its report has no filter"
)


def token_figures(tokens: Tokens, *, sessions: int | None = None) -> str:
    """`393,731 tokens · 76 requests · 38 sessions · input 378,401 (273,792 cached) ·
    output 15,330`."""
    text = f"{counted(tokens.total, 'token')} · {counted(tokens.requests, 'request')}"
    if sessions is not None:
        text += f" · {counted(sessions, 'session')}"
    if tokens.requests:
        cached = f" ({tokens.cached:,} cached)" if tokens.cached else ""
        text += f" · input {tokens.input:,}{cached} · output {tokens.output:,}"
    return text


def cost_text(estimate: CostEstimate | None, overview: UsageOverview) -> str:
    """The cost line: Zero's estimate, labelled as such, or why there is none."""
    if not overview.every_workspace:
        return NO_WORKSPACE_COST
    if estimate is None:
        return ASKING_ZERO
    cost = estimate.cost
    if cost is None:
        return estimate.note or "Zero's cost estimate: nothing to price in these days"
    if cost.total == 0:
        text = "Zero's cost estimate: none (Zero's price table knows none of these models)"
    else:
        text = f"Zero's cost estimate: {cost_label(cost.total)} (zero usage report)"
    return f"{text} · {estimate.note}" if estimate.note else text


def safe_line(text: str) -> str:
    """Session text (a title, a path, a model) on one line, nothing in it obeyed."""
    return one_line(sanitize_line(text))


class UsageScreen(Screen[None]):
    """Tokens per UTC day as bars, and the largest sessions, models and workspaces."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("tab", "scope('this')", "This workspace"),
        Binding("tab", "scope('all')", "All workspaces"),
        # priority: the session list would take them (to scroll sideways, which it never does)
        Binding("left", "day(-1)", "Day", key_display="←→", priority=True),
        Binding("right", "day(1)", "Next day", show=False, priority=True),
    ]

    def __init__(self, store: SessionStore, *, workspace: str, now: datetime) -> None:
        super().__init__()
        # the classes usage.tcss lays the screen out by (Textual types these per instance)
        self.HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
        self.VERTICAL_BREAKPOINTS = [(0, "-short"), (40, "-tall")]
        self.store = store
        self.workspace = workspace
        self.today = now.astimezone(UTC).date()
        self.every_workspace = True
        self.overviews: UsageOverviews | None = None
        self.estimate: CostEstimate | None = None  # Zero's, for every workspace
        self.day = WINDOW_DAYS - 1  # the highlighted day: today

    def compose(self) -> ComposeResult:
        yield Static(Content("Usage"), id="usage-title")
        yield Static(Content("reading the sessions' usage…"), id="usage-summary")
        yield Static(Content(""), id="usage-cost")
        yield DayChart(id="usage-chart")
        yield Static(Content(""), id="usage-day")
        with Horizontal(id="usage-tables"):
            with Vertical(id="usage-sessions-panel", classes="usage-panel"):
                yield Static(Content("Top sessions · Enter opens one"), classes="usage-heading")
                yield OptionList(id="usage-sessions")
            with Horizontal(id="usage-side"):
                with Vertical(classes="usage-panel"):
                    yield Static(Content("Models"), classes="usage-heading")
                    yield RankedTable(id="usage-models")
                with Vertical(classes="usage-panel"):
                    yield Static(Content("Workspaces"), classes="usage-heading")
                    yield RankedTable(id="usage-workspaces")
        yield SteadyFooter()

    def on_mount(self) -> None:
        if not composed(self):
            return
        self.query_one("#usage-sessions", OptionList).focus()
        self._show_title()
        self._load(self.today)

    # --- reading (a worker: the logs, then Zero) ----------------------------------------

    @work(thread=True, exclusive=True, group="usage", exit_on_error=False)
    def _load(self, today: date) -> None:
        worker = get_current_worker()
        total = 0

        def progress(done: int) -> None:
            self.post_message(UsageProgress(done, total))

        try:
            sessions = self.store.list()
            total = len(sessions)
            progress(0)
            overviews = usage_overviews(
                self.store,
                sessions,
                self.workspace,
                today,
                progress=progress,
                cancelled=lambda: worker.is_cancelled,
            )
        except (StoreError, OSError) as error:
            self.post_message(UsageLoaded(None, f"could not read the store: {error}"))
            return
        except UsageCancelled:
            return
        if worker.is_cancelled:
            return
        self.post_message(UsageLoaded(overviews))
        everywhere = overviews.every_workspace
        estimate = estimate_cost(
            self.store, everywhere.total, since=everywhere.since, every_workspace=True
        )
        if not worker.is_cancelled:
            self.post_message(UsageCostLoaded(estimate))

    def on_usage_progress(self, message: UsageProgress) -> None:
        if self.overviews is None:
            done = f"{message.done:,} of " if message.done else ""
            text = f"reading the usage of {done}{counted(message.total, 'session')}…"
            self.query_one("#usage-summary", Static).update(Content(text))

    def on_usage_loaded(self, message: UsageLoaded) -> None:
        if message.overviews is None:
            summary = self.query_one("#usage-summary", Static)
            summary.update(Content(sanitize_line(message.error or "no usage")))
            return
        self.overviews = message.overviews
        self.day = len(message.overviews.every_workspace.days) - 1
        self._show_all()

    def on_usage_cost_loaded(self, message: UsageCostLoaded) -> None:
        self.estimate = message.estimate
        if self.overviews is not None:
            self._show_cost()
            self._show_day()

    # --- what is shown ----------------------------------------------------------------------

    @property
    def overview(self) -> UsageOverview | None:
        return None if self.overviews is None else self.overviews.scope(self.every_workspace)

    def _show_title(self) -> None:
        where = (
            "every workspace" if self.every_workspace else home_relative(safe_line(self.workspace))
        )
        first = self.overview.since if self.overview is not None else ""
        window = f", {first} to {self.today.isoformat()}" if first else ""
        title = f"Usage · {where} · the last {WINDOW_DAYS} days{window} (UTC)"
        self.query_one("#usage-title", Static).update(Content(title))

    def _show_all(self) -> None:
        overview = self.overview
        if overview is None or self.overviews is None:
            return
        self._show_title()
        summary = token_figures(overview.total, sessions=overview.sessions)
        skipped = len(self.overviews.skipped)
        if skipped:  # as Zero's report would fail on them: `zero-tui usage` names them
            summary += f" · {skipped:,} not counted (zero-tui usage --all says why)"
        self.query_one("#usage-summary", Static).update(Content(summary))
        self._show_cost()
        self._show_day()
        self._show_sessions(overview)
        total = overview.total.total
        models = [(safe_line(name), tokens.total) for name, tokens in overview.models]
        self.query_one("#usage-models", RankedTable).show(models, total, empty="none")
        places = [
            (safe_line(cwd) or "(no workspace)", tokens.total)
            for cwd, tokens in overview.workspaces
        ]
        self.query_one("#usage-workspaces", RankedTable).show(
            places, total, paths=True, empty="none"
        )

    def _show_cost(self) -> None:
        overview = self.overview
        if overview is not None:
            text = cost_text(self.estimate, overview)
            self.query_one("#usage-cost", Static).update(Content(sanitize_line(text)))

    def _show_day(self) -> None:
        overview = self.overview
        if overview is None or not overview.days:
            return
        self.day = min(max(self.day, 0), len(overview.days) - 1)
        days = [date.fromisoformat(day) for day, _tokens in overview.days]
        values = [tokens.total for _day, tokens in overview.days]
        self.query_one(DayChart).show(days, values, self.day)
        day, tokens = overview.days[self.day]
        text = f"{WEEKDAYS[days[self.day].weekday()]} {day} · "
        text += token_figures(tokens) if tokens.requests else "no tokens"
        estimate = self.estimate if self.every_workspace else None
        cost = estimate.cost if estimate is not None else None
        if cost is not None and cost.total and day in cost.by_day:
            text += f" · Zero's estimate {cost_label(cost.by_day[day])}"
        self.query_one("#usage-day", Static).update(Content(text))

    def _show_sessions(self, overview: UsageOverview) -> None:
        sessions = self.query_one("#usage-sessions", OptionList)
        sessions.clear_options()
        if not overview.top_sessions:
            sessions.add_option(Option(Content.styled("no tokens in these days", MUTED)))
            return
        total = overview.total.total
        width = max(len(f"{item.tokens.total:,}") for item in overview.top_sessions)
        for item in overview.top_sessions:
            title = display_title(sanitize_line(item.title))
            parts: list[str | tuple[str, str]] = [
                f"{item.tokens.total:,}".rjust(width),
                "  ",
                (share_label(item.tokens.total, total).rjust(3), MUTED),
                "  ",
                title if item.title.strip() else (safe_line(item.session_id), MUTED),
            ]
            if overview.every_workspace and item.cwd:
                parts.append((f" · {os.path.basename(safe_line(item.cwd).rstrip('/'))}", MUTED))
            sessions.add_option(Option(Content.assemble(*parts), id=item.session_id))
        sessions.highlighted = 0

    # --- keys -------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "scope":
            return parameters == (("this",) if self.every_workspace else ("all",))
        return True

    def action_close(self) -> None:
        self.dismiss(None)

    def action_scope(self, scope: str) -> None:
        self.every_workspace = scope == "all"
        self.refresh_bindings()
        self._show_title()
        self._show_all()

    def action_day(self, step: int) -> None:
        self.day += step
        self._show_day()

    def on_day_chart_picked(self, message: DayChart.Picked) -> None:
        self.day = message.index
        self._show_day()

    @on(OptionList.OptionSelected, "#usage-sessions")
    def _open_session(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.app.post_message(OpenSession(event.option.id, above=True))
