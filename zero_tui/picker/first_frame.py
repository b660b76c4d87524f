"""The picker's first frame, drawn before Textual is imported (a third of a second).

When `zero-tui` starts the picker on a terminal, the command line reads the remembered
first screen (zero_tui.picker.head_cache: one small file) and draws it in plain ANSI, laid
out as the Textual picker lays out its first screen: the title line, the query line, the
rows with their titles in the same cells, the status line. With nothing remembered (a cold
cache) the frame says that the store is being scanned, as the picker does. The rows read
are handed to the picker (`RememberedHead`), which shows them at once: Textual's first
screen draws the same rows over the frame, never an empty list in between.

The terminal is taken as Textual takes it: the alternate screen, the cursor hidden, line
wrap off, and the tty in Textual's input mode (no echo, not canonical, no signals), set with
TCSANOW so that nothing typed is flushed: keys typed while Textual loads wait in the tty and
reach the picker. `FirstFrame.hand_over` puts the tty back as it was just before Textual's
driver saves it (Textual restores what it saved at exit); `FirstFrame.close` gives the whole
terminal back when Textual never took it over (an error before the app ran).

No Textual or Rich import here, and nothing heavier than the head cache: this runs before
the rest of zero-tui is loaded. Session text is data: every title is sanitised.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zero_tui.paths import default_cache_dir
from zero_tui.picker.head_cache import RememberedHead, ScopeHead, head_path, load_head
from zero_tui.picker.row_layout import NaturalWidths, natural_widths, pad, row_layout, row_text
from zero_tui.picker.session_rows import (
    PickerRow,
    head_rows,
    local_now,
    picker_title,
    query_placeholder,
    scanning_text,
    status_text,
)
from zero_tui.store.root import store_root
from zero_tui.store.workspace import resolve_workspace
from zero_tui.text.cells import cell_width
from zero_tui.text.sanitize import sanitize_line

if TYPE_CHECKING:
    from collections.abc import Callable

ENDING_SIGNALS = (signal.SIGHUP, signal.SIGTERM)
"""Signals that end the process before Textual's handlers (zero_tui.ui.hangup) are set."""
MIN_WIDTH = 40
MIN_HEIGHT = 8
NARROW_WIDTH = 110  # the picker hides the preview on a narrower screen (session_list)
PREVIEW_PERCENT = 36  # the preview's width, of the body's (styles/picker.tcss)
PREVIEW_MIN = 30
EMPTY_LIST = "scanning the session store…"  # the list's first line with no rows yet

# Textual's default theme as the picker's styles compute it, true colour and the 256-colour
# number Rich turns it into (tests/test_first_frame.py holds them to Textual's).
Color = tuple[tuple[int, int, int], int]
SCREEN_BG: Color = ((18, 18, 18), 233)
TEXT: Color = ((224, 224, 224), 253)
PANEL_BG: Color = ((36, 47, 56), 17)
TITLE_FG: Color = ((226, 227, 229), 253)
QUERY_BG: Color = ((39, 39, 39), 235)
PLACEHOLDER_FG: Color = ((121, 121, 121), 243)
BORDER_FG: Color = ((12, 48, 76), 23)
LIST_BG: Color = ((30, 30, 30), 234)
DETAIL_FG: Color = ((165, 165, 165), 247)
WORKSPACE_FG: Color = ((86, 132, 165), 67)
FORK_FG: Color = ((255, 196, 115), 222)
CURSOR_FG: Color = ((221, 237, 249), 195)
CURSOR_BG: Color = ((1, 120, 212), 32)
STATUS_FG: Color = ((167, 171, 175), 248)


@dataclass(frozen=True, slots=True)
class Look:
    """How one run of text is drawn."""

    fg: Color
    bg: Color
    bold: bool = False
    italic: bool = False


