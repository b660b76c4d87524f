"""Copying text to the user's clipboard: pyperclip, OSC 52, tmux and GNU screen.

No Textual or Rich import here (a test proves it). The module is a pure planner,
`plan_copy`, and an executor, `copy_text`, whose effects are injected: the app calls
`copy_text` from a thread worker with a `write_terminal` that writes to the tty it draws on,
and the tests assert the exact bytes and commands.

Sanitising (tui-behaviour §4): once, before any destination, every code point below 0x20
except `\\n` and `\\t` is removed, and 0x7F too; C1 controls and everything else are kept.

Which destinations, in which order (design §3.5):

- Over SSH (`SSH_TTY`, `SSH_CONNECTION` or `SSH_CLIENT` set): the terminal route always
  (OSC 52), and pyperclip as well only when a display is forwarded (`DISPLAY` or
  `WAYLAND_DISPLAY`), since the remote host's own clipboard tool would otherwise reach no
  one the user can see.
- Locally: pyperclip first; the terminal route only when pyperclip fails.
- Inside tmux (`TMUX` set): the terminal route is `tmux load-buffer -w -` with the text on
  standard input. Locally with pyperclip working, plain `tmux load-buffer -` (the paste
  buffer, nothing sent on to the outer terminal). Only when the tmux command cannot run
  (no `tmux` on PATH, tmux before 3.2 has no `-w`, a timeout) the escape sequences are
  written instead: the plain OSC 52, then the passthrough-wrapped one (those tmux takes,
  as the probe below tells).
- Inside GNU screen (`STY` set, no `TMUX`): the OSC 52 sequence cut into DCS strings that
  screen passes through, each at most `SCREEN_DCS_LIMIT` bytes including its framing.
  When both `TMUX` and `STY` are set, tmux wins (its command works whatever the nesting).
- A payload whose base64 is longer than `OSC52_MAX_BASE64` (74,994 bytes, what common
  terminals accept) never goes to a terminal: no OSC 52 and no `load-buffer -w`. What stays
  local still happens: pyperclip where it would be used anyway (its tools have no such
  limit), and the tmux paste buffer without `-w`. When nothing took it, the message says so
  and offers `/export`.

What tmux 3.3a does (measured on this project's machines; nested servers, the outer one
with `set-clipboard on` standing in for the user's terminal, the inner client started with
TERM=xterm-256color so that it has the clipboard feature, `Ms`):

| inner tmux set-clipboard | plain OSC 52 | wrapped `\\ePtmux;…`  | `load-buffer -w -` |
| ------------------------ | ------------ | -------------------- | ------------------ |
| on                       | buffer+outer | outer only if        | buffer+outer       |
| external (the default)   | ignored      | allow-passthrough on | buffer+outer       |
| off                      | ignored      | (never the buffer)   | buffer+outer       |

- With `set-clipboard on`, an OSC 52 written by a program in a pane lands in tmux's paste
  buffer (`tmux show-buffer`) and tmux sends it on to the outer terminal. With `external` or
  `off` tmux drops it: no buffer, nothing outside.
- With `allow-passthrough on` (3.3+; off by default), `\\ePtmux;\\e\\e]52;c;…\\a\\e\\\\`
  reaches the outer terminal unchanged, whatever `set-clipboard` says, but never makes a
  paste buffer. With `allow-passthrough off` tmux swallows it. (`on` passes only from a
  visible pane; tmux 3.4 added `all` for hidden ones.)
- `tmux load-buffer -w -` sets the paste buffer and (the `-w`) writes the OSC 52 itself to
  the client's terminal when that terminal has `Ms`, in every `set-clipboard` setting,
  `off` included: tmux's `cmd-load-buffer.c` calls `tty_set_selection` without looking at
  the option (same at tmux's current source). It needs no escape sequence to cross the
  pane, so it is the one route that both lands in the buffer and reaches the outer
  terminal in every setting; that is why it is the tmux route here.

The tmux probe (`tmux_options`) asks `show-options` for `set-clipboard` and the pane's
`allow-passthrough`, with a timeout (`TMUX_TIMEOUT_SECONDS`), in the environment given (its
`TMUX` names the server). It only shapes the fallback, the escape sequences written when
`tmux load-buffer` itself fails: the plain OSC 52 when `set-clipboard` is on, the wrapped one
when `allow-passthrough` is on (or `all`, tmux 3.4+). A value that could not be read counts
as on, not off: tmux drops silently the sequence it does not take, tmux before 3.3 has no
`allow-passthrough` because it always passed DCS through, and assuming off would throw away
the only route left. When both are known off and the command fails, the copy fails with
the reasons.

Known limits: a tmux on the *other* side of SSH (ssh run inside a local tmux) is invisible
here (no `TMUX` on the remote host); the plain OSC 52 sent then lands only if that tmux has
`set-clipboard on`. tmux sends `load-buffer -w` on only to a client whose terminal has the
clipboard feature (xterm-like TERM, or `terminal-features`); and nothing can tell whether the
outer terminal honoured an OSC 52: "Copied … (OSC 52)" means it was sent.

For the app: call `copy_text` in a thread worker and notify `CopyResult.message`. Give it
`write_terminal=lambda data: driver.write(data.decode("ascii"))`, `driver` being the running
app's driver, as Textual's own `App.copy_to_clipboard` does: the Linux driver's `write`
queues the string (thread-safe) for its writer thread, which writes it to the tty the app
draws on (`sys.__stderr__`) in order with the frames. The bytes are always ASCII (escapes and
base64). Pass `write_terminal=None` when headless.

Notification: `Copied 1,234 characters (system clipboard)`, `(OSC 52)`,
`(OSC 52 through tmux)`, `(tmux buffer)`, joined with ` + ` when several were used;
failures say why.
"""

