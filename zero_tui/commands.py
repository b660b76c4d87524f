"""The one command registry: slash commands, their keys, the palette and /help (style §5.5).

Each command is defined once, here: name, aliases, arguments, one-line help, where it
works, and the keys that run it. The UI builds its key bindings, the command palette, the
slash completion and the /help screen from `REGISTRY`; nothing else lists commands.

`parse_slash` splits `/name args` (`text[1:].partition(" ")`, as toad and Zero do); the
`parse_*_args` functions check each command's arguments and raise `CommandError` with the
message the user sees (the typed text then stays in the composer).

No Textual or Rich import here (tests/test_import_hygiene.py).
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING

from zero_tui.agent.settings import AUTONOMY_LEVELS
from zero_tui.atomic import AtomicWriteError, DestinationExists
from zero_tui.picker.ranking import PickerItem, RankedIndex
from zero_tui.store import Metadata, SessionStore, StoreError
from zero_tui.store.gotext import trim_space, truncate_utf8
from zero_tui.transcript.export_formats import (
    EXPORT_FORMATS,
    FORMAT_CHOICES,
    ExportFormat,
    unknown_format_message,
)

if TYPE_CHECKING:
    from zero_tui.agent.running import Running

TITLE_LIMIT_BYTES = 80
EXPORT_ARGS = f"[path] [--format {FORMAT_CHOICES}] [--redact]"


class Context(StrEnum):
    """Where a command or key works."""

    PICKER = "picker"
    TRANSCRIPT = "transcript"


BOTH = frozenset({Context.PICKER, Context.TRANSCRIPT})
PICKER_ONLY = frozenset({Context.PICKER})
TRANSCRIPT_ONLY = frozenset({Context.TRANSCRIPT})


class CommandError(Exception):
    """A command the user typed cannot run; the message says why (shown as an error)."""


@dataclass(frozen=True, slots=True)
class Key:
    """A key that runs a command (or one of its forms) or a screen action in one context.

    `action` is the screen action the key runs; "" means the command's own action with no
    arguments (`/name`), or the screen action the key belongs to.
    """

    key: str
    context: Context
    description: str
    action: str = ""
    show: bool = True


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    help: str
    args: str = ""
    aliases: tuple[str, ...] = ()
    contexts: frozenset[Context] = BOTH
    keys: tuple[Key, ...] = ()
    context_help: tuple[tuple[Context, str], ...] = ()
    """What the command does in one context, when that differs from `help`."""

    @property
    def usage(self) -> str:
        return f"/{self.name} {self.args}".rstrip()

    @property
    def action(self) -> str:
        """The Textual action that runs it: a screen's `action_<action>(args)`; its keys run
        it with no arguments."""
        return self.name.replace("-", "_")

    @property
    def binding_id(self) -> str:
        """Its keys' id in Textual's keymap, and in config.toml's `[keys]`: its name."""
        return self.name

    def help_in(self, context: Context) -> str:
        return dict(self.context_help).get(context, self.help)

    def available_in(self, context: Context) -> bool:
        return context in self.contexts


@dataclass(frozen=True, slots=True)
class ScreenAction:
    """A screen action that is no slash command: its keys, and its command-palette entry
    (`palette=False`: keys only).

    Two actions may share a key (`scope('all')` and `scope('this')` on Tab): the screen's
    `check_action` says which is in force, so the footer and the palette show the one
    that fits. They then share one `id` too (by default the action's name before its
    arguments, `scope`): Textual's keymap, moving one binding off a key, drops every
    binding of that key, so what shares a key is rebound as one.
    """

    action: str
    title: str
    help: str
    contexts: frozenset[Context]
    keys: tuple[Key, ...] = ()
    palette: bool = True
    id: str = ""

    @property
    def binding_id(self) -> str:
        """Its keys' id in Textual's keymap and config.toml's `[keys]`."""
        return self.id or self.action.partition("(")[0]


@dataclass(frozen=True, slots=True)
class KeyBinding:
    """One key of one context, as the screens bind it: what it runs, and by which id a
    user's config.toml moves it (`[keys] <id> = "<key>"`)."""

    binding_id: str
    key: str
    action: str
    description: str
    show: bool
    title: str
    """The command's or the action's title (`/export`, `Sessions: scan again`)."""


