"""The base of the screens that run the registry's slash commands."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import datetime
from functools import partial, wraps
from typing import TYPE_CHECKING, ClassVar, TypeVar

from textual import work
from textual.actions import SkipAction
from textual.actions import parse as parse_action
from textual.app import SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widget import Widget

from zero_tui.agent.settings import RunSettings
from zero_tui.commands import (
    REGISTRY,
    CommandError,
    Context,
    ExportRequest,
    ScreenAction,
    clean_title,
    export_to_file,
    parse_auto_args,
    parse_export_args,
    parse_model_args,
    parse_no_args,
    rename_session,
)
from zero_tui.preferences import said_with_user_keys
from zero_tui.store import Metadata, SessionStore
from zero_tui.text.labels import counted
from zero_tui.ui.messages import (
    ActionFailed,
    CommandDone,
    GrantChanged,
    GrantsListed,
    NewConversation,
)

if TYPE_CHECKING:
    from zero_tui.agent.zero_commands import Grant, ZeroRunner


_Screen = TypeVar("_Screen", bound="CommandScreen")


def command_action(
    method: Callable[[_Screen, str], None],
) -> Callable[[_Screen, str], None]:
    """A command's action, `action_<name>(args)`: a CommandError it raises is shown, and the
    action declines (SkipAction), so that `run_text` says False and a typed command stays
    in the editor."""

    @wraps(method)
    def action(self: _Screen, args: str = "") -> None:
        try:
            method(self, args)
        except CommandError as error:
            self.notify(str(error), title="Command", severity="error", markup=False)
            raise SkipAction() from None

    return action


def screen_bindings(context: Context) -> list[BindingType]:
    """Every key of one screen, from the registry: its commands' and its actions', each with
    its binding id, by which the user's config.toml moves it (Textual's keymap).

    None is a priority binding: the focused widget runs them in the order the keys were
    typed (zero_tui/widgets/ordered_keys.py).
    """
    return [
        Binding(
            binding.key,
            binding.action,
            binding.description,
            show=binding.show,
            id=binding.binding_id,
        )
        for binding in REGISTRY.key_bindings(context)
    ]


def grants_left(count: int) -> str:
    if not count:
        return "No grant is left."
    return f"{counted(count, 'grant')} left: /permissions lists them."


def palette_entries(context: Context) -> list[tuple[str, str, str]]:
    """(title, help, slash text) of every command of a context, for the command palette."""
    return [
        (command.usage, command.help_in(context), f"/{command.name}")
        for command in REGISTRY.in_context(context)
    ]


class CommandScreen(Screen[None]):
    """Runs `/name args` as the Textual action the registry names, `action_<name>(args)`
    (Textual's `run_action`: the key bindings run the same actions, with no arguments).

    Subclasses set COMMAND_CONTEXT and define an action for each command the registry
    offers in that context; /help, /quit, /new, /usage, /model, /auto, /export and /rename
    are written here once, /export and /rename acting on the session `command_session()`
    names.
    """

    COMMAND_CONTEXT: ClassVar[Context]

    store: SessionStore
    workspace: str
    settings: RunSettings

    async def run_text(self, text: str) -> bool:
        """Run a slash command; False (and the reason shown) when it cannot run."""
        try:
            command, args = REGISTRY.resolve(text, self.COMMAND_CONTEXT)
        except CommandError as error:
            self.notify(str(error), title="Command", severity="error", markup=False)
            return False
        return await self.app.run_action(f"{command.action}({args!r})", self)

    @command_action
    def action_help(self, args: str) -> None:
        from zero_tui.ui.screens.dialogs import HelpScreen  # 37 ms of the start

        parse_no_args("help", args)
        keymap = getattr(self.app, "user_keymap", {})
        self.app.push_screen(HelpScreen(self.COMMAND_CONTEXT, self.help_notes(), keymap))

    def help_notes(self) -> list[str]:
        """Lines /help adds at its end, of what this screen does now."""
        return []

    def palette_help(self, action: ScreenAction) -> str:
        """What the command palette says of `action` here."""
        return action.help

    @command_action
    def action_quit(self, args: str) -> None:
        parse_no_args("quit", args)
        self.call_next(self.app.run_action, "app.quit")  # the app asks first mid-run

    @property
    def run_in_flight(self) -> bool:
        """An agent's run on this screen is starting or streaming."""
        return False

    def action_cancel_run(self) -> None:
        """Esc (or ctrl+c) while a run is in flight: the screens that run the agent say."""

    @command_action
    def action_usage(self, args: str) -> None:
        from zero_tui.ui.screens.usage_screen import UsageScreen  # 21 ms of the start

        parse_no_args("usage", args)
        self.app.push_screen(
            UsageScreen(self.store, workspace=self.workspace, now=self.command_time())
        )

    @command_action
    def action_new(self, args: str) -> None:
        parse_no_args("new", args)
        self.leaving_for_new()
        self.post_message(NewConversation())

    def registry_commands(self) -> Iterable[SystemCommand]:
        """The registry's commands and actions for this screen, as command-palette entries."""
        keymap = getattr(self.app, "user_keymap", {})
        for title, help_text, text in palette_entries(self.COMMAND_CONTEXT):
            yield SystemCommand(title, help_text, partial(self.run_text, text))
        for action in REGISTRY.actions(self.COMMAND_CONTEXT):
            _namespace, name, parameters = parse_action(action.action)
            if action.palette and self.check_action(name, parameters):
                said = self.palette_help(action)
                for key in action.keys:  # the key its help names, as the user moved it
                    said = said_with_user_keys(said, keymap, action.binding_id, key.key)
                yield SystemCommand(action.title, said, partial(self.run_action, action.action))

    # --- what the session commands act on (the subclasses say) ---------------------------

    @property
    def composer(self) -> Widget:
        """Where the user types: the editor, or the picker's query."""
        raise NotImplementedError

    def command_session(self) -> str:
        """The id /export and /rename act on; CommandError when there is none."""
        raise CommandError("no session to act on")

    def current_title(self, session_id: str) -> str:
        """The title the bare /rename starts from."""
        return ""

    def command_store(self) -> SessionStore:
        """The store of the session /export acts on."""
        return self.store

    def zero_runner(self) -> ZeroRunner | None:
        """Where Zero's commands for this screen's session run: None for this machine
        (asked in the event loop, handed to the worker that runs them)."""
        return None

    def refusal_on_host(self, operation: str) -> str | None:
        """Why `operation` cannot be done to the session, which is another host's (Zero
        has no command for it there); None for a session of this machine."""
        return None

    def check_export_ready(self) -> None:
        """CommandError when there is nothing to export yet."""

    def command_time(self) -> datetime:
        return datetime.now().astimezone()

    def session_renamed(self, meta: Metadata) -> None:
        """A rename went through: show the new title wherever this screen shows it."""

    def settings_changed(self) -> None:
        """/model or /auto changed the settings for the next runs."""

    def leaving_for_new(self) -> None:
        """/new is about to open an empty conversation: CommandError refuses it; a screen
        that leaves a session behind says so."""

    # --- /model, /auto ---------------------------------------------------------------------

    @command_action
    def action_model(self, args: str) -> None:
        self.settings.model = parse_model_args(args)
        shown = self.settings.model or "the configured default"
        self.notify(f"model for the next runs: {shown}", title="Model", markup=False)
        self.settings_changed()

    @command_action
    def action_auto(self, args: str) -> None:
        from zero_tui.agent.engine import autonomy_warning

        self.settings.auto = parse_auto_args(args)
        if autonomy_warning(self.settings.auto) is not None:
            self.notify(
                "autonomy for the next runs: high — their tools run without asking first",
                title="Autonomy",
                severity="warning",
            )
        else:
            level = self.settings.auto or "low"
            self.notify(f"autonomy for the next runs: {level}", title="Autonomy", markup=False)
        self.settings_changed()

    # --- /export ---------------------------------------------------------------------------

    @command_action
    def action_export(self, args: str) -> None:
        request = parse_export_args(args)
        session_id = self.command_session()
        self.check_export_ready()
        self._export(self.command_store(), session_id, request, self.command_time())

    def action_export_dialog(self) -> None:
        """ctrl+s: the export dialog for the session commands act on."""
        from zero_tui.ui.screens.dialogs import ExportDialog  # 37 ms of the start

        try:
            session_id = self.command_session()
            self.check_export_ready()
        except CommandError as error:
            self.notify(str(error), title="Export", severity="error", markup=False)
            return
        store = self.command_store()

        def chosen(request: ExportRequest | None) -> None:
            if request is not None:
                self._export(store, session_id, request, self.command_time())

        hint = "empty: the default name, in the workspace"
        self.app.push_screen(ExportDialog(f"Export {session_id}", hint), chosen)

    @work(thread=True, group="export", exit_on_error=False)
    def _export(
        self, store: SessionStore, session_id: str, request: ExportRequest, now: datetime
    ) -> None:
        outcome = export_to_file(store, session_id, request, workspace=self.workspace, now=now)
        self.post_message(CommandDone("Export", session_id, outcome, request))

    def _confirm_replace(self, session_id: str, request: ExportRequest, path: str) -> None:
        """An export found a file at its path: replace it only when the user says so."""
        from zero_tui.ui.screens.dialogs import ConfirmDialog  # 37 ms of the start

        def answered(yes: bool | None) -> None:
            if yes:
                forced = replace(request, force=True)
                self._export(self.command_store(), session_id, forced, self.command_time())
            else:
                self.notify("nothing written", title="Export", markup=False)

        question = f"{path} already exists. Replace it with this transcript?"
        self.app.push_screen(ConfirmDialog("Replace the file?", question, "replace it"), answered)

    # --- /rename ---------------------------------------------------------------------------

    @command_action
    def action_rename(self, args: str) -> None:
        session_id = self.command_session()
        refused = self.refusal_on_host("rename")
        if refused is not None:
            raise CommandError(refused)
        if args:
            self._rename(session_id, clean_title(args))
            return
        from zero_tui.ui.screens.dialogs import LineEditor  # 37 ms of the start

        self.app.push_screen(
            LineEditor(
                f"Rename {session_id}", self.current_title(session_id), placeholder="a title"
            ),
            partial(self._renamed_in_editor, session_id),
        )

    def _renamed_in_editor(self, session_id: str, title: str | None) -> None:
        if title is None:
            return
        try:
            cleaned = clean_title(title)
        except CommandError as error:
            self.notify(str(error), title="Rename", severity="error", markup=False)
            return
        self._rename(session_id, cleaned)

    @work(thread=True, group="rename", exit_on_error=False)
    def _rename(self, session_id: str, title: str) -> None:
        outcome = rename_session(self.store, session_id, title)
        self.post_message(CommandDone("Rename", session_id, outcome))

    # --- /permissions: Zero's persistent sandbox grants --------------------------------------

    @command_action
    def action_permissions(self, args: str) -> None:
        parse_no_args("permissions", args)
        self._list_grants(self.zero_runner())

    @work(thread=True, exclusive=True, group="grants", exit_on_error=False)
    def _list_grants(self, run: ZeroRunner | None) -> None:
        from zero_tui.agent.zero_commands import ZeroCommandError, grants

        try:
            found = grants(self.store, run=run)
        except ZeroCommandError as error:
            self.post_message(ActionFailed("Permissions", str(error)))
            return
        self.post_message(GrantsListed(found))

    def on_grants_listed(self, message: GrantsListed) -> None:
        from zero_tui.ui.screens.zero_dialogs import PermissionsDialog  # 17 ms of the start

        def chosen(grant: Grant | None) -> None:
            # Back where the user types; the revoke answers in a notification, never in a
            # dialog that would open later and take the keys typed meanwhile.
            self.set_focus(self.composer)
            if grant is not None:
                self._revoke(grant, self.zero_runner())

        self.app.push_screen(PermissionsDialog(message.grants), chosen)

    @work(thread=True, exclusive=True, group="grants", exit_on_error=False)
    def _revoke(self, grant: Grant, run: ZeroRunner | None) -> None:
        from zero_tui.agent.zero_commands import ZeroCommandError, grants, revoke

        try:
            revoke(self.store, grant.tool, path=grant.scope, run=run)
            left = grants(self.store, run=run)
        except ZeroCommandError as error:
            self.post_message(ActionFailed("Permissions", str(error)))
            return
        if grant in left:
            self.post_message(
                ActionFailed(
                    "Permissions",
                    f"Zero revoked nothing for {grant.describe()}: "
                    f"`zero sandbox grants revoke {grant.tool}` revokes every grant of the tool",
                )
            )
            return
        if grant.scope:
            said = f"revoked {grant.describe()}"
        else:
            said = f"revoked every grant of {grant.tool}: Zero asks before it runs again"
        self.post_message(GrantChanged(f"{said}. {grants_left(len(left))}", revoked=True))

    def on_grant_changed(self, message: GrantChanged) -> None:
        self.notify(message.message, title="Permissions", markup=False)

    def on_action_failed(self, message: ActionFailed) -> None:
        self.notify(message.message, title=message.title, severity="error", markup=False)

    def on_command_done(self, message: CommandDone) -> None:
        outcome = message.outcome
        if outcome.exists is not None and message.request is not None:
            self._confirm_replace(message.session_id, message.request, outcome.exists)
            return
        if outcome.notice:
            self.notify(outcome.notice, title=message.title, severity="warning", markup=False)
        self.notify(
            outcome.message,
            title=message.title,
            severity="information" if outcome.ok else "error",
            markup=False,
        )
        if outcome.meta is not None:
            # every screen that shows the session, this one and those below, at once
            for screen in self.app.screen_stack:
                if isinstance(screen, CommandScreen):
                    screen.session_renamed(outcome.meta)