from __future__ import annotations

import base64
import os
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "NO_TOOL",
    "OSC52_MAX_BASE64",
    "SCREEN_DCS_LIMIT",
    "TMUX_TIMEOUT_SECONDS",
    "CopyPlan",
    "CopyResult",
    "NativeClipboardUnavailable",
    "NativeStep",
    "Runner",
    "Step",
    "TerminalStep",
    "TmuxBufferStep",
    "TmuxOptions",
    "copy_text",
    "has_display",
    "in_screen",
    "in_tmux",
    "osc52",
    "over_ssh",
    "plan_copy",
    "pyperclip_copy",
    "sanitize",
    "screen_wrap",
    "tmux_options",
    "tmux_wrap",
]

OSC52_MAX_BASE64 = 74_994
"""The longest base64 payload sent over OSC 52 (what common terminals accept)."""

SCREEN_DCS_LIMIT = 768
"""The longest DCS string, framing included, written for GNU screen.

Screen (since 4.2.1; MAXSTR 768) keeps at most 767 bytes of a string's content. Measured
with screen 4.9.0 inside a tmux with `set-clipboard on`: a 3,000-character text cut in
pieces of 767 bytes of content arrives whole, in pieces of 768 it does not. 764 (768 with
`ESC P` and `ESC \\`) is the well-known safe size.
"""

TMUX_TIMEOUT_SECONDS = 5.0

# Labels, as the notification spells them.
SYSTEM = "system clipboard"
OSC52 = "OSC 52"
THROUGH_TMUX = "OSC 52 through tmux"
THROUGH_SCREEN = "OSC 52 through screen"
TMUX_BUFFER = "tmux buffer"

NO_TOOL = "pyperclip found no copy tool (install xclip, xsel or wl-clipboard)"

When = Literal["always", "if_none_succeeded", "if_some_succeeded"]


# --------------------------------------------------------------------------- sanitising


_STRIP = {c: None for c in range(0x20) if c not in (0x09, 0x0A)}
_STRIP[0x7F] = None


def sanitize(text: str) -> str:
    """Remove code points < 0x20 except `\\n` and `\\t`, and 0x7F; keep everything else."""
    return text.translate(_STRIP)


