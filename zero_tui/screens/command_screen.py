"""The base of the screens that run the registry's slash commands."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import ClassVar

from textual.app import SystemCommand
from textual.screen import Screen

from zero_tui.commands import REGISTRY, CommandError, Context, parse_no_args
from zero_tui.widgets.composer import palette_entries


class CommandScreen(Screen[None]):
    """Runs `/name args` by calling the screen's `command_<name>(args)` method.

    Subclasses set COMMAND_CONTEXT and define a `command_<name>` for each command the
    registry offers in that context; /help and /quit are the same everywhere.
    """

    COMMAND_CONTEXT: ClassVar[Context]

    def run_text(self, text: str) -> bool:
        """Run a slash command; False (and the reason shown) when it cannot run."""
        try:
            command, args = REGISTRY.resolve(text, self.COMMAND_CONTEXT)
            getattr(self, f"command_{command.name}")(args)
        except CommandError as error:
            self.notify(str(error), title="Command", severity="error", markup=False)
            return False
        return True

    def action_run_command(self, name: str) -> None:
        self.run_text(f"/{name}")

    def command_help(self, args: str) -> None:
        from zero_tui.screens.dialogs import HelpScreen

        parse_no_args("help", args)
        self.app.push_screen(HelpScreen(self.COMMAND_CONTEXT))

    def command_quit(self, args: str) -> None:
        parse_no_args("quit", args)
        self.app.exit()

    def registry_commands(self) -> Iterable[SystemCommand]:
        """The registry's commands for this screen, as command-palette entries."""
        for title, help_text, text in palette_entries(self.COMMAND_CONTEXT):
            yield SystemCommand(title, help_text, partial(self.run_text, text))
