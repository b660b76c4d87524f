"""Where the user types: the picker's query line and the transcript's prompt editor.

Both open the slash-command completion (`SlashComplete`, placed by the screen next to them
and attached with `attach`) when the text starts with `/`: every command of the context
with its one-line help; more letters rank it with the picker's fuzzy tiers. With the list
open, up/down move in it, Tab completes the highlighted name, Enter runs it, Esc closes the
list. Otherwise Esc clears the text, and with no text Esc goes to the screen (back).

`Composer` is the picker's one-line query (an Input). `PromptEditor` is the transcript's
multi-line editor (a TextArea): Enter sends, alt+Enter / ctrl+j / shift+Enter insert a
newline, a pasted block keeps its newlines. Both post `EditorRun(text)`; the screen runs it and
clears the text on success, or keeps it (and says why) on an error. Both handle keys in
the order they were typed (`OrderedKeys`), so a burst of keys lands as typed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual import events
from textual.actions import SkipAction
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.reactive import Reactive
from textual.widget import Widget
from textual.widgets import Input, OptionList, TextArea
from textual.widgets.option_list import Option

from zero_tui.commands import REGISTRY, Command, Context, Registry
from zero_tui.ui.widgets.ordered_keys import OrderedKeys

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


class SlashCompletion:
    """The completion state of one editor: which list, what was dismissed, whether the
    user moved in it. The editor tells it when its text changes and asks it what to put
    in the line."""

    def __init__(self, context: Context) -> None:
        self.context = context
        self.popup: SlashComplete | None = None
        self._dismissed_for: str | None = None
        self.moved = False  # up/down in the completion list since the last keystroke

    @property
    def is_open(self) -> bool:
        return self.popup is not None and self.popup.is_open

    def text_changed(self, text: str) -> None:
        if self.popup is None:
            return
        self.moved = False
        if REGISTRY.starts_a_command(text) and "\n" not in text and text != self._dismissed_for:
            self.popup.show_for(text, self.context)
        else:
            self.popup.close()

    def reset(self) -> None:
        self._dismissed_for = None
        if self.popup is not None:
            self.popup.close()

    def dismiss(self, text: str) -> None:
        if self.popup is not None:
            self.popup.close()
        self._dismissed_for = text

    def completed_text(self, text: str, *, trailing_space: bool, explicit: bool) -> str | None:
        """The text with the highlighted command put in; None when there is nothing to take.

        `explicit` (Tab, or Enter after moving in the list) takes the highlighted command.
        Otherwise (a plain Enter) the text changes only when what is typed is the start of
        exactly one command's name: a fuzzy guess never runs a command nobody chose.
        """
        popup = self.popup
        command = popup.highlighted_command if popup is not None else None
        if command is None or popup is None:
            return None
        typed = text[1:].partition(" ")[0].lower()
        if REGISTRY.get(typed) is not None:
            return text  # a name typed in full runs as typed, even if this context lacks it
        if not explicit and not self.moved:
            starting = {
                c.name
                for c in popup.commands
                if any(name.startswith(typed) for name in (c.name, *c.aliases))
            }
            if len(starting) != 1:
                return None  # runs as typed: unknown, and said so
            command = next(c for c in popup.commands if c.name in starting)
        if typed == command.name or typed in command.aliases:
            return text
        return f"/{command.name}" + (" " if trailing_space and command.args else "")


@dataclass
class EditorRun(Message):
    """Enter: run the text (a slash command, a prompt, or something the screen refuses)."""

    editor: Widget
    text: str

    @property
    def control(self) -> Widget:
        return self.editor


@dataclass
class EditorMove(Message):
    """Up/down with no completion list: move the highlight of what the screen shows."""

    delta: int


class TextLine(OrderedKeys, Input):
    """A one-line Input that takes keys in the order they were typed."""


class _CompletingEditor(OrderedKeys):
    """What the two editors share: the completion list, Esc, Tab and the Run message."""

    completion: SlashCompletion
    _keys_offered: tuple[bool, bool] | None = None  # what the footer last heard

    @property
    def text_value(self) -> str:
        raise NotImplementedError

    def replace_text(self, text: str) -> None:
        raise NotImplementedError

    def attach(self, popup: SlashComplete) -> None:
        self.completion.popup = popup

    @property
    def command_mode(self) -> bool:
        return REGISTRY.starts_a_command(self.text_value)

    @property
    def completing(self) -> bool:
        return self.completion.is_open

    def clear_line(self) -> None:
        self.completion.reset()
        self.replace_text("")

    def accept_completion(self, *, trailing_space: bool = False, explicit: bool = True) -> bool:
        """Put the highlighted completion in the text and close the list."""
        text = self.completion.completed_text(
            self.text_value, trailing_space=trailing_space, explicit=explicit
        )
        if text is not None and text != self.text_value:
            self.replace_text(text)
        if self.completion.popup is not None:
            self.completion.popup.close()
        if trailing_space:
            self.completion.dismiss(self.text_value)
        return text is not None

    def submit_text(self) -> None:
        if self.completing:
            self.accept_completion(explicit=False)
        self.post_message(EditorRun(self, self.text_value))

    def action_complete(self) -> None:
        if not self.completing or not self.accept_completion(trailing_space=True):
            raise SkipAction()

    def editor_action_state(self, action: str) -> bool | None:
        """Esc and Tab are the editor's only while they do something here; otherwise the
        screen's binding for the key is the one in force (and in the footer)."""
        if action == "escape":
            return self.completing or bool(self.text_value)
        if action == "complete":
            return self.completing
        return True

    def editor_changed(self, text: str) -> None:
        self.completion.text_changed(text)
        # Esc and Tab change hands with the first character or the completion list, not
        # with every key: a refresh of the bindings redraws the whole footer.
        offered = (self.completing, bool(text))
        if offered != self._keys_offered:
            self._keys_offered = offered
            self.refresh_bindings()

    def action_escape(self) -> None:
        if self.completing:
            self.completion.dismiss(self.text_value)
            return
        if self.text_value:
            self.clear_line()
            return
        raise SkipAction()

    def action_popup_move(self, delta: int) -> None:
        if self.completing and self.completion.popup is not None:
            self.completion.popup.move(delta)
            self.completion.moved = True
            return
        self.post_message(EditorMove(delta))


