"""Picker ranking per keystroke over n session rows: ours against `textual.fuzzy.Matcher`.

Budget (design.md §4): p95 under 10 ms over 10,000 sessions, and at least 20x faster than
Textual's built-in fuzzy matcher on the same rows. Run: `python -m benchmarks.ranking_bench`.

The rows look like the resume picker's: `<when padded to 12>  <title>` as the label, the
session id as the value, a model and a provider. Textual's matcher is given only the label
(the shown text): the id column would only make it slower, so the ratio is the
conservative one.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from zero_tui.picker.ranking import Match, PickerItem, RankedIndex, Tier

if TYPE_CHECKING:
    from textual.fuzzy import Matcher

_VERBS = (
    "Fix", "Add", "Refactor", "Explain", "Write tests for", "Debug", "Speed up", "Remove",
    "Rename", "Document", "Review", "Port", "Update", "Investigate", "Implement", "Why does",
    "Can you look at", "Split up", "Simplify", "Profile", "Migrate", "Clean up",
)  # fmt: skip
_OBJECTS = (
    "the parser", "the flaky test in store/lock_test.go", "a --json flag for sessions",
    "the transcript exporter", "picker lag with 10k sessions", "the OAuth token refresh",
    "the CI matrix", "the README install steps", "go.mod dependencies",
    "the retry loop in agent/engine.go", "HTTP engine timeouts", "markdown rendering",
    "session rehydration", "the compaction summary", "websocket reconnect backoff",
    "the sqlite catalog schema", "the line API list widget", "clipboard over SSH",
    "handleResume in internal/tui/session.go", "the rate limiter", "config.toml loading",
    "error messages for bad metadata", "the diff viewer", "ToolCallCard rendering",
    "the build on arm64", "tokenizer edge cases", "the date formatting in picker rows",
    "cross-session messages", "permission prompts", "the goal tracker",
)  # fmt: skip
_SUFFIXES = (
    "", "", "", " on Windows", " in tmux", " before the release", " (again)", " for 0.8.1",
    " without breaking Go compat", " — see issue #{n}", " after the upgrade", " please",
    " in {file}", ": it panics with nil map", ", keep the API stable",
)  # fmt: skip
_FILES = (
    "cmd/zero/main.go", "internal/tui/picker.go", "zero_tui/app.py", "pkg/store/store.go",
    "web/src/App.tsx", "scripts/release.sh", "docs/HOW_ZERO_WORKS.md", "Makefile",
)  # fmt: skip
_FIXED_TITLES = ("Use claude sonnet for reviews", "export the transcript")
_MODELS = (
    ("claude-sonnet-4-5", "anthropic"), ("gpt-5", "openai"), ("claude-opus-4-1", "anthropic"),
)  # fmt: skip
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")

# What a user types, one state of the search box per keystroke (backspaces included).
_TYPED = ("sonnet", "export transcript", "fix flaky test", "snnet", "exprot", "parsr", "reviws")


def _keystrokes() -> list[str]:
    states: list[str] = []
    for text in _TYPED:
        states += [text[:end] for end in range(1, len(text) + 1)]
    # A typo noticed and corrected: "exprot" -> back to "exp" -> "export".
    states += ["exprot"[:end] for end in range(6, 3, -1)] + ["expo", "expor", "export"]
    states += ["1780567", "17805672000"]  # part of an id
    return states


def session_rows(n: int, seed: int = 7) -> list[PickerItem]:
    """n rows shaped like the resume picker's, newest first."""
    rng = random.Random(seed)
    rows: list[PickerItem] = []
    for position in range(n):
        if position % 997 == 0:
            title = _FIXED_TITLES[(position // 997) % len(_FIXED_TITLES)]
        else:
            suffix = rng.choice(_SUFFIXES).format(n=rng.randint(10, 999), file=rng.choice(_FILES))
            title = f"{rng.choice(_VERBS)} {rng.choice(_OBJECTS)}{suffix}"
        month = rng.randint(0, 11)
        day, hour, minute = rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59)
        when = f"{_MONTHS[month]} {day:2d} {hour:02d}:{minute:02d}"
        stamp = f"2026{month + 1:02d}{day:02d}{hour:02d}{minute:02d}{rng.randint(0, 59):02d}"
        unix_nano = 1780567200000000000 - position * 3_600_000_000_000
        session_id = f"zero_{stamp}_{unix_nano}_{rng.randint(1, 40)}"
        model, provider = _MODELS[position % len(_MODELS)]
        rows.append(
            PickerItem(
                label=f"{when:<12}  {title}", value=session_id, model=model, provider=provider
            )
        )
    return rows


def _percentile(samples: Sequence[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def _time_ms(action: Callable[..., object], *arguments: object) -> float:
    start = time.perf_counter_ns()
    action(*arguments)
    return (time.perf_counter_ns() - start) / 1e6


def _cpu_ms(action: Callable[..., object], *arguments: object) -> float:
    """CPU time of this process: less distorted than wall time on a shared machine."""
    start = time.process_time_ns()
    action(*arguments)
    return (time.process_time_ns() - start) / 1e6


def _rank_screenful(index: RankedIndex, query: str) -> list[Match]:
    # A keystroke as the picker sees it: the ranking plus a screenful of matches to draw.
    return index.rank(query)[:40]


def _textual_scores(matcher: Matcher, labels: list[str]) -> list[float]:
    return [matcher.match(label) for label in labels]


def run(n: int = 10_000, rounds: int = 3, textual_every: int = 1) -> dict[str, float]:
    """Time every keystroke of the typed queries, for our ranker and for Textual's.

    `textual_every` > 1 times Textual's matcher on every that many keystrokes only (it takes
    seconds per keystroke on 100,000 rows); its percentiles are then over that sample."""
    from textual.fuzzy import Matcher

    rows = session_rows(n)
    labels = [row.label for row in rows]
    build_start = time.perf_counter_ns()
    index = RankedIndex(rows)
    build_ms = (time.perf_counter_ns() - build_start) / 1e6
    keystrokes = _keystrokes()

    # Round 1 starts cold; later rounds find one-character queries remembered, as a
    # picker does after its first search (recent longer queries are long evicted by then).
    ours: list[float] = []
    for _ in range(rounds):
        for query in keystrokes:
            ours.append(_time_ms(_rank_screenful, index, query))
    cold = ours[: len(keystrokes)]
    fresh = RankedIndex(rows)
    cpu = [_cpu_ms(_rank_screenful, fresh, query) for query in keystrokes]

    textual: list[float] = []
    for query in keystrokes[::textual_every]:
        textual.append(_time_ms(_textual_scores, Matcher(query), labels))

    typos = {"snnet": "sonnet", "exprot": "export", "reviws": "review"}
    typo_rows = {query: _typo_count(index, query) for query in typos}
    first_hits = {query: _first_hit(index, rows, query, word) for query, word in typos.items()}
    ours_p50, ours_p95 = _percentile(ours, 0.5), _percentile(ours, 0.95)
    textual_p50, textual_p95 = _percentile(textual, 0.5), _percentile(textual, 0.95)
    return {
        "rows": float(n),
        "keystrokes": float(len(keystrokes)),
        "build_ms": build_ms,
        "ours_p50_ms": ours_p50,
        "ours_p95_ms": ours_p95,
        "ours_max_ms": max(ours),
        "ours_cold_p50_ms": _percentile(cold, 0.5),
        "ours_cold_p95_ms": _percentile(cold, 0.95),
        "ours_cold_cpu_p50_ms": _percentile(cpu, 0.5),
        "ours_cold_cpu_p95_ms": _percentile(cpu, 0.95),
        "textual_p50_ms": textual_p50,
        "textual_p95_ms": textual_p95,
        "ratio_p50": textual_p50 / ours_p50,
        "ratio_p95": textual_p95 / ours_p95,
        "ratio_total": statistics.mean(textual) / statistics.mean(ours),
        **{f"typo_tier_rows_{query}": float(count) for query, count in typo_rows.items()},
        **{f"first_{typos[query]}_row_at_{query}": float(at) for query, at in first_hits.items()},
    }


def _typo_count(index: RankedIndex, query: str) -> int:
    """How many rows the typo tier returns for `query` (a measure of its noise)."""
    return sum(1 for match in index.rank(query) if match.tier is Tier.TYPO)


def _first_hit(index: RankedIndex, rows: Sequence[PickerItem], query: str, word: str) -> int:
    """Where the first row whose label holds `word` ranks for the mistyped `query` (-1: none)."""
    for position, row in enumerate(index.rank(query).indices):
        if word in rows[row].label.lower():
            return position
    return -1


if __name__ == "__main__":
    for name, value in run().items():
        print(f"{name:>28}: {value:10.3f}")
