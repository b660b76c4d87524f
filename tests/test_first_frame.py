"""The picker's first frame (zero_tui/picker/first_frame): when it is drawn, what it draws,
and the terminal it leaves; and that Textual's first screen puts the same text in the same
cells."""

from __future__ import annotations

import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import sys
import termios
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from conftest import StoreBuilder, fixed_clock
from rich.color import Color, ColorSystem
from test_app_agent import whole_screen
from textual.pilot import Pilot

from zero_tui.picker import first_frame
from zero_tui.picker.first_frame import (
    ENTER,
    LEAVE,
    FrameText,
    PickerStart,
    color_mode,
    frame_lines,
    frame_text,
    picker_start,
    plain_lines,
    remembered_status,
    show_first_frame,
    terminal_ok,
    to_ansi,
)
from zero_tui.picker.head_cache import RememberedHead, head_path, load_head
from zero_tui.picker.loader import PickerLoader
from zero_tui.picker.session_rows import PickerRow, local_now, picker_rows
from zero_tui.picker.state import PickerState
from zero_tui.store.root import default_root
from zero_tui.store.workspace import resolve_workspace
from zero_tui.text.cells import cell_width
from zero_tui.ui.app import make_app
from zero_tui.ui.widgets.session_list import SessionList

W = "/home/u/proj"
TERMINAL = {"TERM": "xterm-256color"}
OURS = re.compile(r"\x1b\[(?:\?\d+[hl]|\d+;1H|[\d;]*m)")
"""The only escape sequences the frame may write: modes, cursor addresses, styles."""


# --- when --------------------------------------------------------------------------------


def test_only_a_plain_picker_start_gets_a_first_frame(tmp_path: Path) -> None:
    store = tmp_path / "store"
    store.mkdir()
    here = str(tmp_path)
    assert picker_start([]) == PickerStart(default_root(), resolve_workspace(None), False)
    expected = PickerStart(store, "/w/x", True)
    assert picker_start(["--store", str(store), "--cwd", "/w/x", "--all"]) == expected
    assert picker_start([f"--store={store}", "--all", "--cwd=/w/x"]) == expected
    assert picker_start(["--cwd", "rel"]) is not None
    for argv in (
        ["sessions"],
        ["--resume", "latest"],
        ["--demo"],
        ["--help"],
        ["--version"],
        ["--sto", str(store)],  # argparse's abbreviation: left to argparse
        ["--store"],
        ["--store", "--all"],
        ["--store", str(tmp_path / "missing")],  # the command line says no such store
        ["--cwd", here, "search", "x"],
    ):
        assert picker_start(argv) is None, argv


def test_only_a_terminal_both_ways_that_textual_drives_itself() -> None:
    controller, terminal = os.openpty()
    reading, writing = os.pipe()
    try:
        assert terminal_ok(TERMINAL, terminal, terminal)
        assert not terminal_ok({"TERM": "dumb"}, terminal, terminal)
        assert not terminal_ok({}, terminal, terminal)
        assert not terminal_ok({**TERMINAL, "TEXTUAL_DRIVER": "x:Y"}, terminal, terminal)
        assert not terminal_ok(TERMINAL, reading, terminal)
        assert not terminal_ok(TERMINAL, terminal, writing)
        assert not terminal_ok(TERMINAL, 9999, 9999)
    finally:
        for fd in (controller, terminal, reading, writing):
            os.close(fd)


def test_the_colours_follow_what_rich_will_use() -> None:
    assert color_mode({"COLORTERM": "truecolor", "TERM": "xterm"}) == "truecolor"
    assert color_mode({"TERM": "xterm-256color"}) == "256"
    assert color_mode({"TERM": "xterm"}) == ""
    assert color_mode({"TERM": "xterm-256color", "NO_COLOR": "1"}) == ""


def test_the_palette_is_textuals() -> None:
    """Each colour's true colour and 256-colour number as Rich turns one into the other."""
    names = [name for name in dir(first_frame) if name.endswith(("_BG", "_FG")) or name == "TEXT"]
    assert len(names) >= 10
    for name in names:
        rgb, number = getattr(first_frame, name)
        color = Color.from_rgb(*rgb)
        assert color.downgrade(ColorSystem.EIGHT_BIT).number == number, name


# --- what --------------------------------------------------------------------------------


def row(
    title: str, *, when: str = "Jul 04 10:00", model: str = "gpt-5", events: int = 12
) -> PickerRow:
    return PickerRow("s-" + title[:8], f"{when}  {title}", when, title, model, "", events, False, W)


def text_of(rows: list[PickerRow], status: str = "3 shown · scanning…") -> FrameText:
    return FrameText("Resume a session · /w", "type to filter", rows, status, "/home/u")


