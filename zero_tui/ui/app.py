"""The Textual app: the resume picker as the root screen, transcripts pushed on top."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, ClassVar

from textual import events, work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.driver import Driver
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.theme import Theme
from textual.worker import get_current_worker

from zero_tui.agent.settings import RunSettings
from zero_tui.demo import demo_environment
from zero_tui.hosts.registry import Host, mirror_root, sync_interval
from zero_tui.preferences import (
    Preferences,
    RememberedTheme,
    check_theme,
    chosen_theme,
    hint_keys,
    remember_theme,
)
from zero_tui.store import SessionStore, StoreError
from zero_tui.store.resumable import resolve_session
from zero_tui.text.sanitize import sanitize_line, sanitize_text
from zero_tui.ui.copier import Copier, terminal_copier
from zero_tui.ui.hangup import ends_with_terminal, guarded_driver
from zero_tui.ui.messages import NewConversation, OpenSession, ResumeRequest, ResumeResolved
from zero_tui.ui.screens.command_screen import CommandScreen
from zero_tui.ui.screens.picker import PickerScreen

if TYPE_CHECKING:
    from zero_tui.agent.engine import ExecEngine


def styles_dir() -> Path:
    """`zero_tui/styles` in a wheel, else the repository's `styles/` (editable installs)."""
    package = Path(__file__).parents[1]
    packaged = package / "styles"
    if packaged.is_dir():
        return packaged
    return package.parent / "styles"


def css_paths() -> list[Path]:
    directory = styles_dir()
    names = ("base.tcss", "picker.tcss", "transcript.tcss", "dialogs.tcss", "usage.tcss")
    return [directory / name for name in names]


