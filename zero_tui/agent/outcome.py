"""How a run ended, in one line for the user, with a next step for provider failures.

Exit codes follow zero-exec.md §1.5. The hint classifier is Zero's own
(`internal/errhint`): it trusts only messages that carry the provider layer's prefix,
so a local failure never draws a provider hint; the hints name zero-tui's commands.
"""

from __future__ import annotations

import re
import signal
from dataclasses import dataclass
from enum import Enum

from zero_tui.agent.stream import AgentError, RunEnd, size_text

EXIT_SUCCESS = 0
EXIT_CRASH = 1
EXIT_USAGE = 2
EXIT_PROVIDER = 3
EXIT_INCOMPLETE = 4
EXIT_INTERRUPTED = 130


@dataclass(frozen=True, slots=True)
class RunOutcome:
    # success | error | incomplete | interrupted | crashed | killed | usage_error
    # | output_too_long
    status: str
    exit_code: int | None  # the process's returncode (negative: killed by that signal)
    message: str  # one line for the user; "" for a plain success
    hint: str  # "" or a one-line next step
    stderr_tail: str  # the last of stderr, for a details view

    @property
    def ok(self) -> bool:
        return self.status == "success"


class Category(Enum):
    UNKNOWN = "unknown"
    AUTH = "auth"
    RATE_LIMIT = "rate_limit"
    CONNECTIVITY = "connectivity"
    MODEL_NOT_FOUND = "model_not_found"
    CONTEXT_OVERFLOW = "context_overflow"


_PROVIDER_MARKERS = (
    "auth error:",
    "rate limit error:",
    "provider error:",
    "provider request error:",
    "provider stream error:",
)
_SIGNATURES: tuple[tuple[Category, tuple[str, ...], tuple[str, ...]], ...] = (
    (
        Category.AUTH,
        (
            "auth error:",
            "unauthorized",
            "api key",
            "api_key",
            "invalid_api_key",
            "authentication",
            "permission denied",
            "forbidden",
        ),
        ("401", "403"),
    ),
    (
        Category.RATE_LIMIT,
        (
            "rate limit",
            "rate_limit",
            "too many requests",
            "quota",
            "resource_exhausted",
            "overloaded",
        ),
        ("429", "529"),
    ),
    (
        Category.CONTEXT_OVERFLOW,
        (
            "context length",
            "context window",
            "maximum context",
            "context_length_exceeded",
            "too many tokens",
            "prompt is too long",
            "reduce the length",
        ),
        (),
    ),
    (
        Category.MODEL_NOT_FOUND,
        (
            "model not found",
            "model_not_found",
            "does not exist",
            "unknown model",
            "no such model",
            "unsupported model",
            "invalid model",
            "model is not",
        ),
        (),
    ),
    (
        Category.CONNECTIVITY,
        (
            "dial tcp",
            "no such host",
            "connection refused",
            "network is unreachable",
            "i/o timeout",
            "context deadline exceeded",
            "tls handshake",
            "connection reset",
            "unexpected eof",
            "lookup ",
            "timeout",
        ),
        (),
    ),
)

HINTS = {
    Category.AUTH: "API key rejected — check the provider's API key (`zero auth`, `zero setup`)",
    Category.RATE_LIMIT: "Rate limited — wait a moment, then /retry",
    Category.CONNECTIVITY: "Can't reach the provider — run `zero doctor`",
    Category.MODEL_NOT_FOUND: "Model unavailable — pick another with /model ID",
    Category.CONTEXT_OVERFLOW: "Context window full — start a fresh session with /new",
}


def _has_status_code(text: str, code: str) -> bool:
    return re.search(rf"(?<![0-9]){code}(?![0-9])", text) is not None


UPSTREAM_UNREACHABLE = "upstream unreachable:"
"""Zero's providerio.UpstreamUnreachable rewrites a failed connection (refused, no such
host, a timeout) into a message with this prefix and no provider marker, so Zero's own
classifier gives it no hint; zero-tui reads it as the connectivity failure it is."""


def classify(message: str) -> Category:
    """Zero's errhint.Classify: provider-marked messages only, specific signatures first;
    and Zero's `upstream unreachable:` rewrite of a connection failure."""
    lowered = message.lower()
    if lowered.lstrip().startswith(UPSTREAM_UNREACHABLE):
        return Category.CONNECTIVITY
    if not any(marker in lowered for marker in _PROVIDER_MARKERS):
        return Category.UNKNOWN
    for category, needles, codes in _SIGNATURES:
        if any(needle in lowered for needle in needles):
            return category
        if any(_has_status_code(lowered, code) for code in codes):
            return category
    return Category.UNKNOWN