SCREEN = Look(TEXT, SCREEN_BG)
TITLE = Look(TITLE_FG, PANEL_BG, bold=True)
QUERY = Look(TEXT, QUERY_BG)
PLACEHOLDER = Look(PLACEHOLDER_FG, QUERY_BG)
BORDER = Look(BORDER_FG, SCREEN_BG)
ROW = Look(TEXT, LIST_BG)
DETAIL = Look(DETAIL_FG, LIST_BG)
WORKSPACE = Look(WORKSPACE_FG, LIST_BG)
FORK = Look(FORK_FG, LIST_BG)
CURSOR = Look(CURSOR_FG, CURSOR_BG, bold=True)
MESSAGE = Look(DETAIL_FG, LIST_BG, italic=True)
STATUS = Look(STATUS_FG, PANEL_BG)
FOOTER = Look(TEXT, PANEL_BG)

TtyModes = list[Any]  # termios.tcgetattr's list: iflag, oflag, cflag, lflag, speeds, cc

Span = tuple[str, Look]
Line = list[Span]


# --- when there is a first frame ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PickerStart:
    """The picker a command line starts: its store, workspace and first scope."""

    store_root: Path
    workspace: str
    all_workspaces: bool


def picker_start(argv: Sequence[str]) -> PickerStart | None:
    """What `zero-tui ARGV` starts when it starts the picker and nothing else: only
    `--store DIR`, `--cwd DIR` (or `--opt=VALUE`) and `--all`, an existing store. Anything
    else (a subcommand, --resume, --demo, --help, an abbreviation, a usage error) is None:
    the command line decides it as before, without a first frame."""
    values: dict[str, str] = {}
    all_workspaces = False
    index = 0
    while index < len(argv):
        argument = argv[index]
        index += 1
        if argument == "--all":
            all_workspaces = True
            continue
        name, equals, value = argument.partition("=")
        if name not in ("--store", "--cwd"):
            return None
        if not equals:
            if index >= len(argv):
                return None
            value = argv[index]
            index += 1
        if value.startswith("-"):
            return None  # argparse takes it for an option, and says so
        values[name] = value
    given = values.get("--store")
    if given is not None and not Path(given).is_dir():
        return None  # the command line says there is no such store
    return PickerStart(store_root(given), resolve_workspace(values.get("--cwd")), all_workspaces)


def color_mode(environ: Mapping[str, str]) -> str:
    """The colours Textual will use ("truecolor", "256", or "" for none of ours), as Rich
    decides from the environment."""
    if environ.get("NO_COLOR", ""):
        return ""
    if environ.get("COLORTERM", "").strip().lower() in ("truecolor", "24bit"):
        return "truecolor"
    term = environ.get("TERM", "").strip().lower()
    if term.rpartition("-")[2] in ("256color", "kitty"):
        return "256"
    return ""


def terminal_ok(environ: Mapping[str, str], in_fd: int, out_fd: int) -> bool:
    """A terminal Textual's own driver will run on, both ways."""
    term = environ.get("TERM", "")
    if not term or term == "dumb" or environ.get("TEXTUAL_DRIVER") or sys.platform == "win32":
        return False
    try:
        return os.isatty(in_fd) and os.isatty(out_fd)
    except OSError:
        return False


# --- the frame ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FrameText:
    """What the first frame says (all of it made safe for the terminal)."""

    title: str
    placeholder: str
    rows: Sequence[PickerRow]
    status: str
    home: str  # what a workspace is shown relative to (~)
    show_workspace: bool = False  # every workspace is listed: each row says its own


def remembered_status(head: ScopeHead | None, all_workspaces: bool) -> str:
    """The status line the picker shows over the remembered rows while it scans."""
    if head is None or not head.sessions:
        return scanning_text(None)
    return status_text(
        shown=len(head.sessions),
        total_in_scope=len(head.sessions),
        query="",
        all_workspaces=all_workspaces,
        include_empty=False,
        other_workspace=head.other_workspace,
        empty_runs=head.empty_runs,
        not_resumable=head.not_resumable,
        loading=True,
    )


def frame_text(
    start: PickerStart,
    head: ScopeHead | None,
    now: datetime,
    tz: tzinfo | None = None,
    *,
    home: str = "",
) -> FrameText:
    rows = head_rows(head.sessions, now, tz) if head is not None else []
    return FrameText(
        title=picker_title(start.workspace),
        placeholder=query_placeholder(),
        rows=rows,
        status=sanitize_line(remembered_status(head, start.all_workspaces)),
        home=home or os.path.expanduser("~"),
        show_workspace=start.all_workspaces,
    )