class Composer(_CompletingEditor, Input):
    """The picker's query line: a filter, or a slash command (the screen decides)."""

    # Input sets its virtual size to the text's width at every key, and Widget's reactive
    # lays the whole screen out again for it. The line is one row of fixed width and has
    # no scrollbar: its scrolling reads the virtual size, the layout does not.
    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "escape", "Clear"),
        Binding("tab", "complete", "Complete", show=False),
        Binding("up", "popup_move(-1)", "Up", show=False),
        Binding("down", "popup_move(1)", "Down", show=False),
        # Enter typed before the app has the terminal (typed ahead with the command) was
        # turned into a line feed by the tty: ctrl+j, taken as the Enter it was
        Binding("ctrl+j", "submit", "Open", show=False),
    ]

    def action_popup_move(self, delta: int) -> None:
        """↑/↓ move in the completion list; else they are the screen's own binding, run
        in the order the keys were typed (a message to the screen would arrive after the
        keys typed behind it: ↓ then ctrl+x in one burst marked the row above)."""
        if not self.completing:
            raise SkipAction()
        super().action_popup_move(delta)

    # Home/End, and ctrl+a/ctrl+e, belong to the screen (first/last row, empty runs), and
    # ctrl+x (the screen's mark, as fzf's Tab: a one-line query has little to cut).
    SCREEN_KEYS: ClassVar[frozenset[str]] = frozenset({"home", "end", "cut"})
    marks_first = False
    """Rows are marked: Esc is the screen's (it clears the marks before the query)."""

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
        self.completion = SlashCompletion(context)

    @property
    def text_value(self) -> str:
        return self.value

    def replace_text(self, text: str) -> None:
        self.value = text
        self.cursor_position = len(text)

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input is self:
            self.editor_changed(self.value)

    async def action_submit(self) -> None:
        self.submit_text()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in self.SCREEN_KEYS or (action == "escape" and self.marks_first):
            return False
        return self.editor_action_state(action)


class PromptEditor(_CompletingEditor, TextArea):
    """The transcript's editor: prompts (multi-line) and slash commands."""

    DEFAULT_CSS = """
    PromptEditor {
        height: auto;
        max-height: 10;
        min-height: 1;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "send", "Send", show=False),
        Binding("alt+enter,ctrl+j,shift+enter", "newline", "Newline", show=False),
        Binding("escape", "escape", "Clear"),
        Binding("tab", "complete", "Complete", show=False),
        Binding("up", "line_or_popup(-1)", "Up", show=False),
        Binding("down", "line_or_popup(1)", "Down", show=False),
    ]

    # The TextArea's own actions whose keys the transcript screen uses instead.
    SCREEN_ACTIONS: ClassVar[frozenset[str]] = frozenset(
        {"cursor_page_up", "cursor_page_down", "redo", "select_all", "select_line"}
    )

    def __init__(self, context: Context, *, placeholder: str = "", id: str | None = None) -> None:
        super().__init__(
            id=id,
            compact=True,
            soft_wrap=True,
            show_line_numbers=False,
            tab_behavior="focus",
            placeholder=placeholder,
            highlight_cursor_line=False,
        )
        self.context = context
        self.completion = SlashCompletion(context)
        self._enters_pending = 0

    @property
    def text_value(self) -> str:
        return self.text

    def replace_text(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)

    @property
    def value(self) -> str:
        return self.text

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if event.text_area is self:
            self.editor_changed(self.text)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in self.SCREEN_ACTIONS:
            return False
        return self.editor_action_state(action)

    async def on_key(self, event: events.Key) -> None:
        # Enter with more characters right behind it, in the same burst, is a pasted
        # newline (an unbracketed paste), not a send: the send waits until the keys queued
        # behind it are handled, and a character among them turns it into a newline.
        if self._enters_pending and event.key != "enter":
            pending, self._enters_pending = self._enters_pending, 0
            if event.is_printable:
                self.insert("\n" * pending)
            else:
                self.submit_text()

    def action_send(self) -> None:
        if self.completing:
            self.submit_text()
            return
        self._enters_pending += 1
        self.call_later(self._send_if_alone)

    def _send_if_alone(self) -> None:
        if self._enters_pending:
            self._enters_pending = 0
            self.submit_text()

    def action_newline(self) -> None:
        self.insert("\n")

    def action_line_or_popup(self, delta: int) -> None:
        """Up/down: the completion list; else a line of the text; else the screen's rows."""
        row, _column = self.cursor_location
        last_row = self.document.line_count - 1
        if not self.completing and 0 <= row + delta <= last_row:
            if delta < 0:
                self.action_cursor_up()
            else:
                self.action_cursor_down()
            return
        self.action_popup_move(delta)