def provider_hint(message: str) -> str:
    return HINTS.get(classify(message), "")


def last_line(text: str) -> str:
    """The last non-blank line, without Zero's `[zero] ` prefix."""
    for line in reversed(text.splitlines()):
        stripped = line.strip()
        if stripped:
            return stripped.removeprefix("[zero]").strip()
    return ""


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def describe_outcome(
    run_end: RunEnd | None,
    error: AgentError | None,
    returncode: int | None,
    stderr_tail: str,
    cancelled: bool,
    *,
    killed: bool = False,
) -> RunOutcome:
    """The outcome of a finished run.

    `cancelled`: the user asked to stop it; `killed`: zero-tui had to SIGKILL it.
    `run_end` is authoritative when present; without it the returncode tells.
    """
    error_message = error.message if error else ""
    exit_code = returncode
    if run_end is not None:
        code = run_end.exit_code if run_end.exit_code is not None else returncode
        if exit_code is None:
            exit_code = code
        if run_end.status == "success" or code == EXIT_SUCCESS:
            return RunOutcome("success", exit_code, "", "", stderr_tail)
        if run_end.status == "interrupted" or code == EXIT_INTERRUPTED:
            return RunOutcome("interrupted", exit_code, "Run cancelled.", "", stderr_tail)
        if run_end.status == "incomplete" or code == EXIT_INCOMPLETE:
            reason = error_message or "the agent judged the work unfinished"
            return RunOutcome("incomplete", exit_code, f"Run incomplete: {reason}", "", stderr_tail)
        message = error_message or last_line(stderr_tail) or f"The agent failed (exit {code})."
        if code == EXIT_USAGE:
            return RunOutcome("usage_error", exit_code, message, "", stderr_tail)
        hint = provider_hint(message) if error is None or error.code == "provider_error" else ""
        return RunOutcome("error", exit_code, message, hint, stderr_tail)

    detail = error_message or last_line(stderr_tail)
    if killed:
        message = (
            "Run cancelled: the agent did not stop in time and was killed."
            if cancelled
            else "The agent was killed."
        )
        return RunOutcome("killed", returncode, message, "", stderr_tail)
    if returncode is not None and returncode < 0:
        if cancelled and returncode in (-signal.SIGINT, -signal.SIGTERM):
            # the signal came before exec installed its handler: it stopped at once
            return RunOutcome(
                "interrupted", returncode, "Run cancelled before it started.", "", stderr_tail
            )
        message = f"The agent was killed by {_signal_name(-returncode)}."
        if detail:
            message = f"{message} {detail}"
        return RunOutcome("killed", returncode, message, "", stderr_tail)
    if returncode == EXIT_INTERRUPTED and cancelled:
        return RunOutcome("interrupted", returncode, "Run cancelled.", "", stderr_tail)
    exit_text = "" if returncode is None else f" (exit {returncode})"
    message = detail or f"The agent stopped without finishing its output{exit_text}."
    if detail:
        message = f"The agent crashed{exit_text}: {detail}"
    return RunOutcome("crashed", returncode, message, "", stderr_tail)


STDERR_NOTE_LINES = 8


def stderr_notes(stderr_tail: str, said: str = "") -> list[str]:
    """What the agent wrote on stderr, one note per non-blank line (Zero's `[zero] `
    prefix dropped), without the lines `said` already holds; the last STDERR_NOTE_LINES,
    after a count of those left out. Zero writes warnings there even on success, e.g.
    `WARNING: session not fully recorded: …`."""
    lines = [line.strip().removeprefix("[zero]").strip() for line in stderr_tail.splitlines()]
    kept = [line for line in lines if line and line not in said]
    if len(kept) <= STDERR_NOTE_LINES:
        return kept
    left_out = len(kept) - STDERR_NOTE_LINES
    return [f"… {left_out} earlier lines of the agent's stderr", *kept[-STDERR_NOTE_LINES:]]


def line_too_long_outcome(limit: int, returncode: int | None, stderr_tail: str) -> RunOutcome:
    """A run stopped by zero-tui because one line of its output passed `limit` bytes."""
    message = f"Agent output line too long (over {size_text(limit)}): the run was stopped."
    return RunOutcome("output_too_long", returncode, message, "", stderr_tail)
