"""Small modal screens: a one-line editor (rename), the tag dialog, the export dialog, a
code block picker, the list of unreadable sessions and /help. They only collect an answer
(`dismiss`); the calling screen does the IO."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Checkbox, Input, OptionList, Select, Static
from textual.widgets.option_list import Option

from zero_tui.commands import REGISTRY, Context, ExportRequest
from zero_tui.preferences import effective_keys, said_with_user_keys
from zero_tui.store.session_flags import parse_tag_changes
from zero_tui.store.store import UnreadableSession
from zero_tui.text.labels import key_name
from zero_tui.text.sanitize import sanitize_line
from zero_tui.transcript.answers import CodeBlock
from zero_tui.transcript.export_formats import EXPORT_FORMATS, FORMAT_CONTENTS
from zero_tui.ui.widgets.composer import TextLine


class LineEditor(ModalScreen[str | None]):
    """One line, prefilled: Enter saves (the text), Esc cancels (None)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, value: str, *, placeholder: str = "") -> None:
        super().__init__()
        self._title = title
        self._value = value
        self._placeholder = placeholder

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Content(self._title), classes="dialog-title")
            yield TextLine(self._value, placeholder=self._placeholder, id="line-editor")
            yield Static(Content("Enter saves · Esc cancels"), classes="dialog-hint")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class TagDialog(ModalScreen[tuple[list[str], list[str]] | None]):
    """Tags for one or more sessions: `+work -old` or plain names (added), checked as they
    are typed (the line says what is wrong, Enter then does nothing); Enter answers
    (added, removed), Esc cancels (None)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, current: Sequence[str]) -> None:
        super().__init__()
        self._title = title
        self._current = current

    def compose(self) -> ComposeResult:
        now = ", ".join(self._current) if self._current else "none"
        with Vertical(classes="dialog"):
            yield Static(Content(sanitize_line(self._title)), classes="dialog-title")
            yield Static(Content(sanitize_line(f"tags now: {now}")), classes="dialog-hint")
            yield TextLine(placeholder="+work -old (a plain name adds)", id="tag-line")
            yield Static(Content(""), id="tag-problem", classes="dialog-hint")
            yield Static(Content("Enter saves · Esc cancels"), classes="dialog-hint")

    @on(Input.Changed, "#tag-line")
    def _changed(self, event: Input.Changed) -> None:
        problem = self._problem(event.value)
        self.query_one("#tag-problem", Static).update(Content(sanitize_line(problem)))

    @staticmethod
    def _problem(text: str) -> str:
        try:
            parse_tag_changes(text.split())
        except ValueError as error:
            return str(error)
        return ""

    @on(Input.Submitted, "#tag-line")
    def _submitted(self, event: Input.Submitted) -> None:
        try:
            added, removed = parse_tag_changes(event.value.split())
        except ValueError:
            return  # the line under it says why
        self.dismiss((added, removed) if added or removed else None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmDialog(ModalScreen[bool]):
    """A yes-or-no question about something that cannot be undone: y or Enter on "yes"
    confirms; n or Esc declines. Nothing happens without the key."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, title: str, question: str, yes: str, *, no: str = "keep it") -> None:
        super().__init__()
        self._title = title
        self._question = question
        self._yes = yes
        self._no = no

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog confirm"):
            yield Static(Content(self._title), classes="dialog-title")
            yield Static(Content(sanitize_line(self._question)), classes="confirm-question")
            yield Static(Content(f"y: {self._yes} · n or Esc: {self._no}"), classes="dialog-hint")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class QuitDialog(ConfirmDialog):
    """ctrl+q while a run streams: quit (losing what it streamed) or keep it running."""

    def __init__(self) -> None:
        super().__init__(
            "Quit while the agent runs?",
            "Zero stores no partial answer: quitting now cancels the run, and what it has "
            "streamed so far is lost.",
            "quit and lose the streamed answer",
            no="keep running",
        )


FORMAT_FROM_EXTENSION = "by extension"
"""The export dialog's default format choice: the path's extension decides (none: txt)."""


class ExportDialog(ModalScreen[ExportRequest | None]):
    """Where and in which format: an empty path means the default name in the workspace."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, default_hint: str) -> None:
        super().__init__()
        self._title = title
        self._default_hint = default_hint

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Content(self._title), classes="dialog-title")
            with Horizontal(classes="dialog-row"):
                yield TextLine(placeholder=self._default_hint, id="export-path")
                yield Select(
                    [(FORMAT_FROM_EXTENSION, FORMAT_FROM_EXTENSION)]
                    + [(fmt, fmt) for fmt in EXPORT_FORMATS],
                    value=FORMAT_FROM_EXTENSION,
                    allow_blank=False,
                    id="export-format",
                )
            yield Static(Content(FORMAT_CONTENTS), id="export-formats", classes="dialog-hint")
            yield Checkbox(
                "Redact: mask keys, tokens and passwords, write the home folder as ~",
                id="export-redact",
            )
            yield Static(
                Content(
                    "Enter writes · Tab: format, redact · Esc cancels · a relative path is in the"
                    " workspace"
                ),
                classes="dialog-hint",
            )

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        fmt = self.query_one("#export-format", Select).value
        path = event.value.strip() or None
        chosen = fmt if isinstance(fmt, str) and fmt in EXPORT_FORMATS else None
        redact = self.query_one("#export-redact", Checkbox).value
        self.dismiss(ExportRequest(path, chosen, redact=redact))

    def action_cancel(self) -> None:
        self.dismiss(None)


class CodeBlockPicker(ModalScreen[int | None]):
    """Pick one code block of the answer: Enter copies it, Esc cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, blocks: list[CodeBlock]) -> None:
        super().__init__()
        self._blocks = blocks

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Content("Copy which code block?"), classes="dialog-title")
            yield OptionList(
                *(
                    Option(Content(f"{number}. {sanitize_line(block.label)}"))
                    for number, block in enumerate(self._blocks, start=1)
                ),
                id="code-blocks",
            )
            yield Static(Content("Enter copies · Esc cancels"), classes="dialog-hint")

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option_index)

    def action_cancel(self) -> None:
        self.dismiss(None)