@dataclass(frozen=True, slots=True)
class SlashCall:
    """`/name args`: `name` as typed (lowered), `args` the rest, trimmed."""

    name: str
    args: str


_COMMAND_WORD = re.compile(r"[A-Za-z-]*")


class Registry:
    """Commands by name and alias (case-insensitive), in definition order."""

    def __init__(self, commands: Iterable[Command], actions: Iterable[ScreenAction] = ()) -> None:
        self._commands = tuple(commands)
        self._actions = tuple(actions)
        self._by_name: dict[str, Command] = {}
        for command in self._commands:
            for name in (command.name, *command.aliases):
                if name in self._by_name:
                    raise ValueError(f"command name defined twice: {name}")
                self._by_name[name] = command
        self._index: dict[Context, tuple[list[Command], RankedIndex]] = {}

    def __iter__(self) -> Iterator[Command]:
        return iter(self._commands)

    def __len__(self) -> int:
        return len(self._commands)

    def get(self, name: str) -> Command | None:
        return self._by_name.get(name.strip().lower())

    @staticmethod
    def starts_a_command(text: str) -> bool:
        """Whether `text` is (the start of) a command line: `/`, then what could be a name.

        Names are letters and hyphens, so `/api/health` or `/tmp/x.md` is no command: it is
        text (a picker query). A misspelt name still is one (completion offers the right).
        """
        if not text.startswith("/"):
            return False
        word = text[1:].split(maxsplit=1)[0] if text[1:2].strip() else ""
        return _COMMAND_WORD.fullmatch(word) is not None

    def in_context(self, context: Context) -> list[Command]:
        return [command for command in self._commands if command.available_in(context)]

    def keys(self, context: Context) -> list[tuple[Command, Key]]:
        """The keys that run slash commands in one context."""
        return [
            (command, key)
            for command in self._commands
            for key in command.keys
            if key.context is context
        ]

    def key_for(self, name: str, context: Context) -> str | None:
        """The first key that runs command `name` in `context` (None: none does)."""
        command = self.get(name)
        if command is None:
            return None
        return next((key.key for key in command.keys if key.context is context), None)

    def action_key_for(self, action: str, context: Context) -> str | None:
        """The first key of screen action `action` in `context` (None: it has none)."""
        return next(
            (key.key for found, key in self.action_keys(context) if found.action == action), None
        )

    def key_bindings(self, context: Context) -> list[KeyBinding]:
        """Every key of one context: the commands', then the screen actions'."""
        bindings = [
            KeyBinding(
                command.binding_id,
                key.key,
                key.action or command.action,
                key.description,
                key.show,
                f"/{command.name}",
            )
            for command, key in self.keys(context)
        ]
        bindings += [
            KeyBinding(
                action.binding_id,
                key.key,
                key.action or action.action,
                key.description,
                key.show,
                action.title,
            )
            for action, key in self.action_keys(context)
        ]
        return bindings

    def all_actions(self) -> tuple[ScreenAction, ...]:
        return self._actions

    def actions(self, context: Context) -> list[ScreenAction]:
        """The screen actions of one context, in definition order."""
        return [action for action in self._actions if context in action.contexts]

    def action_keys(self, context: Context) -> list[tuple[ScreenAction, Key]]:
        return [
            (action, key)
            for action in self.actions(context)
            for key in action.keys
            if key.context is context
        ]

    def resolve(self, text: str, context: Context) -> tuple[Command, str]:
        """The command `text` names and its argument string, or CommandError."""
        call = parse_slash(text)
        if call is None:
            raise CommandError("commands start with /: type / to see them")
        if not call.name:
            raise CommandError("type a command name after / (/help lists them)")
        command = self.get(call.name)
        if command is None:
            raise CommandError(f"unknown command /{call.name} (/help lists the commands)")
        if not command.available_in(context):
            where = " or ".join(sorted(c.value for c in command.contexts))
            raise CommandError(f"/{command.name} works in the {where}, not here")
        return command, call.args

    def complete(self, text: str, context: Context) -> list[Command]:
        """Commands for the completion list while `/name` is being typed, best first.

        Fuzzy over names (Go's picker tiers, then typos) with aliases and help searchable
        too; an empty name lists every command of the context in definition order.
        """
        if not text.startswith("/") or " " in text:
            return []
        commands, index = self._ranked(context)
        return [commands[i] for i in index.rank(text[1:]).indices]

    def _ranked(self, context: Context) -> tuple[list[Command], RankedIndex]:
        cached = self._index.get(context)
        if cached is None:
            commands = self.in_context(context)
            items = [
                PickerItem(label=c.name, value=" ".join(c.aliases), meta=c.help) for c in commands
            ]
            cached = self._index[context] = (commands, RankedIndex(items))
        return cached


