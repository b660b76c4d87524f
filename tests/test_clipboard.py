"""The clipboard planner and executor: the exact bytes and commands for each environment."""

from __future__ import annotations

import base64
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pyperclip
import pytest

from zero_tui import clipboard
from zero_tui.clipboard import (
    NO_TOOL,
    OSC52_MAX_BASE64,
    SCREEN_DCS_LIMIT,
    NativeClipboardUnavailable,
    NativeStep,
    TerminalStep,
    TmuxBufferStep,
    TmuxOptions,
    copy_text,
    plan_copy,
    sanitize,
    screen_wrap,
    tmux_options,
)

# "héllo" after the ESC, BEL and CR are stripped; its UTF-8 base64 is "aMOpbGxv".
HOSTILE = "h\x1b\u00e9l\x07l\ro"
CLEAN = "h\u00e9llo"
PLAIN = b"\x1b]52;c;aMOpbGxv\x07"
WRAPPED = b"\x1bPtmux;\x1b\x1b]52;c;aMOpbGxv\x07\x1b\\"
SCREEN = b"\x1bP\x1b]52;c;aMOpbGxv\x07\x1b\\"

LOCAL: dict[str, str] = {"TERM": "xterm-256color", "DISPLAY": ":0"}
SSH: dict[str, str] = {"TERM": "xterm-256color", "SSH_CONNECTION": "10.0.0.1 5 10.0.0.2 22"}
TMUX: dict[str, str] = {"TMUX": "/tmp/tmux-1000/default,123,0", "TMUX_PANE": "%0"}