@pytest.mark.parametrize(("width", "height"), [(40, 8), (80, 24), (109, 30), (110, 30), (200, 50)])
def test_every_line_fills_the_screen_exactly(width: int, height: int) -> None:
    rows = [
        row("plain ascii title"),
        row("宽字符的标题每个字两格很长" * 6),
        row("emoji 🎉🎉🎉 and combining é̀ marks " * 4),
        row("no time", when=""),
    ]
    lines = plain_lines(frame_lines(text_of(rows), width, height))
    assert len(lines) == height
    assert [cell_width(line) for line in lines] == [width] * height
    assert lines[3].startswith(" Jul 04 10:00  plain ascii t")
    assert "…" in lines[4]  # cut, and said to be
    assert "…" in lines[5]
    assert any(line.startswith(" no time  ") for line in lines) == (height - 5 >= len(rows))


def test_a_hostile_title_is_drawn_as_visible_text() -> None:
    hostile = "evil\x1b]52;c;AAAA\x07 \x1b[2J\x9b31m \u202egnp.exe \x08\x08\r done"
    start = PickerStart(Path("/s"), "/w/\x1b[31mred", False)
    rows = picker_rows([_cached(hostile)], fixed_clock()())
    text = frame_text(start, None, fixed_clock()())
    text = FrameText(text.title, text.placeholder, rows, text.status, "/home/u")
    frame = to_ansi(frame_lines(text, 100, 12), "256")
    leftover = OURS.sub("", frame)
    assert not re.search("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", leftover)
    for visible in ("evil", "done", "red", "52;c;AAAA"):
        assert visible in leftover


def _cached(title: str) -> Any:
    from zero_tui.picker.head_cache import CachedSession

    return CachedSession("s1", title, W, "m", "p", "", "", "2026-07-04T10:00:00Z", 3)


def test_the_status_line_is_the_pickers_over_remembered_rows(
    make_store: Callable[..., StoreBuilder], tmp_path: Path
) -> None:
    builder = make_store()
    for number in range(3):
        builder.add(f"s{number}", title=f"Session {number}", cwd=W)
    builder.add("other", cwd="/elsewhere")
    loader = PickerLoader(builder.store, W, (False, False), clock=fixed_clock())
    loader.scan(lambda stage: None, shown=False)
    head = load_head(
        head_path(tmp_path / "zero-tui-cache", builder.store.root, W), builder.store.root, W
    )[(False, False)]
    stage = loader.remembered_rows(head).scope
    assert stage is not None
    state = PickerState(str(builder.store.root), W).with_rows(stage)
    shown = replace(state, shown=len(stage.rows))
    assert remembered_status(head, False) == shown.status()
    assert remembered_status(None, False) == PickerState().status()
    assert picker_start(["--cwd", W]) is not None
    assert frame_text(PickerStart(builder.store.root, W, False), head, fixed_clock()()).title == (
        state.title()
    )


# --- the terminal ------------------------------------------------------------------------


@pytest.fixture
def pty() -> Iterator[tuple[int, int]]:
    controller, terminal = os.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 120, 0, 0))
    try:
        yield controller, terminal
    finally:
        os.close(controller)
        os.close(terminal)


def drain(fd: int) -> bytes:
    os.set_blocking(fd, False)
    chunks = []
    try:
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
    except BlockingIOError:
        pass
    return b"".join(chunks)


def test_the_frame_takes_the_terminal_as_textual_does_and_gives_it_back(
    pty: tuple[int, int], make_store: Callable[..., StoreBuilder]
) -> None:
    controller, terminal = pty
    builder = make_store()
    builder.add("s1", title="The newest title", cwd=W)
    before = termios.tcgetattr(terminal)
    first = show_first_frame(
        ["--store", str(builder.root), "--cwd", W],
        environ=TERMINAL,
        in_fd=terminal,
        out_fd=terminal,
    )
    assert first is not None
    written = drain(controller).decode()
    assert written.startswith(ENTER)
    assert "Resume a session · /home/u/proj" in written
    assert "scanning the session store…" in written  # nothing remembered yet: a cold start
    mode = termios.tcgetattr(terminal)
    assert not mode[3] & (termios.ECHO | termios.ICANON | termios.ISIG | termios.IEXTEN)
    assert not mode[0] & termios.ICRNL  # Enter typed now reaches Textual as Enter

    os.write(controller, b"typed while Textual loads\r")  # kept: nothing is flushed
    assert select.select([terminal], [], [], 10)[0]  # the tty has taken it in, in our mode
    first.hand_over()
    assert termios.tcgetattr(terminal) == before  # what Textual saves and restores at exit
    first.close()  # Textual took the terminal over: nothing more is written
    assert drain(controller) == b""
    os.set_blocking(terminal, False)
    assert os.read(terminal, 100) == b"typed while Textual loads\r"


def test_without_textual_the_terminal_is_given_back_whole(
    pty: tuple[int, int], make_store: Callable[..., StoreBuilder]
) -> None:
    controller, terminal = pty
    builder = make_store()
    before = termios.tcgetattr(terminal)
    first = show_first_frame(
        ["--store", str(builder.root)], environ=TERMINAL, in_fd=terminal, out_fd=terminal
    )
    assert first is not None
    drain(controller)
    first.close()
    assert termios.tcgetattr(terminal) == before
    assert drain(controller).decode().endswith(LEAVE)


