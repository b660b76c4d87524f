"""The composer: one input line for slash commands, with fuzzy completion as `/` is typed.

`Composer` is an `Input`; `SlashComplete` is the completion list the screen places next to
it (`Composer.attach`). Typing `/` opens the list (every command of the context with its
one-line help); more letters rank it with the picker's fuzzy tiers. With the list open,
up/down move in it, Tab completes the highlighted name, Enter runs it, Esc closes the
list. Otherwise Esc clears the line, and with an empty line Esc goes to the screen (back).
Enter posts `Composer.Run` with the text; the screen runs it and clears the line on success,
or keeps it (and says why) on an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual.actions import SkipAction
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option

from zero_tui.commands import REGISTRY, Command, Context, Registry

MAX_VISIBLE = 8


class SlashComplete(OptionList):
    """The commands matching what is typed after `/`, each with its usage and help."""

    DEFAULT_CSS = """
    SlashComplete {
        display: none;
        height: auto;
        max-height: 10;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        &.-open { display: block; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, compact=True)
        self.can_focus = False
        self.commands: list[Command] = []
        self.context = Context.TRANSCRIPT

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def show_for(self, text: str, context: Context, registry: Registry = REGISTRY) -> None:
        self.commands = registry.complete(text, context)
        if not self.commands:
            self.close()
            return
        width = max(len(command.usage) for command in self.commands) + 2
        self.set_options(
            Option(
                Content.assemble(
                    (command.usage.ljust(width), "bold"),
                    (command.help_in(context), "dim"),
                )
            )
            for command in self.commands
        )
        self.highlighted = 0
        self.add_class("-open")

    def close(self) -> None:
        self.remove_class("-open")
        self.commands = []

    @property
    def highlighted_command(self) -> Command | None:
        index = self.highlighted
        if not self.is_open or index is None or not 0 <= index < len(self.commands):
            return None
        return self.commands[index]

    def move(self, delta: int) -> None:
        if self.commands:
            current = self.highlighted or 0
            self.highlighted = (current + delta) % len(self.commands)


class Composer(Input):
    """One line for slash commands (the screen decides what they do)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "escape", "Back"),
        Binding("tab", "complete", "Complete", show=False),
        Binding("up", "popup_move(-1)", "Up", show=False),
        Binding("down", "popup_move(1)", "Down", show=False),
    ]

    @dataclass
    class Run(Message):
        """Enter: run the text (a slash command, or something the screen refuses)."""

        composer: Composer
        text: str

        @property
        def control(self) -> Composer:
            return self.composer

    @dataclass
    class Move(Message):
        """Up/down with no completion list: move the highlight of what the screen shows."""

        delta: int

    def __init__(
        self,
        context: Context,
        *,
        placeholder: str = "",
        id: str | None = None,
        compact: bool = True,
    ) -> None:
        super().__init__(placeholder=placeholder, id=id, compact=compact)
        self.context = context
        self.popup: SlashComplete | None = None
        self._dismissed_for: str | None = None
        self._moved = False  # up/down in the completion list since the last keystroke

    def attach(self, popup: SlashComplete) -> None:
        self.popup = popup

    @property
    def command_mode(self) -> bool:
        return self.value.startswith("/")

    @property
    def completing(self) -> bool:
        return self.popup is not None and self.popup.is_open

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input is not self or self.popup is None:
            return
        self._moved = False
        if self.value.startswith("/") and self.value != self._dismissed_for:
            self.popup.show_for(self.value, self.context)
        else:
            self.popup.close()

    def clear_line(self) -> None:
        self._dismissed_for = None
        self.value = ""
        if self.popup is not None:
            self.popup.close()

    def _accept(self, *, trailing_space: bool, explicit: bool = True) -> bool:
        """Put the highlighted completion in the line; False when there is none.

        `explicit` (Tab, or Enter after moving in the list) takes the highlighted command.
        Otherwise (a plain Enter) the line changes only when what is typed is the start of
        exactly one command's name: a fuzzy guess never runs a command nobody chose.
        """
        popup = self.popup
        command = popup.highlighted_command if popup is not None else None
        if command is None or popup is None:
            return False
        typed = self.value[1:].partition(" ")[0].lower()
        if REGISTRY.get(typed) is not None:
            return True  # a name typed in full runs as typed, even if this context lacks it
        if not explicit and not self._moved:
            starting = {
                c.name
                for c in popup.commands
                if any(name.startswith(typed) for name in (c.name, *c.aliases))
            }
            if len(starting) != 1:
                return False  # runs as typed: unknown, and said so
            command = next(c for c in popup.commands if c.name in starting)
        if typed != command.name and typed not in command.aliases:
            self.value = f"/{command.name}" + (" " if trailing_space and command.args else "")
            self.cursor_position = len(self.value)
        return True

    def accept_completion(self, *, trailing_space: bool = False, explicit: bool = True) -> bool:
        """Put the highlighted completion in the line and close the list."""
        accepted = self._accept(trailing_space=trailing_space, explicit=explicit)
        if self.popup is not None:
            self.popup.close()
        if trailing_space:
            self._dismissed_for = self.value
        return accepted

    async def action_submit(self) -> None:
        if self.completing:
            self.accept_completion(explicit=False)
        self.post_message(self.Run(self, self.value))

    def action_complete(self) -> None:
        if not self.completing or not self.accept_completion(trailing_space=True):
            raise SkipAction()

    def action_escape(self) -> None:
        if self.completing and self.popup is not None:
            self.popup.close()
            self._dismissed_for = self.value
            return
        if self.value:
            self.clear_line()
            return
        raise SkipAction()

    def action_popup_move(self, delta: int) -> None:
        if self.completing and self.popup is not None:
            self.popup.move(delta)
            self._moved = True
            return
        self.post_message(self.Move(delta))


def command_bindings(context: Context) -> list[BindingType]:
    """The registry's keys for one screen: `run_command('name')` unless the key names an
    action of its own. Priority bindings, so they work while the composer has focus."""
    return [
        Binding(
            key.key,
            key.action or f"run_command('{command.name}')",
            key.description,
            show=key.show,
            priority=True,
            id=f"command.{command.name}",
        )
        for command, key in REGISTRY.keys(context)
    ]


def palette_entries(context: Context) -> list[tuple[str, str, str]]:
    """(title, help, slash text) of every command of a context, for the command palette."""
    return [
        (command.usage, command.help_in(context), f"/{command.name}")
        for command in REGISTRY.in_context(context)
    ]