class Terminal:
    """Records what the executor writes to the terminal."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []

    def __call__(self, data: bytes) -> None:
        self.writes.append(data)


class Native:
    """A stand-in for pyperclip; `error` makes it fail the way the real one can."""

    def __init__(self, error: Exception | None = None) -> None:
        self.error = error
        self.copied: list[str] = []

    def __call__(self, text: str) -> None:
        if self.error is not None:
            raise self.error
        self.copied.append(text)


def no_tool() -> Native:
    return Native(NativeClipboardUnavailable(NO_TOOL))


@dataclass
class Call:
    argv: list[str]
    input: bytes | None
    kwargs: dict[str, Any]


@dataclass
class FakeTmux:
    """Answers `show-options` with the given settings and records `load-buffer`."""

    set_clipboard: str = "external"
    allow_passthrough: str = "off"
    probe_fails: bool = False
    load_buffer_error: bytes | None = None
    calls: list[Call] = field(default_factory=list)

    def __call__(self, args: Sequence[str], **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
        argv = list(args)
        self.calls.append(Call(argv, kwargs.get("input"), kwargs))
        if argv[:2] == ["tmux", "show-options"]:
            if self.probe_fails:
                raise subprocess.TimeoutExpired(argv, 5.0)
            value = self.set_clipboard if argv[-1] == "set-clipboard" else self.allow_passthrough
            return subprocess.CompletedProcess(argv, 0, value.encode() + b"\n", b"")
        if argv[:2] == ["tmux", "load-buffer"]:
            if self.load_buffer_error is not None:
                return subprocess.CompletedProcess(argv, 1, b"", self.load_buffer_error)
            return subprocess.CompletedProcess(argv, 0, b"", b"")
        raise AssertionError(f"unexpected command {argv}")

    def load_buffers(self) -> list[tuple[list[str], bytes | None]]:
        return [(c.argv, c.input) for c in self.calls if c.argv[1] == "load-buffer"]


def test_sanitize_removes_c0_and_del_but_keeps_tab_newline_c1_and_the_rest() -> None:
    every = "".join(chr(c) for c in range(0xA1)) + "é中😀\u2028"
    kept = (
        "\t\n"
        + "".join(chr(c) for c in range(0x20, 0x7F))
        + "".join(chr(c) for c in range(0x80, 0xA1))
    )
    assert sanitize(every) == kept + "é中😀\u2028"
    assert sanitize(HOSTILE) == CLEAN


def test_local_pyperclip_works_so_nothing_reaches_the_terminal() -> None:
    terminal, native = Terminal(), Native()
    result = copy_text(HOSTILE, env=LOCAL, write_terminal=terminal, native_copy=native)
    assert native.copied == [CLEAN]
    assert terminal.writes == []
    assert result.ok
    assert result.methods == ["system clipboard"]
    assert result.characters == 5
    assert result.message == "Copied 5 characters (system clipboard)"


def test_local_pyperclip_failing_falls_back_to_plain_osc52() -> None:
    terminal = Terminal()
    result = copy_text(HOSTILE, env=LOCAL, write_terminal=terminal, native_copy=no_tool())
    assert terminal.writes == [PLAIN]
    assert result.ok
    assert result.message == "Copied 5 characters (OSC 52)"


def test_the_plan_for_local_is_native_then_osc52_as_fallback() -> None:
    plan = plan_copy(HOSTILE, LOCAL)
    assert plan.text == CLEAN
    assert plan.steps == (NativeStep(), TerminalStep(PLAIN, "OSC 52", when="if_none_succeeded"))


def test_ssh_without_display_sends_osc52_only() -> None:
    terminal, native = Terminal(), Native()
    result = copy_text(HOSTILE, env=SSH, write_terminal=terminal, native_copy=native)
    assert terminal.writes == [PLAIN]
    assert native.copied == []
    assert result.message == "Copied 5 characters (OSC 52)"


@pytest.mark.parametrize("variable", ["SSH_TTY", "SSH_CONNECTION", "SSH_CLIENT"])
def test_each_ssh_variable_counts_as_ssh(variable: str) -> None:
    terminal, native = Terminal(), Native()
    env = {variable: "x"}
    copy_text(CLEAN, env=env, write_terminal=terminal, native_copy=native)
    assert (terminal.writes, native.copied) == ([PLAIN], [])


@pytest.mark.parametrize("display", [{"DISPLAY": "localhost:10.0"}, {"WAYLAND_DISPLAY": "w-0"}])
def test_ssh_with_a_forwarded_display_sends_osc52_and_uses_pyperclip(
    display: dict[str, str],
) -> None:
    terminal, native = Terminal(), Native()
    result = copy_text(HOSTILE, env=SSH | display, write_terminal=terminal, native_copy=native)
    assert terminal.writes == [PLAIN]
    assert native.copied == [CLEAN]
    assert result.methods == ["OSC 52", "system clipboard"]
    assert result.message == "Copied 5 characters (OSC 52 + system clipboard)"


def test_ssh_with_display_but_pyperclip_failing_still_reports_osc52() -> None:
    terminal = Terminal()
    env = SSH | {"DISPLAY": "localhost:10.0"}
    result = copy_text(CLEAN, env=env, write_terminal=terminal, native_copy=no_tool())
    assert terminal.writes == [PLAIN]
    assert result.ok
    assert result.methods == ["OSC 52"]


@pytest.mark.parametrize(
    ("set_clipboard", "allow_passthrough"),
    [("on", "off"), ("external", "off"), ("off", "on"), ("off", "off"), ("on", "on")],
)
def test_tmux_uses_load_buffer_w_in_every_setting(
    set_clipboard: str, allow_passthrough: str
) -> None:
    tmux = FakeTmux(set_clipboard, allow_passthrough)
    terminal = Terminal()
    env = LOCAL | TMUX
    result = copy_text(HOSTILE, env=env, write_terminal=terminal, run=tmux, native_copy=no_tool())
    assert tmux.load_buffers() == [(["tmux", "load-buffer", "-w", "-"], CLEAN.encode())]
    assert terminal.writes == []
    assert result.methods == ["tmux buffer", "OSC 52 through tmux"]
    assert result.message == "Copied 5 characters (tmux buffer + OSC 52 through tmux)"
    load = next(c for c in tmux.calls if c.argv[1] == "load-buffer")
    assert load.kwargs["env"] == env
    assert load.kwargs["timeout"] > 0
    assert load.kwargs["check"] is False


def test_tmux_probe_asks_for_both_options_with_the_pane_environment() -> None:
    tmux = FakeTmux("on", "on")
    env = LOCAL | TMUX
    assert tmux_options(env, tmux) == TmuxOptions("on", "on")
    assert [c.argv for c in tmux.calls] == [
        ["tmux", "show-options", "-gqv", "set-clipboard"],
        ["tmux", "show-options", "-Apqv", "allow-passthrough"],
    ]
    assert all(c.kwargs["env"] == env and c.kwargs["timeout"] > 0 for c in tmux.calls)


def test_tmux_probe_failure_reads_as_unknown() -> None:
    assert tmux_options(TMUX, FakeTmux(probe_fails=True)) == TmuxOptions(None, None)

    def missing(args: Sequence[str], **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
        raise FileNotFoundError(args[0])

    assert tmux_options(TMUX, missing) == TmuxOptions(None, None)


def test_tmux_with_pyperclip_working_loads_the_buffer_without_w() -> None:
    tmux, terminal, native = FakeTmux("on", "off"), Terminal(), Native()
    result = copy_text(
        HOSTILE, env=LOCAL | TMUX, write_terminal=terminal, run=tmux, native_copy=native
    )
    assert native.copied == [CLEAN]
    assert tmux.load_buffers() == [(["tmux", "load-buffer", "-"], CLEAN.encode())]
    assert terminal.writes == []
    assert result.message == "Copied 5 characters (system clipboard + tmux buffer)"


@pytest.mark.parametrize(
    ("set_clipboard", "allow_passthrough", "written"),
    [
        ("on", "off", PLAIN),
        ("off", "on", WRAPPED),
        ("external", "all", WRAPPED),
        ("on", "on", PLAIN + WRAPPED),
        ("on", "", PLAIN + WRAPPED),  # tmux < 3.3: no such option, passthrough always on
    ],
)
def test_tmux_command_failing_falls_back_to_the_sequences_tmux_accepts(
    set_clipboard: str, allow_passthrough: str, written: bytes
) -> None:
    tmux = FakeTmux(set_clipboard, allow_passthrough, load_buffer_error=b"unknown flag -w")
    terminal = Terminal()
    result = copy_text(
        HOSTILE, env=LOCAL | TMUX, write_terminal=terminal, run=tmux, native_copy=no_tool()
    )
    assert terminal.writes == [written]
    assert result.methods == ["OSC 52 through tmux"]
    assert result.message == "Copied 5 characters (OSC 52 through tmux)"


def test_tmux_unreachable_writes_both_sequences() -> None:
    tmux = FakeTmux(probe_fails=True, load_buffer_error=b"no server")
    terminal = Terminal()
    result = copy_text(CLEAN, env=SSH | TMUX, write_terminal=terminal, run=tmux)
    assert terminal.writes == [PLAIN + WRAPPED]
    assert result.ok


def test_tmux_with_every_route_off_and_no_command_says_why() -> None:
    tmux = FakeTmux("external", "off", load_buffer_error=b"unknown flag -w")
    terminal = Terminal()
    result = copy_text(
        CLEAN, env=LOCAL | TMUX, write_terminal=terminal, run=tmux, native_copy=no_tool()
    )
    assert terminal.writes == []
    assert not result.ok
    assert result.message == (
        f"No clipboard: {NO_TOOL} and tmux load-buffer failed: unknown flag -w"
    )


def test_ssh_inside_tmux_never_uses_pyperclip_without_display() -> None:
    tmux, terminal, native = FakeTmux("external", "off"), Terminal(), Native()
    result = copy_text(
        HOSTILE, env=SSH | TMUX, write_terminal=terminal, run=tmux, native_copy=native
    )
    assert native.copied == []
    assert tmux.load_buffers() == [(["tmux", "load-buffer", "-w", "-"], CLEAN.encode())]
    assert terminal.writes == []
    assert result.message == "Copied 5 characters (tmux buffer + OSC 52 through tmux)"


def test_screen_chunks_short_text_into_one_dcs() -> None:
    terminal = Terminal()
    env = SSH | {"STY": "1234.pts-0.host"}
    result = copy_text(HOSTILE, env=env, write_terminal=terminal, native_copy=Native())
    assert terminal.writes == [SCREEN]
    assert result.message == "Copied 5 characters (OSC 52 through screen)"


def test_screen_chunks_long_text_into_dcs_strings_screen_keeps() -> None:
    text = "0123456789abcdef" * 200
    sequence = b"\x1b]52;c;" + base64.b64encode(text.encode()) + b"\x07"
    terminal = Terminal()
    copy_text(text, env=SSH | {"STY": "1.x"}, write_terminal=terminal)
    (written,) = terminal.writes
    pieces = written.split(b"\x1b\\")
    assert pieces[-1] == b""
    pieces = pieces[:-1]
    assert all(p.startswith(b"\x1bP") for p in pieces)
    assert all(len(p) + 2 <= SCREEN_DCS_LIMIT for p in pieces)
    assert [len(p) + 2 for p in pieces[:-1]] == [SCREEN_DCS_LIMIT] * (len(pieces) - 1)
    assert b"".join(p[2:] for p in pieces) == sequence
    assert written[:SCREEN_DCS_LIMIT] == b"\x1bP" + sequence[: SCREEN_DCS_LIMIT - 4] + b"\x1b\\"


def test_screen_wrap_of_an_exact_multiple() -> None:
    assert screen_wrap(b"abcdef", limit=7) == b"\x1bPabc\x1b\\\x1bPdef\x1b\\"


def test_tmux_wins_over_screen_when_both_are_set() -> None:
    plan = plan_copy(CLEAN, SSH | TMUX | {"STY": "1.x"}, tmux=TmuxOptions("on", "off"))
    assert plan.steps == (
        TmuxBufferStep(CLEAN.encode(), forward=True),
        TerminalStep(PLAIN, "OSC 52 through tmux", when="if_none_succeeded"),
    )


# 56,244 bytes encode to 74,992 base64 bytes (allowed), 56,245 to 74,996 (over 74,994).
LONGEST = "a" * 56_244
TOO_LONG = "a" * 56_245


def test_the_limit_boundary() -> None:
    assert plan_copy(LONGEST, SSH).base64_length <= OSC52_MAX_BASE64
    assert not plan_copy(LONGEST, SSH).too_long
    assert plan_copy(TOO_LONG, SSH).base64_length > OSC52_MAX_BASE64
    assert plan_copy(TOO_LONG, SSH).too_long
    terminal = Terminal()
    copy_text(LONGEST, env=SSH, write_terminal=terminal)
    assert terminal.writes == [b"\x1b]52;c;" + base64.b64encode(LONGEST.encode()) + b"\x07"]


def test_over_the_limit_over_ssh_is_not_sent_and_offers_export() -> None:
    terminal, native = Terminal(), Native()
    result = copy_text(TOO_LONG, env=SSH, write_terminal=terminal, native_copy=native)
    assert terminal.writes == []
    assert native.copied == []
    assert not result.ok
    assert result.message == (
        "Not copied: 56,245 characters is more than a terminal accepts over OSC 52 — use /export"
    )


def test_over_the_limit_locally_still_uses_pyperclip() -> None:
    terminal, native = Terminal(), Native()
    result = copy_text(TOO_LONG, env=LOCAL, write_terminal=terminal, native_copy=native)
    assert native.copied == [TOO_LONG]
    assert terminal.writes == []
    assert result.ok
    assert result.message == (
        "Copied 56,245 characters (system clipboard) — too long for the terminal over OSC 52"
    )


def test_over_the_limit_locally_without_pyperclip_says_why() -> None:
    terminal = Terminal()
    result = copy_text(TOO_LONG, env=LOCAL, write_terminal=terminal, native_copy=no_tool())
    assert terminal.writes == []
    assert not result.ok
    assert result.message == (
        "Not copied: 56,245 characters is more than a terminal accepts over OSC 52 "
        f"({NO_TOOL}) — use /export"
    )


def test_over_the_limit_in_tmux_fills_the_buffer_without_forwarding() -> None:
    tmux, terminal = FakeTmux("on", "on"), Terminal()
    result = copy_text(TOO_LONG, env=SSH | TMUX, write_terminal=terminal, run=tmux)
    assert tmux.load_buffers() == [(["tmux", "load-buffer", "-"], TOO_LONG.encode())]
    assert terminal.writes == []
    assert result.message == (
        "Copied 56,245 characters (tmux buffer) — too long for the terminal over OSC 52"
    )


def test_no_clipboard_and_no_terminal() -> None:
    result = copy_text(CLEAN, env=LOCAL, write_terminal=None, native_copy=no_tool())
    assert not result.ok
    assert result.methods == []
    assert result.message == (
        "No clipboard: pyperclip found no copy tool (install xclip, xsel or wl-clipboard) "
        "and the terminal is not reachable"
    )


def test_a_terminal_write_error_is_reported_not_raised() -> None:
    def broken(data: bytes) -> None:
        raise OSError(5, "Input/output error")

    result = copy_text(CLEAN, env=SSH, write_terminal=broken)
    assert not result.ok
    assert result.message == (
        "No clipboard: the terminal is not reachable ([Errno 5] Input/output error)"
    )


def test_an_unexpected_pyperclip_error_is_reported() -> None:
    result = copy_text(
        CLEAN, env=LOCAL, write_terminal=None, native_copy=Native(RuntimeError("xclip died"))
    )
    assert result.message == (
        "No clipboard: pyperclip failed: xclip died and the terminal is not reachable"
    )


def test_nothing_left_after_sanitising_copies_nothing() -> None:
    terminal, native = Terminal(), Native()
    result = copy_text("\x1b\x07\r", env=LOCAL, write_terminal=terminal, native_copy=native)
    assert (terminal.writes, native.copied) == ([], [])
    assert not result.ok
    assert result.message == "Not copied: nothing to copy"


def test_thousands_are_grouped_in_the_message() -> None:
    result = copy_text("x" * 1234, env=SSH, write_terminal=Terminal())
    assert result.message == "Copied 1,234 characters (OSC 52)"
    assert result.characters == 1234


def test_default_native_copy_maps_pyperclips_missing_tool(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(text: str) -> None:
        raise pyperclip.PyperclipException(
            "Pyperclip could not find a copy/paste mechanism for your system."
        )

    monkeypatch.setattr(pyperclip, "copy", missing)
    with pytest.raises(NativeClipboardUnavailable, match="install xclip"):
        clipboard.pyperclip_copy("x")


def test_default_native_copy_calls_pyperclip(monkeypatch: pytest.MonkeyPatch) -> None:
    copied: list[str] = []
    monkeypatch.setattr(pyperclip, "copy", copied.append)
    result = copy_text(HOSTILE, env=LOCAL, write_terminal=Terminal())
    assert copied == [CLEAN]
    assert result.methods == ["system clipboard"]


def test_env_defaults_to_the_process_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SSH_TTY", "SSH_CONNECTION", "SSH_CLIENT", "TMUX", "STY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SSH_TTY", "/dev/pts/9")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    terminal, native = Terminal(), Native()
    copy_text(CLEAN, write_terminal=terminal, native_copy=native)
    assert (terminal.writes, native.copied) == ([PLAIN], [])


def test_the_module_imports_without_textual_rich_or_pyperclip() -> None:
    code = (
        "import sys, zero_tui.clipboard; "
        "print(sorted(m for m in ('textual', 'rich', 'pyperclip') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]"