def parse_slash(text: str) -> SlashCall | None:
    """`/name args` -> SlashCall; None when `text` is not a slash command."""
    stripped = trim_space(text)
    if not stripped.startswith("/"):
        return None
    name, _, args = stripped[1:].partition(" ")
    return SlashCall(name.lower(), trim_space(args))


# --- arguments ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CopyRequest:
    nth: int = 1  # 1: the last answer, 2: the one before it, ...
    code: bool = False


def parse_copy_args(args: str) -> CopyRequest:
    """`/copy [N | code]` (`code N` / `N code` are accepted too)."""
    nth, code = 1, False
    for token in args.split():
        if token.lower() == "code" and not code:
            code = True
        elif token.isdigit() and nth == 1 and int(token) >= 1:
            nth = int(token)
        else:
            raise CommandError(
                f"usage: /copy [N | code] (N: 1 is the last answer, 2 the one before); "
                f"not {token!r}"
            )
    return CopyRequest(nth, code)


@dataclass(frozen=True, slots=True)
class ExportRequest:
    path: str | None
    fmt: str | None
    force: bool = False  # replace an existing file (asked of the user first)
    redact: bool = False  # mask secrets and the home folder (`zero-tui export --redact`)


def parse_export_args(args: str) -> ExportRequest:
    """`/export [path] [--format txt|md|json|html] [--redact]` (shlex: quote a path with
    spaces)."""
    usage = f"usage: /export {EXPORT_ARGS}"
    try:
        tokens = shlex.split(args)
    except ValueError as error:
        raise CommandError(f"{usage} ({error})") from None
    fmt: str | None = None
    redact = False
    words: list[str] = []
    position = 0
    while position < len(tokens):
        token = tokens[position]
        value: str | None = None
        if token == "--redact":
            redact = True
            position += 1
            continue
        if token in ("--format", "-f"):
            if position + 1 >= len(tokens):
                raise CommandError(f"{usage}: --format needs a value")
            value = tokens[position + 1]
            position += 2
        elif token.startswith("--format="):
            value = token.partition("=")[2]
            position += 1
        else:
            if token.startswith("-") and len(token) > 1 and not words:
                raise CommandError(f"{usage}: unknown option {token}")
            words.append(token)
            position += 1
            continue
        if value.lower() not in EXPORT_FORMATS:
            raise CommandError(unknown_format_message(value))
        fmt = value.lower()
    path = " ".join(words) or None
    return ExportRequest(path, fmt, redact=redact)


def clean_title(title: str) -> str:
    """Zero's /rename: trimmed, cut to 80 bytes on a UTF-8 boundary; CommandError if empty."""
    cleaned = trim_space(truncate_utf8(trim_space(title), TITLE_LIMIT_BYTES))
    if not cleaned:
        raise CommandError("Could not rename session: session name cannot be empty.")
    return cleaned


def parse_model_args(args: str) -> str | None:
    """`/model [ID]`: one model id (Zero resolves aliases); bare: Zero's configured model."""
    if not args:
        return None
    if len(args.split()) != 1 or args.startswith("-"):
        raise CommandError(f"usage: /model [ID] (one model id, e.g. gpt-5); not {args!r}")
    return args


def parse_auto_args(args: str) -> str | None:
    """`/auto [low | medium | high]`; bare: Zero's default (low)."""
    if not args:
        return None
    level = args.lower()
    if level not in AUTONOMY_LEVELS:
        raise CommandError(f"usage: /auto [low | medium | high]; not {args!r}")
    return level


def parse_no_args(name: str, args: str) -> None:
    if args:
        raise CommandError(f"/{name} takes no arguments")