# --------------------------------------------------------------------------- sequences


def osc52(payload_b64: bytes) -> bytes:
    """`ESC ] 52 ; c ; <base64> BEL`."""
    return b"\x1b]52;c;" + payload_b64 + b"\x07"


def tmux_wrap(sequence: bytes) -> bytes:
    """tmux passthrough: `ESC P tmux; <sequence, each ESC doubled> ESC \\`."""
    return b"\x1bPtmux;" + sequence.replace(b"\x1b", b"\x1b\x1b") + b"\x1b\\"


def screen_wrap(sequence: bytes, limit: int = SCREEN_DCS_LIMIT) -> bytes:
    """GNU screen passthrough: the sequence cut into DCS strings `ESC P <piece> ESC \\`.

    Screen hands each DCS string's content to the outer terminal as it is, so the pieces
    join up again outside; each string, framing included, is at most `limit` bytes.
    """
    piece = limit - 4
    return b"".join(
        b"\x1bP" + sequence[i : i + piece] + b"\x1b\\" for i in range(0, len(sequence), piece)
    )


# --------------------------------------------------------------------------- environment


def _set(env: Mapping[str, str], name: str) -> bool:
    return bool(env.get(name))


def over_ssh(env: Mapping[str, str]) -> bool:
    return any(_set(env, name) for name in ("SSH_TTY", "SSH_CONNECTION", "SSH_CLIENT"))


def has_display(env: Mapping[str, str]) -> bool:
    return _set(env, "DISPLAY") or _set(env, "WAYLAND_DISPLAY")


def in_tmux(env: Mapping[str, str]) -> bool:
    return _set(env, "TMUX")


def in_screen(env: Mapping[str, str]) -> bool:
    return _set(env, "STY")


@dataclass(frozen=True)
class TmuxOptions:
    """What `tmux show-options` said; None where it could not be asked."""

    set_clipboard: str | None = None  # "on" | "external" | "off"
    allow_passthrough: str | None = None  # "on" | "off" | "all" (3.4+)

    @property
    def clipboard_on(self) -> bool:
        return self.set_clipboard == "on"

    @property
    def passthrough_on(self) -> bool:
        return self.allow_passthrough in ("on", "all")


# --------------------------------------------------------------------------- the plan


@dataclass(frozen=True)
class NativeStep:
    """pyperclip (the system clipboard)."""

    when: When = "always"
    labels: tuple[str, ...] = (SYSTEM,)


@dataclass(frozen=True)
class TerminalStep:
    """Bytes written to the terminal the app draws on."""

    data: bytes
    label: str
    when: When = "always"

    @property
    def labels(self) -> tuple[str, ...]:
        return (self.label,)


@dataclass(frozen=True)
class TmuxBufferStep:
    """`tmux load-buffer [-w] -` with the UTF-8 text on standard input."""

    data: bytes
    forward: bool
    when: When = "always"

    @property
    def argv(self) -> tuple[str, ...]:
        return ("tmux", "load-buffer", "-w", "-") if self.forward else ("tmux", "load-buffer", "-")

    @property
    def labels(self) -> tuple[str, ...]:
        return (TMUX_BUFFER, THROUGH_TMUX) if self.forward else (TMUX_BUFFER,)


Step = NativeStep | TerminalStep | TmuxBufferStep


@dataclass(frozen=True)
class CopyPlan:
    text: str
    """The sanitised text."""
    characters: int
    base64_length: int
    too_long: bool
    """Over `OSC52_MAX_BASE64`: nothing goes to a terminal."""
    steps: tuple[Step, ...]


def _tmux_fallback(sequence: bytes, tmux: TmuxOptions | None) -> bytes:
    """The escape sequences that still reach somewhere when the tmux command cannot run.

    The plain OSC 52 when `set-clipboard` is on (buffer and outer terminal), the wrapped one
    when `allow-passthrough` is on (outer terminal). What could not be asked counts as on:
    tmux drops the sequence it does not want silently, and tmux before 3.3 has no
    `allow-passthrough` option because it always passed DCS through.
    """
    options = tmux or TmuxOptions()
    plain = options.set_clipboard is None or options.clipboard_on
    wrapped = options.allow_passthrough is None or options.passthrough_on
    return (sequence if plain else b"") + (tmux_wrap(sequence) if wrapped else b"")