class ZeroApp(App[None]):
    """zero-tui. The picker is the root screen: Esc there quits, ctrl+q quits anywhere.

    The command palette is on F1, not Textual's ctrl+p: Zero's own picker uses ctrl+p and
    ctrl+n to move between rows, and Zero users keep that habit here.
    """

    TITLE = "zero-tui"
    CSS_PATH: ClassVar[list[str | PurePath]] = [str(path) for path in css_paths()]
    COMMAND_PALETTE_BINDING: ClassVar[str] = "f1"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(
        self,
        store: SessionStore,
        *,
        cwd: str,
        all_workspaces: bool = False,
        resume: str | None = None,
        clock: Callable[[], datetime] | None = None,
        copier: Copier | None = None,
        hosts: Sequence[Host] = (),
        sync_seconds: float = 0,
        preferences: Preferences | None = None,
        remembered: RememberedTheme | None = None,
    ) -> None:
        super().__init__()
        self.preferences = preferences or Preferences()
        self.user_keymap = dict(self.preferences.keymap)
        """The user's keys (binding id -> keys): Textual's keymap, and what /help shows."""
        self.set_keymap(self.user_keymap)
        self._preference_notes = list(self.preferences.problems)
        theme = chosen_theme(self.preferences.theme, remembered)
        if theme is not None:
            problem = check_theme(theme, self.available_themes)
            if problem is None:
                self.theme = theme
            else:
                self._preference_notes.append(problem)
        self.store = store
        self.hosts = tuple(hosts)  # `--host`: their mirrored sessions are listed too
        self.sync_seconds = sync_seconds
        self.workspace = cwd
        self.start_all_workspaces = all_workspaces
        self.resume = resume
        self.clock = clock
        self.copier = copier or terminal_copier(self)
        self._engine: ExecEngine | None = None
        self.run_settings = RunSettings()
        self._quit_note_at = float("-inf")  # when ctrl+c last said how to quit

    @property
    def engine(self) -> ExecEngine:
        """What runs the agent: made when first asked for (a transcript's run), so that the
        picker starts without loading the agent's modules."""
        if self._engine is None:
            from zero_tui.agent.engine import ExecEngine  # 11 ms of the picker's start

            self._engine = ExecEngine(self.store)
        return self._engine

    @engine.setter
    def engine(self, engine: ExecEngine) -> None:
        self._engine = engine

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Every notification is literal, safe text, whoever asks (a widget's `notify`
        passes Textual's default, markup on): they carry paths, ids, titles and what Zero
        said, so `[/]` in any of them shows instead of ending the app with a MarkupError,
        and an escape sequence is made visible instead of reaching the terminal."""
        super().notify(
            sanitize_text(message),
            title=sanitize_line(title),
            severity=severity,
            timeout=timeout,
            markup=False,
        )

    def action_help_quit(self) -> None:
        """ctrl+c (Textual's binding, once the focused widget had nothing to copy): cancels
        the run in flight as Esc does, as Codex and Claude Code do; otherwise says which key
        quits, and a second ctrl+c while that note is up quits as ctrl+q does (a streaming
        run still asks first). Textual's own note is markup, which ours would show."""
        screen = self.screen
        if isinstance(screen, CommandScreen) and screen.run_in_flight:
            screen.action_cancel_run()
            return
        if time.monotonic() - self._quit_note_at < self.NOTIFICATION_TIMEOUT:
            self.call_next(self.action_quit)
            return
        for key, active in self.active_bindings.items():
            if active.binding.action in ("quit", "app.quit"):
                self._quit_note_at = time.monotonic()
                self.notify(f"{key} quits zero-tui, and so does ctrl+c again", title="Quit")
                return

    async def action_quit(self) -> None:
        """ctrl+q, /quit, q on the rows: quit at once, but while a run streams only once the
        user says so: Zero stores no partial answer. ctrl+q again at the question quits."""
        from zero_tui.ui.screens.dialogs import QuitDialog  # 37 ms of the start

        running = [
            screen
            for screen in self.screen_stack
            if isinstance(screen, CommandScreen) and screen.run_in_flight
        ]
        if not running or isinstance(self.screen, QuitDialog):
            self.exit()
            return

        def answered(quit_now: bool | None) -> None:
            if quit_now:
                self.exit()

        self.push_screen(QuitDialog(), answered)

    def get_driver_class(self) -> type[Driver]:
        return guarded_driver(super().get_driver_class())

    def on_mount(self) -> None:
        self.theme_changed_signal.subscribe(self, self._theme_switched)
        self.push_screen(
            PickerScreen(
                self.store,
                workspace=self.workspace,
                all_workspaces=self.start_all_workspaces,
                clock=self.clock,
                settings=self.run_settings,
                hosts=self.hosts,
                sync_seconds=self.sync_seconds,
                keys=hint_keys(self.user_keymap),
            )
        )
        if self.resume is not None:
            self._resolve_resume(self.resume)
        if self._preference_notes:  # once, at start: what config.toml asks that cannot be
            # after the first paint: a toast's timeout runs from when it is raised, and a
            # busy machine could spend it before the screen is up
            self.call_after_refresh(self._say_preference_notes)

    def _say_preference_notes(self) -> None:
        self.notify(
            "\n".join(self._preference_notes),
            title="config.toml",
            severity="warning",
            timeout=12,
        )

    def _theme_switched(self, theme: Theme) -> None:
        """The palette switched the theme: remember it (not in config.toml: the user's)."""
        self._remember_theme(theme.name, self.preferences.theme)

    @work(thread=True, exclusive=True, group="theme", exit_on_error=False)
    def _remember_theme(self, theme: str, config_theme: str | None) -> None:
        problem = remember_theme(theme, config_theme)
        if problem is not None:
            self.call_from_thread(
                self.notify, f"the theme is not remembered: {problem}", severity="warning"
            )

    @work(thread=True, exclusive=True, group="resume", exit_on_error=False)
    def _resolve_resume(self, argument: str) -> None:
        """`--resume`/`/resume`: an id, a unique prefix or `latest`. A session of a kind
        Zero does not resume (a specialist's child) opens read-only."""
        from zero_tui.search.catalog import SessionCatalog

        try:
            with SessionCatalog(self.store) as catalog:  # `latest`: the picker's first row
                session_id, meta = resolve_session(self.store, argument, self.workspace, catalog)
        except (StoreError, OSError) as error:
            if not get_current_worker().is_cancelled:
                self.post_message(ResumeResolved(None, str(error)))
            return
        if not get_current_worker().is_cancelled:
            read_only = not meta.is_resumable_kind
            self.post_message(ResumeResolved(session_id, None, read_only=read_only))

    def on_resume_resolved(self, message: ResumeResolved) -> None:
        if message.session_id is not None and message.read_only:
            from zero_tui.ui.screens.transcript import READ_ONLY_NOTICE  # 99 ms of the start

            self.post_message(OpenSession(message.session_id, READ_ONLY_NOTICE, above=True))
        elif message.session_id is not None:
            self.post_message(OpenSession(message.session_id))
        else:
            self.notify(
                message.message or "nothing to resume", title="Sessions", severity="warning"
            )

    def on_resume_request(self, message: ResumeRequest) -> None:
        """`/resume latest|ID` typed in a screen."""
        self._resolve_resume(message.argument)

    def on_open_session(self, message: OpenSession) -> None:
        from zero_tui.ui.screens.transcript import TranscriptScreen  # 99 ms of the start

        current = self.screen
        if (
            isinstance(current, TranscriptScreen)
            and current.session_id == message.session_id
            and (current.host.name if current.host is not None else None) == message.host
        ):
            return
        self._show_transcript(
            message.session_id,
            message.notice,
            above=message.above,
            at_sequence=message.sequence,
            mark=message.highlight,
            host=message.host,
        )

    def on_new_conversation(self, message: NewConversation) -> None:
        """/new: an empty conversation in this workspace (its first prompt creates it)."""
        self._show_transcript(None, None)

    def _show_transcript(
        self,
        session_id: str | None,
        notice: str | None,
        *,
        above: bool = False,
        at_sequence: int | None = None,
        mark: str = "",
        host: str | None = None,
    ) -> None:
        """A transcript in place of the current one, or `above` it (Esc comes back);
        `at_sequence`: opened at that event, with `mark` highlighted (a search hit);
        `host`: a session of that host's mirror, continued on that host."""
        from zero_tui.ui.screens.transcript import TranscriptScreen  # 99 ms of the start

        on_host = self._host_named(host)
        store = self.store if on_host is None else SessionStore(mirror_root(on_host.name))
        screen = TranscriptScreen(
            store,
            session_id,
            notice=notice,
            at_sequence=at_sequence,
            mark=mark,
            workspace=self.workspace,
            clock=self.clock,
            copier=self.copier,
            engine=self.engine if on_host is None else None,  # a host's: its RemoteEngine
            settings=self.run_settings,
            host=on_host,
        )
        if isinstance(self.screen, TranscriptScreen) and not above:
            self.switch_screen(screen)  # one transcript at a time: Esc still goes to the picker
        else:
            self.push_screen(screen)

    def _host_named(self, name: str | None) -> Host | None:
        """The registry's host of that name among `--host`'s (None: this machine)."""
        if name is None:
            return None
        return next(host for host in self.hosts if host.name == name)

    def on_delivery_failed(self, event: events.DeliveryFailed) -> None:
        """A screenshot that could not be saved says where it was going and why not
        (Textual's own note is only 'Failed to save screenshot')."""
        if event.name == "screenshot":
            event.prevent_default()
            self.notify(
                f"Failed to save the screenshot: {event.exception}",
                title="Screenshot",
                severity="error",
                markup=False,
            )

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if isinstance(screen, PickerScreen):
            yield from screen.system_commands()


def make_app(
    store: SessionStore,
    *,
    cwd: str,
    all_workspaces: bool = False,
    resume: str | None = None,
    clock: Callable[[], datetime] | None = None,
    copier: Copier | None = None,
    hosts: Sequence[Host] = (),
    sync_seconds: float = 0,
    preferences: Preferences | None = None,
    remembered: RememberedTheme | None = None,
) -> ZeroApp:
    return ZeroApp(
        store,
        cwd=cwd,
        all_workspaces=all_workspaces,
        resume=resume,
        clock=clock,
        copier=copier,
        hosts=hosts,
        sync_seconds=sync_seconds,
        preferences=preferences,
        remembered=remembered,
    )


def _stop_agent_runs() -> None:
    """Stop every agent run still going; none can be when the engine was never loaded."""
    engine = sys.modules.get("zero_tui.agent.engine")
    if engine is not None:
        engine.terminate_all()


def run_app(
    *,
    store_root: Path | None,
    cwd: str,
    all_workspaces: bool,
    resume: str | None,
    hosts: Sequence[Host] = (),
    preferences: Preferences | None = None,
    remembered: RememberedTheme | None = None,
) -> int:
    """Run the TUI until the user quits; the exit status for the command line. `hosts`:
    their mirrors listed beside the store, synced in the background."""
    app = make_app(
        SessionStore(store_root),
        cwd=cwd,
        all_workspaces=all_workspaces,
        resume=resume,
        hosts=hosts,
        sync_seconds=sync_interval(os.environ),
        preferences=preferences,
        remembered=remembered,
    )
    # The terminal gone (an SSH link dropped, a tmux pane killed) or a kill: the app quits
    # as ctrl+q does, and a run still in flight is cancelled as Esc would (the agent has its
    # own process group: a hangup does not reach it); none outlives us.
    with ends_with_terminal(app, cleanup=_stop_agent_runs):
        app.run()
    return app.return_code or 0


def run_demo(
    *,
    all_workspaces: bool,
    resume: str | None,
    preferences: Preferences | None = None,
    remembered: RememberedTheme | None = None,
) -> int:
    """`zero-tui --demo`: the TUI on a sample store written to a temp dir, removed after."""
    with demo_environment() as demo:
        return run_app(
            store_root=demo.root,
            cwd=str(demo.default_workspace),
            all_workspaces=all_workspaces,
            resume=resume,
            preferences=preferences,
            remembered=remembered,
        )