# --- effects (blocking: the UI runs these in thread workers) --------------------------------


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a command did, as the user is told: `message`, and a `notice` to show besides."""

    ok: bool
    message: str
    notice: str | None = None
    meta: Metadata | None = None
    exists: str | None = None  # an export found this file there: replace it only if asked


NOTHING_TO_EXPORT = "nothing to export yet."


def export_to_file(
    store: SessionStore,
    session_id: str,
    request: ExportRequest,
    *,
    workspace: str,
    now: datetime,
) -> Outcome:
    """`/export`: `wrote transcript to <path>`, or why not (`failed to write <path>: …`)."""
    from zero_tui.transcript.export import export_session  # 13 ms of the app's start

    try:
        meta = store.get(session_id)
        if meta is None:
            return Outcome(False, f"zero session not found: {session_id}")
        if meta.event_count <= 0:
            return Outcome(False, NOTHING_TO_EXPORT)
        result = export_session(
            store,
            session_id,
            fmt=request.fmt,
            path=request.path,
            workspace=workspace,
            now=now,
            force=request.force,
            redact=request.redact,
        )
    except DestinationExists as error:
        return Outcome(False, f"{error.path} already exists", exists=error.path)
    except (StoreError, AtomicWriteError, ValueError) as error:
        return Outcome(False, str(error))
    except OSError as error:  # anything the atomic writer did not word itself
        return Outcome(False, f"failed to write: {error}")
    wrote = f"wrote transcript to {result.path}"
    if result.redacted is not None:
        wrote += f" (redacted: {result.redacted.note()})"
    return Outcome(True, wrote, result.notice)


def export_many(
    store: SessionStore,
    session_ids: Sequence[str],
    request: ExportRequest,
    *,
    workspace: str,
    now: datetime,
) -> Outcome:
    """The marked sessions' transcripts, one file each, `<id>.<format>`, in the folder
    `request.path` names (made when missing; empty or relative: in the workspace), never
    replacing a file there, each redacted when the request says so: `wrote 3 transcripts to
    <folder>`, and what failed."""
    fmt = ExportFormat(request.fmt) if request.fmt else ExportFormat.TXT
    folder = os.path.expanduser(trim_space(request.path or "")) or workspace or "."
    folder = os.path.join(workspace, folder) if workspace else folder
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
    except OSError as error:
        return Outcome(False, f"cannot make {folder}: {error.strerror}")
    failures: list[str] = []
    for session_id in session_ids:
        path = os.path.join(folder, f"{session_id}.{fmt.value}")
        one = export_to_file(
            store,
            session_id,
            ExportRequest(path, fmt.value, redact=request.redact),
            workspace=workspace,
            now=now,
        )
        if not one.ok:
            failures.append(f"{session_id}: {one.message}")
    wrote = (
        f"wrote {len(session_ids) - len(failures)} of {len(session_ids)} transcripts to {folder}"
    )
    return Outcome(not failures, "; ".join([wrote, *failures]))


def running_refusal(session_id: str, running: Running) -> str:
    """Why a session an agent is writing now is not deleted, in one line."""
    return running.refusal("not deleting")


def rename_session(store: SessionStore, session_id: str, title: str) -> Outcome:
    """`/rename <title>` (the title already `clean_title`d): metadata only, updatedAt kept."""
    try:
        meta = store.update_title(session_id, title)
    except (StoreError, OSError) as error:
        return Outcome(False, f"Could not rename session: {error}")
    return Outcome(True, f"Session renamed to {meta.title}.", meta=meta)


# --- the commands ---------------------------------------------------------------------------

REGISTRY = Registry(
    [
        Command(
            "copy",
            "Copy the last answer; N: the N-th last one; code: pick one of its code blocks",
            args="[N | code]",
            contexts=frozenset({Context.TRANSCRIPT}),
            keys=(Key("ctrl+y", Context.TRANSCRIPT, "Copy", action="copy_highlighted"),),
        ),
        Command(
            "export",
            "Write the transcript to a file (default: txt in the workspace)",
            args=EXPORT_ARGS,
            keys=(
                Key("ctrl+s", Context.PICKER, "Export", action="export_dialog"),
                Key("ctrl+s", Context.TRANSCRIPT, "Export", action="export_dialog", show=False),
            ),
            context_help=(
                (Context.PICKER, "Write the highlighted session to a file, without opening it"),
            ),
        ),
        Command(
            "rename",
            "Rename the session (bare: edit the current title)",
            args="[title]",
            keys=(
                Key("f2", Context.PICKER, "Rename"),
                Key("f2", Context.TRANSCRIPT, "Rename", show=False),
            ),
            context_help=((Context.PICKER, "Rename the highlighted session"),),
        ),
        Command(
            "resume",
            "Open another session: latest, an id, or bare for the picker",
            args="[latest | ID]",
            aliases=("sessions",),
        ),
        Command(
            "new",
            "Start a new conversation in this workspace",
        ),
        Command(
            "retry",
            "Send the last prompt again, as a new turn",
            contexts=frozenset({Context.TRANSCRIPT}),
        ),
        Command(
            "edit",
            "Put the last prompt back in the editor, to change and send",
            contexts=frozenset({Context.TRANSCRIPT}),
        ),
        Command(
            "fork",
            "Fork the session at the highlighted turn (none highlighted: all of it), open it",
            args="[title]",
            contexts=frozenset({Context.TRANSCRIPT}),
            keys=(Key("ctrl+g", Context.TRANSCRIPT, "Fork"),),
        ),
        Command(
            "rewind",
            "Rewind the session and its files to the end of the highlighted turn (plan first)",
            contexts=frozenset({Context.TRANSCRIPT}),
        ),
        Command(
            "approve",
            "A denied tool call (the highlighted, else the last): allow and retry, or always",
            contexts=frozenset({Context.TRANSCRIPT}),
            keys=(Key("alt+a", Context.TRANSCRIPT, "Approve", show=False),),
        ),
        Command(
            "model",
            "The model for the next runs (bare: the configured default)",
            args="[ID]",
        ),
        Command(
            "auto",
            "Autonomy for the next runs: low (default), medium, or high (unsafe)",
            args="[low | medium | high]",
        ),
        Command(
            "usage",
            "Tokens per day over the last 30 days, the top sessions and models, Zero's cost",
        ),
        Command(
            "permissions",
            "Zero's persistent sandbox grants (always allowed tools): list and revoke",
            aliases=("grants",),
        ),
        Command("help", "List the commands and keys", aliases=("?",)),
        Command("quit", "Quit zero-tui", aliases=("exit",)),
    ],
    [
        # the transcript
        ScreenAction(
            "cancel_run",
            "Cancel the run",
            "Stop the agent (Esc; again: kill it now)",
            TRANSCRIPT_ONLY,
            keys=(Key("escape", Context.TRANSCRIPT, "Cancel run"),),
            id="back",  # Esc: it shares the key with `back`
        ),
        ScreenAction(
            "back",
            "Back to sessions",
            "Close this transcript (Esc)",
            TRANSCRIPT_ONLY,
            keys=(Key("escape", Context.TRANSCRIPT, "Back"),),
        ),
        ScreenAction(
            "open_parent",
            "Open the parent session",
            "The session this one was forked from, at the fork's turn (alt+p; Esc comes back)",
            TRANSCRIPT_ONLY,
            keys=(Key("alt+p", Context.TRANSCRIPT, "Parent"),),
        ),
        ScreenAction(
            "switch_focus('rows')",
            "Focus the rows",
            "From the editor to the rows (Tab)",
            TRANSCRIPT_ONLY,
            keys=(
                Key("tab", Context.TRANSCRIPT, "Rows"),
                Key("shift+tab", Context.TRANSCRIPT, "Rows", show=False),
            ),
            palette=False,
            id="focus",
        ),
        ScreenAction(
            "switch_focus('editor')",
            "Focus the editor",
            "From the rows to the editor (Tab)",
            TRANSCRIPT_ONLY,
            keys=(
                Key("tab", Context.TRANSCRIPT, "Prompt"),
                Key("shift+tab", Context.TRANSCRIPT, "Prompt", show=False),
            ),
            palette=False,
            id="focus",
        ),
        ScreenAction(
            "find",
            "Find in transcript",
            "Search the rows (ctrl+f; Enter / shift+Enter: next / previous)",
            TRANSCRIPT_ONLY,
            keys=(Key("ctrl+f", Context.TRANSCRIPT, "Find"),),
        ),
        ScreenAction(
            "toggle_card",
            "Expand or collapse tool output",
            "The highlighted tool card (ctrl+o, or Enter on the rows)",
            TRANSCRIPT_ONLY,
            keys=(Key("ctrl+o", Context.TRANSCRIPT, "Expand/collapse"),),
        ),
        ScreenAction(
            "previous_turn",
            "Previous turn",
            "Jump to the previous prompt (alt+up)",
            TRANSCRIPT_ONLY,
            keys=(Key("alt+up", Context.TRANSCRIPT, "Prev turn"),),
        ),
        ScreenAction(
            "next_turn",
            "Next turn",
            "Jump to the next prompt (alt+down)",
            TRANSCRIPT_ONLY,
            keys=(Key("alt+down", Context.TRANSCRIPT, "Next turn"),),
        ),
        ScreenAction(
            "page(-1)",
            "Page up",
            "Scroll up a page (PgUp)",
            TRANSCRIPT_ONLY,
            keys=(Key("pageup", Context.TRANSCRIPT, "Page up", show=False),),
            palette=False,
            id="page_up",
        ),
        ScreenAction(
            "page(1)",
            "Page down",
            "Scroll down a page (PgDn)",
            TRANSCRIPT_ONLY,
            keys=(Key("pagedown", Context.TRANSCRIPT, "Page down", show=False),),
            palette=False,
            id="page_down",
        ),
        ScreenAction(
            "top",
            "Top of transcript",
            "First row (ctrl+home)",
            TRANSCRIPT_ONLY,
            keys=(Key("ctrl+home", Context.TRANSCRIPT, "Top", show=False),),
        ),
        ScreenAction(
            "bottom",
            "Bottom of transcript",
            "Latest row (ctrl+end)",
            TRANSCRIPT_ONLY,
            keys=(Key("ctrl+end", Context.TRANSCRIPT, "Bottom", show=False),),
        ),
        ScreenAction(
            "quit_app",
            "Quit",
            "Quit zero-tui (q on the rows)",
            TRANSCRIPT_ONLY,
            keys=(Key("q", Context.TRANSCRIPT, "Quit"),),
            palette=False,
        ),
        # the picker
        ScreenAction(
            "scope('all')",
            "Sessions: all workspaces",
            "Tab: every workspace's sessions",
            PICKER_ONLY,
            keys=(Key("tab", Context.PICKER, "All workspaces"),),
        ),
        ScreenAction(
            "scope('this')",
            "Sessions: this workspace only",
            "Tab: back to this workspace",
            PICKER_ONLY,
            keys=(Key("tab", Context.PICKER, "This workspace"),),
        ),
        ScreenAction(
            "empty('show')",
            "Sessions: show empty runs",
            "ctrl+e: show the runs with no conversation",
            PICKER_ONLY,
            keys=(Key("ctrl+e", Context.PICKER, "Show empty"),),
        ),
        ScreenAction(
            "empty('hide')",
            "Sessions: hide empty runs",
            "ctrl+e: hide them again",
            PICKER_ONLY,
            keys=(Key("ctrl+e", Context.PICKER, "Hide empty"),),
        ),
        ScreenAction(
            "unreadable",
            "Sessions: the unreadable ones",
            "ctrl+g: sessions the store could not read, and why",
            PICKER_ONLY,
            keys=(Key("ctrl+g", Context.PICKER, "Unreadable"),),
        ),
        ScreenAction(
            "search_mode('content')",
            "Sessions: search what was said",
            "ctrl+t: search what was said: prompts, answers, tool output",
            PICKER_ONLY,
            keys=(Key("ctrl+t", Context.PICKER, "Search content"),),
        ),
        ScreenAction(
            "search_mode('title')",
            "Sessions: search titles",
            "ctrl+t: back to the title ranking",
            PICKER_ONLY,
            keys=(Key("ctrl+t", Context.PICKER, "Search titles"),),
        ),
        ScreenAction(
            "delete_session",
            "Sessions: move the highlighted session to the trash",
            "F8: move the highlighted session to zero-tui's trash (asks first; "
            "zero-tui restore brings it back)",
            PICKER_ONLY,
            keys=(Key("f8", Context.PICKER, "Delete"),),
        ),
        ScreenAction(
            "mark",
            "Sessions: mark the highlighted session",
            "ctrl+x: mark (or unmark) the highlighted session and move on; pin, tag, archive, "
            "F8 and ctrl+s then act on every marked one (Esc clears the marks)",
            PICKER_ONLY,
            keys=(Key("ctrl+x", Context.PICKER, "Mark", show=False),),
        ),
        ScreenAction(
            "pin",
            "Sessions: pin or unpin",
            "alt+p: pin the highlighted (or marked) sessions, listed first, or unpin them",
            PICKER_ONLY,
            keys=(Key("alt+p", Context.PICKER, "Pin", show=False),),
        ),
        ScreenAction(
            "tag_dialog",
            "Sessions: tag",
            "alt+t: add or remove tags (+work -old) of the highlighted (or marked) sessions",
            PICKER_ONLY,
            keys=(Key("alt+t", Context.PICKER, "Tag", show=False),),
        ),
        ScreenAction(
            "archive",
            "Sessions: archive or unarchive",
            "alt+a: archive the highlighted (or marked) sessions, hidden but kept, or bring "
            "them back",
            PICKER_ONLY,
            keys=(Key("alt+a", Context.PICKER, "Archive", show=False),),
        ),
        ScreenAction(
            "archived('show')",
            "Sessions: show the archived",
            "alt+h: list the archived sessions too",
            PICKER_ONLY,
            keys=(Key("alt+h", Context.PICKER, "Show archived", show=False),),
        ),
        ScreenAction(
            "archived('hide')",
            "Sessions: hide the archived",
            "alt+h: leave the archived sessions out again",
            PICKER_ONLY,
            keys=(Key("alt+h", Context.PICKER, "Hide archived", show=False),),
        ),
        ScreenAction(
            "rescan",
            "Sessions: scan again",
            "ctrl+r: scan the store again and say what changed (and sync the --host hosts)",
            PICKER_ONLY,
            keys=(Key("ctrl+r", Context.PICKER, "Rescan", show=False),),
        ),
        ScreenAction(
            "open",
            "Sessions: open the highlighted session",
            "Enter",
            PICKER_ONLY,
        ),
        ScreenAction(
            "move(-1)",
            "Up",
            "ctrl+p: the previous session (also ↑)",
            PICKER_ONLY,
            keys=(
                Key("ctrl+p", Context.PICKER, "Up", show=False),
                Key("up", Context.PICKER, "Up", show=False),
            ),
            palette=False,
            id="up",
        ),
        ScreenAction(
            "move(1)",
            "Down",
            "ctrl+n: the next session (also ↓)",
            PICKER_ONLY,
            keys=(
                Key("ctrl+n", Context.PICKER, "Down", show=False),
                Key("down", Context.PICKER, "Down", show=False),
            ),
            palette=False,
            id="down",
        ),
        ScreenAction(
            "page(-1)",
            "Page up",
            "PgUp: a page up",
            PICKER_ONLY,
            keys=(Key("pageup", Context.PICKER, "Page up", show=False),),
            palette=False,
            id="page_up",
        ),
        ScreenAction(
            "page(1)",
            "Page down",
            "PgDn: a page down",
            PICKER_ONLY,
            keys=(Key("pagedown", Context.PICKER, "Page down", show=False),),
            palette=False,
            id="page_down",
        ),
        ScreenAction(
            "first",
            "First session",
            "Home: the newest session",
            PICKER_ONLY,
            keys=(Key("home", Context.PICKER, "First", show=False),),
            palette=False,
        ),
        ScreenAction(
            "last",
            "Last session",
            "End: the oldest session",
            PICKER_ONLY,
            keys=(Key("end", Context.PICKER, "Last", show=False),),
            palette=False,
        ),
        ScreenAction(
            "go_up",
            "Enclosing folder",
            "alt+up: the nearest folder above this one with sessions",
            PICKER_ONLY,
            keys=(Key("alt+up", Context.PICKER, "Enclosing folder"),),
            palette=False,
            id="enclosing_folder",
        ),
        ScreenAction(
            "escape",
            "Clear the query",
            "Esc: clear the marks, else the query (with neither, it says how to quit: ctrl+q)",
            PICKER_ONLY,
            keys=(Key("escape", Context.PICKER, "Clear", show=False),),
            palette=False,
            id="clear",
        ),
    ],
)
"""Every command, in the order /help and the completion list show them, and every screen
action with its keys."""