def _terminal_route(
    data: bytes, b64: bytes, env: Mapping[str, str], tmux: TmuxOptions | None, when: When
) -> list[Step]:
    """How the text reaches the user's terminal from here (not used when too long)."""
    sequence = osc52(b64)
    if in_tmux(env):
        steps: list[Step] = [TmuxBufferStep(data, forward=True, when=when)]
        fallback = _tmux_fallback(sequence, tmux)
        if fallback:
            steps.append(TerminalStep(fallback, THROUGH_TMUX, when="if_none_succeeded"))
        return steps
    if in_screen(env):
        return [TerminalStep(screen_wrap(sequence), THROUGH_SCREEN, when=when)]
    return [TerminalStep(sequence, OSC52, when=when)]


def plan_copy(text: str, env: Mapping[str, str], *, tmux: TmuxOptions | None = None) -> CopyPlan:
    """Decide the destinations, in order, with the exact bytes; pure (no effects).

    Each step runs `always`, `if_none_succeeded` (a fallback: no earlier step worked) or
    `if_some_succeeded` (an earlier step worked). `tmux` (from `tmux_options`) only shapes
    the escape sequences written when the tmux command itself cannot run.
    """
    clean = sanitize(text)
    data = clean.encode("utf-8")
    b64 = base64.b64encode(data)
    too_long = len(b64) > OSC52_MAX_BASE64
    steps: list[Step] = []
    if data:
        tmuxed = in_tmux(env)
        if over_ssh(env):
            if not too_long:
                steps += _terminal_route(data, b64, env, tmux, "always")
            elif tmuxed:
                steps.append(TmuxBufferStep(data, forward=False))
            if has_display(env):
                steps.append(NativeStep())
        else:
            steps.append(NativeStep())
            if tmuxed:
                steps.append(TmuxBufferStep(data, forward=False, when="if_some_succeeded"))
            if not too_long:
                steps += _terminal_route(data, b64, env, tmux, "if_none_succeeded")
            elif tmuxed:
                steps.append(TmuxBufferStep(data, forward=False, when="if_none_succeeded"))
    return CopyPlan(
        text=clean,
        characters=len(clean),
        base64_length=len(b64),
        too_long=too_long,
        steps=tuple(steps),
    )


# --------------------------------------------------------------------------- effects


Runner = Callable[..., "subprocess.CompletedProcess[bytes]"]
"""`subprocess.run`'s shape: (argv, *, input, env, capture_output, timeout, check)."""


class NativeClipboardUnavailable(Exception):
    """The system clipboard cannot be reached; the message says why."""


def pyperclip_copy(text: str) -> None:
    """The default `native_copy`: pyperclip, with its "no mechanism" error made readable."""
    import pyperclip  # lazily: it probes the platform on import

    try:
        pyperclip.copy(text)
    except pyperclip.PyperclipException as exc:
        if "could not find a copy/paste mechanism" in str(exc):
            raise NativeClipboardUnavailable(NO_TOOL) from exc
        raise