def frame_lines(text: FrameText, width: int, height: int) -> list[Line]:
    """The picker's first screen at `width` x `height`, line by line, as Textual lays it out:
    a body two cells narrower than the screen (the query's margins), the preview beside the
    list from NARROW_WIDTH on (empty, as Textual first shows it), a scroll bar's cell when
    the rows do not fit, and the footer left blank."""
    body = width - 2
    preview = 0
    if width >= NARROW_WIDTH:
        preview = max(PREVIEW_MIN, body * PREVIEW_PERCENT // 100)
    list_width = body - preview
    list_height = height - 5
    scrollbar = 1 if len(text.rows) > list_height else 0
    inner = list_width - scrollbar
    lines: list[Line] = [
        [(" " + pad(sanitize_line(text.title), width - 2) + " ", TITLE)],
        [(" ", SCREEN), (pad(text.placeholder, body), PLACEHOLDER), (" ", SCREEN)],
        [("─" * body, BORDER), ("  ", SCREEN)],
    ]
    rows = list(text.rows[:list_height])
    # No tokens column: the picker's first screen has no tokens yet (the scan posts them
    # after its rows), so Textual's first screen leaves the column out as well.
    natural = natural_widths(rows, show_workspace=text.show_workspace, home=text.home)
    for line in range(list_height):
        spans: Line = []
        if line < len(rows):
            spans += _row_spans(rows[line], inner, natural, cursor=line == 0, home=text.home)
        elif line == 0:
            spans.append((pad(EMPTY_LIST, inner), MESSAGE))
        else:
            spans.append((" " * inner, ROW))
        if scrollbar:
            spans.append((" ", ROW))
        if preview:
            spans += [("│", BORDER), (" " * (preview - 1), SCREEN)]
        spans.append(("  ", SCREEN))
        lines.append(spans)
    lines.append([(" " + pad(text.status, width - 2) + " ", STATUS)])
    lines.append([(" " * width, FOOTER)])
    return lines


def _row_spans(
    row: PickerRow, width: int, natural: NaturalWidths, *, cursor: bool, home: str
) -> list[Span]:
    layout = row_layout(width, natural, timed=bool(row.when))
    text = row_text(row, layout, home=home)
    plain, detail = (CURSOR, CURSOR) if cursor else (ROW, DETAIL)
    spans: list[Span] = [(" ", plain)]
    if layout.time:
        spans += [(row.when.ljust(layout.time), detail), ("  ", plain)]
    spans.append((text.title, plain))
    if text.lineage:
        spans.append((text.lineage, CURSOR if cursor else FORK))
    spans.append((" " * text.title_pad, plain))
    if text.workspace:
        spans.append((text.workspace, CURSOR if cursor else WORKSPACE))
    if text.model:
        spans.append((text.model, detail))
    spans.append((text.count, detail))
    used = sum(cell_width(part) for part, _look in spans)
    if used < width:
        spans.append((" " * (width - used), plain))
    return spans


def plain_lines(lines: Sequence[Line]) -> list[str]:
    """The frame's text, line by line (for tests and for a terminal without our colours)."""
    return ["".join(text for text, _look in line) for line in lines]


def _sgr(look: Look, mode: str) -> str:
    codes = ["0"]
    if look.bold:
        codes.append("1")
    if look.italic:
        codes.append("3")
    for base, (rgb, number) in ((38, look.fg), (48, look.bg)):
        if mode == "truecolor":
            codes.append(f"{base};2;{rgb[0]};{rgb[1]};{rgb[2]}")
        elif mode == "256":
            codes.append(f"{base};5;{number}")
    if not mode and look is CURSOR:
        codes.append("7")  # the highlight still shows without colours
    return "\x1b[" + ";".join(codes) + "m"


def to_ansi(lines: Sequence[Line], mode: str) -> str:
    """The frame as one write: each line placed by cursor address, styles reset after."""
    out: list[str] = []
    for number, line in enumerate(lines, start=1):
        out.append(f"\x1b[{number};1H")
        last: Look | None = None
        for text, look in line:
            if look != last:
                out.append(_sgr(look, mode))
                last = look
            out.append(text)
    out.append("\x1b[0m")
    return "".join(out)


# --- the terminal -------------------------------------------------------------------------

ENTER = "\x1b[?1049h\x1b[?25l\x1b[?7l"  # alternate screen, cursor hidden, no line wrap
LEAVE = "\x1b[0m\x1b[?7h\x1b[?25h\x1b[?1049l"


def textual_input_mode(attributes: TtyModes, environ: Mapping[str, str]) -> TtyModes:
    """`attributes` as Textual's Linux driver sets them for its input (its _patch_lflag and
    _patch_iflag, VMIN 1): keys typed meanwhile are kept as Textual would read them."""
    import termios

    changed = list(attributes)
    signals = 0 if environ.get("TEXTUAL_ALLOW_SIGNALS") else termios.ISIG
    changed[0] &= ~(termios.IXON | termios.IXOFF | termios.ICRNL | termios.INLCR | termios.IGNCR)
    changed[3] &= ~(termios.ECHO | termios.ICANON | termios.IEXTEN | signals)
    control = list(changed[6])
    control[termios.VMIN] = 1
    changed[6] = control
    return changed


class FirstFrame:
    """The first frame on screen and the terminal held for Textual (see the module)."""

    def __init__(
        self, in_fd: int, out_fd: int, saved: TtyModes, remembered: RememberedHead
    ) -> None:
        self._in_fd = in_fd
        self._out_fd = out_fd
        self._saved: TtyModes | None = saved
        self._handed_over = False
        self.remembered = remembered

    def _restore_input(self) -> None:
        import termios

        saved, self._saved = self._saved, None
        if saved is not None:
            with contextlib.suppress(termios.error, OSError):
                termios.tcsetattr(self._in_fd, termios.TCSANOW, saved)

    def on_ending_signal(self, signum: int, frame: object) -> None:
        """SIGTERM or SIGHUP before Textual took over (whose own handlers replace this one):
        the terminal back as it was, then the signal's default end."""
        self.close()
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    def hand_over(self) -> None:
        """Textual's driver takes the terminal now: the tty as it was before the frame (the
        mode Textual saves and restores at exit); the screen stays as the frame left it."""
        self._handed_over = True
        self._restore_input()

    def close(self) -> None:
        """Give the terminal back as it was, unless Textual took it over (and gave it back)."""
        if self._handed_over:
            return
        self._handed_over = True
        self._restore_input()
        with contextlib.suppress(OSError):
            _write_all(self._out_fd, LEAVE.encode())


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def show_first_frame(
    argv: Sequence[str],
    *,
    environ: Mapping[str, str] | None = None,
    in_fd: int = 0,
    out_fd: int = 1,
    cache_dir: Path | None = None,
    clock: Callable[[], datetime] | None = None,
) -> FirstFrame | None:
    """Draw the picker's first frame when `argv` starts the picker on a terminal big enough;
    the frame, to hand over to the picker, or None (nothing was changed). Any failure falls
    back to a start without a first frame, the terminal as it was."""
    env = os.environ if environ is None else environ
    try:
        if not terminal_ok(env, in_fd, out_fd):
            return None
        start = picker_start(argv)
        if start is None:
            return None
        width, height = os.get_terminal_size(out_fd)
        if width < MIN_WIDTH or height < MIN_HEIGHT:
            return None
        import termios  # not on Windows (terminal_ok said no there already)

        key = (start.all_workspaces, False)
        path = head_path(cache_dir or default_cache_dir(), start.store_root, start.workspace)
        head = load_head(path, start.store_root, start.workspace).get(key)
        now, tz = local_now(clock)
        frame = to_ansi(
            frame_lines(frame_text(start, head, now, tz), width, height), color_mode(env)
        )
        saved = termios.tcgetattr(in_fd)
    except Exception:  # whatever it is, the picker starts as it would have without a frame
        return None
    remembered = RememberedHead(start.store_root, start.workspace, key, head)
    first = FirstFrame(in_fd, out_fd, saved, remembered)
    try:
        termios.tcsetattr(in_fd, termios.TCSANOW, textual_input_mode(saved, env))
        _write_all(out_fd, (ENTER + frame).encode("utf-8", "replace"))
        for signum in ENDING_SIGNALS:
            signal.signal(signum, first.on_ending_signal)
    except Exception:
        first.close()
        return None
    return first