EDITING_KEYS: dict[Context, tuple[tuple[str, str], ...]] = {
    Context.TRANSCRIPT: (
        ("enter", "send the prompt, or run the / command"),
        ("alt+enter, ctrl+j", "a new line in the prompt"),
        ("up/down", "the completion list; else the rows' highlight"),
        ("type on the rows", "the text goes to the editor"),
    ),
    Context.PICKER: (
        ("type", "filter the sessions; / first: a command"),
        ("enter", "open the highlighted session (or run the command)"),
        ("up/down", "move the highlight"),
    ),
}


def _without_key(text: str, key: str) -> str:
    """`text` without a leading `key: ` (the palette's helps start with their key)."""
    for spelling in (key, key_name(key)):
        prefix = f"{spelling}: "
        if text.lower().startswith(prefix.lower()):
            return text[len(prefix) :]
    return text


def help_text(
    context: Context, notes: Sequence[str] = (), keymap: Mapping[str, str] | None = None
) -> str:
    """The /help page: every command of the registry, then every key (from the registry,
    moved where the user's `keymap` moves it), one line per key (a key two actions share,
    such as a toggle's, says both), then `notes` of what the screen does now."""
    keymap = keymap or {}
    lines = ["Commands (type / in the editor; Tab completes, Enter runs)", ""]
    for command in REGISTRY.in_context(context):
        aliases = f"  (also /{', /'.join(command.aliases)})" if command.aliases else ""
        lines.append(f"  {command.usage}{aliases}")
        lines.append(f"      {command.help_in(context)}")
    lines += ["", "Keys", ""]
    texts: dict[str, list[str]] = {key: [text] for key, text in EDITING_KEYS[context]}
    entries: list[tuple[str, str]] = [
        (
            user_key,
            said_with_user_keys(
                _without_key(action.help, key.key), keymap, action.binding_id, key.key
            )
            or action.title,
        )
        for action, key in REGISTRY.action_keys(context)
        for user_key in effective_keys(keymap, action.binding_id, key.key)
    ]
    entries += [
        (user_key, f"{key.description}: /{command.name}")
        for command, key in REGISTRY.keys(context)
        for user_key in effective_keys(keymap, command.binding_id, key.key)
    ]
    entries += [("f1", "the command palette: every command and key"), ("ctrl+q", "quit zero-tui")]
    for key, text in entries:
        said = texts.setdefault(key, [])
        if text not in said:
            said.append(text)
    key_width = max(len(key_name(key)) for key in texts) + 2
    lines += [
        f"  {key_name(key).ljust(key_width)}{' / '.join(said)}" for key, said in texts.items()
    ]
    if notes:
        lines += ["", *notes]
    return "\n".join(lines)


def unreadable_text(sessions: tuple[UnreadableSession, ...]) -> str:
    """One line per unreadable session: its directory's name and the reason."""
    return "\n".join(
        f"{sanitize_line(entry.session_id)}\n    {sanitize_line(entry.reason)}"
        for entry in sessions
    )


class UnreadableScreen(ModalScreen[None]):
    """ctrl+g in the picker: the sessions the store could not read, and why."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,enter", "close", "Close"),
    ]

    def __init__(self, sessions: tuple[UnreadableSession, ...]) -> None:
        super().__init__()
        self._sessions = sessions

    def compose(self) -> ComposeResult:
        count = len(self._sessions)
        title = f"{count} unreadable session" + ("" if count == 1 else "s")
        with Vertical(classes="dialog help"):
            yield Static(Content(title), classes="dialog-title")
            with VerticalScroll():
                yield Static(Content(unreadable_text(self._sessions)), id="unreadable-text")
            yield Static(
                Content(
                    "zero-tui check explains; zero-tui check --repair fixes what is safe "
                    "· Esc closes"
                ),
                classes="dialog-hint",
            )

    def action_close(self) -> None:
        self.dismiss(None)


class HelpScreen(ModalScreen[None]):
    """/help: the registry's commands and the keys of the screen it was opened from."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,enter", "close", "Close"),
    ]

    def __init__(
        self, context: Context, notes: Sequence[str] = (), keymap: Mapping[str, str] | None = None
    ) -> None:
        super().__init__()
        self._help_context = context
        self._notes = tuple(notes)
        self._keymap = dict(keymap or {})

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog help"):
            yield Static(Content("zero-tui help"), classes="dialog-title")
            with VerticalScroll():
                text = help_text(self._help_context, self._notes, self._keymap)
                yield Static(Content(text), id="help-text")
            yield Static(Content("Esc closes"), classes="dialog-hint")

    def action_close(self) -> None:
        self.dismiss(None)