ENDED_BY_A_SIGNAL = """
import os, sys, time
from zero_tui.picker.first_frame import show_first_frame
fd = int(sys.argv[2])
first = show_first_frame(
    ["--store", sys.argv[1], "--cwd", "/w"], environ={"TERM": "xterm"}, in_fd=fd, out_fd=fd
)
print("shown" if first is not None else "no frame", flush=True)
time.sleep(60)
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_before_textual_gives_the_terminal_back(
    pty: tuple[int, int], make_store: Callable[..., StoreBuilder], signum: int
) -> None:
    """Killed while Textual loads (a third of a second), the process leaves the terminal
    as it found it, not in Textual's input mode on the alternate screen."""
    controller, terminal = pty
    builder = make_store()
    before = termios.tcgetattr(terminal)
    child = subprocess.Popen(
        [sys.executable, "-c", ENDED_BY_A_SIGNAL, str(builder.root), str(terminal)],
        stdout=subprocess.PIPE,
        text=True,
        pass_fds=(terminal,),
        env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1])),
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == "shown\n"
        assert termios.tcgetattr(terminal) != before  # Textual's input mode, for now
        child.send_signal(signum)
        assert child.wait(timeout=30) == -signum  # the signal's own end, as without a frame
    finally:
        child.kill()
        child.wait()
    assert termios.tcgetattr(terminal) == before
    assert drain(controller).decode().endswith(LEAVE)


def test_no_frame_and_no_change_when_it_does_not_apply(
    pty: tuple[int, int], make_store: Callable[..., StoreBuilder]
) -> None:
    controller, terminal = pty
    builder = make_store()
    before = termios.tcgetattr(terminal)
    store = ["--store", str(builder.root)]
    assert (
        show_first_frame(["sessions", *store], environ=TERMINAL, in_fd=terminal, out_fd=terminal)
        is None
    )
    assert (
        show_first_frame(store, environ={"TERM": "dumb"}, in_fd=terminal, out_fd=terminal) is None
    )
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 5, 30, 0, 0))
    assert show_first_frame(store, environ=TERMINAL, in_fd=terminal, out_fd=terminal) is None
    assert termios.tcgetattr(terminal) == before
    assert drain(controller) == b""


# --- the same cells as Textual's first screen ----------------------------------------------


def screen_lines(pilot: Pilot[Any]) -> list[str]:
    return whole_screen(pilot).split("\n")


@pytest.mark.parametrize(
    ("size", "every_workspace"),
    [((120, 30), False), ((200, 50), False), ((90, 24), False), ((150, 30), True)],
)
async def test_textual_draws_the_frames_rows_in_the_same_cells(
    make_store: Callable[..., StoreBuilder],
    tmp_path: Path,
    size: tuple[int, int],
    every_workspace: bool,
) -> None:
    builder = make_store()
    key = (every_workspace, False)
    for number in range(60):
        title = ["Fix the parser", "宽字符标题的会话", "A much longer title " * 4][number % 3]
        model = ["gpt-5", "claude-sonnet-4-5", ""][number % 3]
        where = [W, "/srv/elsewhere/a-project-with-a-long-name", ""][
            number % 3 if number % 2 else 0
        ]
        stamp = f"2026-07-0{1 + number % 3}T10:{number:02}:00Z"
        name, title = f"s{number:02}", f"{title} {number}"
        builder.add(name, title=title, cwd=where, model_id=model, updated_at=stamp)
    # forks name their parent in the title's cells: one listed, one in another workspace
    # (not in this workspace's head), one whose parent is gone (a short id)
    for number, parent in enumerate(["s00", "s01", "zero_20260101000000_gone"]):
        builder.add(
            f"fork{number}",
            title=f"Another way {number}",
            cwd=W,
            model_id="gpt-5",
            session_kind="fork",
            parent_session_id=parent,
            forked_from_sequence=2 + number,
            updated_at=f"2026-07-03T11:0{number}:00Z",
        )
    clock = fixed_clock()
    PickerLoader(builder.store, W, key, clock=clock).scan(lambda stage: None, shown=False)
    start = PickerStart(builder.store.root, W, every_workspace)
    cache = tmp_path / "zero-tui-cache"
    head = load_head(head_path(cache, start.store_root, W), start.store_root, W).get(key)
    assert head is not None
    now, tz = local_now(clock)
    ours = plain_lines(frame_lines(frame_text(start, head, now, tz), *size))

    remembered = RememberedHead(start.store_root, W, key, head)
    app = make_app(
        builder.store, cwd=W, all_workspaces=every_workspace, clock=clock, remembered=remembered
    )
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        session_list = app.screen.query_one(SessionList)
        assert session_list.row_count == len(head.sessions)  # at once, from the hand-over
        theirs = screen_lines(pilot)
    list_width = session_list.scrollable_content_region.width
    height = size[1]
    for line in range(3):
        assert ours[line].rstrip() == theirs[line].rstrip()
    for line in range(3, height - 2):
        assert ours[line][:list_width] == theirs[line][:list_width], line
    assert any("⑂ fork of “宽字符标题的会话" in line for line in ours)  # s01, elsewhere