def _run_tmux(
    run: Runner, args: Sequence[str], env: Mapping[str, str], data: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    return run(
        list(args),
        input=data,
        env=dict(env),
        capture_output=True,
        timeout=TMUX_TIMEOUT_SECONDS,
        check=False,
    )


def tmux_options(env: Mapping[str, str], run: Runner = subprocess.run) -> TmuxOptions:
    """Ask the tmux server named by `env["TMUX"]` for `set-clipboard` and `allow-passthrough`.

    `allow-passthrough` is read for the current pane (`-A`: inherited values included); any
    failure (no tmux, a timeout, an error, an empty answer) leaves that value None.
    """

    def ask(*args: str) -> str | None:
        try:
            result = _run_tmux(run, ("tmux", "show-options", *args), env)
        except (OSError, subprocess.SubprocessError):
            return None
        if result.returncode != 0:
            return None
        value = result.stdout.decode("utf-8", "replace").strip()
        return value or None

    return TmuxOptions(
        set_clipboard=ask("-gqv", "set-clipboard"),
        allow_passthrough=ask("-Apqv", "allow-passthrough"),
    )


@dataclass(frozen=True)
class CopyResult:
    ok: bool
    message: str
    methods: list[str] = field(default_factory=list)
    characters: int = 0


def _native(native_copy: Callable[[str], None], text: str) -> str | None:
    try:
        native_copy(text)
    except NativeClipboardUnavailable as exc:
        return str(exc)
    except Exception as exc:  # pyperclip's tools fail in many ways; none may crash /copy
        return f"pyperclip failed: {exc}"
    return None


def _terminal(write_terminal: Callable[[bytes], None] | None, data: bytes) -> str | None:
    if write_terminal is None:
        return "the terminal is not reachable"
    try:
        write_terminal(data)
    except Exception as exc:  # a closed or gone tty
        return f"the terminal is not reachable ({exc})"
    return None


def _tmux_buffer(run: Runner, step: TmuxBufferStep, env: Mapping[str, str]) -> str | None:
    try:
        result = _run_tmux(run, step.argv, env, step.data)
    except FileNotFoundError:
        return "tmux is not on PATH"
    except subprocess.TimeoutExpired:
        return "tmux did not answer"
    except (OSError, subprocess.SubprocessError) as exc:
        return f"tmux failed: {exc}"
    if result.returncode != 0:
        error = (result.stderr or b"").decode("utf-8", "replace").strip()
        return f"tmux load-buffer failed: {error or f'exit status {result.returncode}'}"
    return None


def _message(plan: CopyPlan, methods: list[str], failures: list[str]) -> str:
    count = f"{plan.characters:,} characters"
    if methods:
        message = f"Copied {count} ({' + '.join(methods)})"
        if plan.too_long:
            message += " — too long for the terminal over OSC 52"
        return message
    if plan.too_long:
        why = f" ({'; '.join(failures)})" if failures else ""
        return f"Not copied: {count} is more than a terminal accepts over OSC 52{why} — use /export"
    return "No clipboard: " + " and ".join(failures or ["the terminal is not reachable"])


def copy_text(
    text: str,
    *,
    env: Mapping[str, str] | None = None,
    write_terminal: Callable[[bytes], None] | None,
    run: Runner = subprocess.run,
    native_copy: Callable[[str], None] = pyperclip_copy,
) -> CopyResult:
    """Copy `text` (sanitised first) as `plan_copy` decides; blocking, so call it in a worker.

    `env` defaults to `os.environ`. `write_terminal` gets the escape sequences (ASCII bytes)
    for the terminal the app draws on; None when there is none. `run` runs `tmux`;
    `native_copy` is the system clipboard (pyperclip by default).
    """
    environment: Mapping[str, str] = os.environ if env is None else env
    options = tmux_options(environment, run) if in_tmux(environment) else None
    plan = plan_copy(text, environment, tmux=options)
    if not plan.text:
        return CopyResult(False, "Not copied: nothing to copy", [], 0)
    methods: list[str] = []
    failures: list[str] = []
    for step in plan.steps:
        if step.when == "if_none_succeeded" and methods:
            continue
        if step.when == "if_some_succeeded" and not methods:
            continue
        if isinstance(step, NativeStep):
            failure = _native(native_copy, plan.text)
        elif isinstance(step, TerminalStep):
            failure = _terminal(write_terminal, step.data)
        else:
            failure = _tmux_buffer(run, step, environment)
        if failure is None:
            methods += [label for label in step.labels if label not in methods]
        elif failure not in failures:
            failures.append(failure)
    return CopyResult(bool(methods), _message(plan, methods, failures), methods, plan.characters)
