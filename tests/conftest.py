"""Shared fixtures: stores built through `SessionStore` with a fixed clock."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import pytest
from agent_fixtures import fake_agent as fake_agent  # the agent tests' fixture
from hypothesis import HealthCheck, settings
from textual.pilot import Pilot
from textual.widgets import Input, TextArea
from textual.worker import WorkerCancelled, WorkerState

from zero_tui.store import Metadata, SessionStore

# Property tests: a few examples each in CI; `ZERO_TUI_HYPOTHESIS_PROFILE=fuzz` (or
# `--hypothesis-profile fuzz`) is the long fuzzing run docs/development.md documents.
settings.register_profile(
    "ci",
    max_examples=25,
    deadline=None,  # the machine is shared: no timed assertions
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.register_profile(
    "fuzz",
    max_examples=int(os.environ.get("ZERO_TUI_FUZZ_EXAMPLES", "5000")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
settings.load_profile(os.environ.get("ZERO_TUI_HYPOTHESIS_PROFILE", "ci"))

NOW = datetime(2026, 7, 4, 12, 0, 0, tzinfo=UTC)
"""The spec's reference clock (tui-behaviour §10): 2026-07-04T12:00:00Z, zone UTC."""

EventSpec = tuple[str, object]


def fixed_clock(moment: datetime = NOW) -> Callable[[], datetime]:
    return lambda: moment


def user(text: str) -> EventSpec:
    return ("message", {"role": "user", "content": text})


def assistant(text: str) -> EventSpec:
    return ("message", {"role": "assistant", "content": text})


def chat(question: str = "fix it", answer: str = "done") -> list[EventSpec]:
    return [user(question), assistant(answer)]


Calls = list[tuple[tuple[Any, ...], dict[str, Any]]]


def spy(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> Calls:
    """Record each call of `owner.name` (a method: its self first) and let it go on."""
    calls: Calls = []
    original = getattr(owner, name)

    def spied(*args: Any, **kwargs: Any) -> Any:
        calls.append((args, kwargs))
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, spied)
    return calls


T = TypeVar("T")
HANG_GUARD_SECONDS = 60  # not a timing assertion: only keeps a regression from hanging


def finishes(call: Callable[[], T]) -> T:
    """Run `call` in a daemon thread; fail (instead of hanging the suite) if it blocks."""
    values: list[T] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            values.append(call())
        except BaseException as error:  # re-raised in the test's thread
            errors.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(HANG_GUARD_SECONDS)
    assert not thread.is_alive(), "blocked (on a FIFO?)"
    if errors:
        raise errors[0]
    return values[0]


class StoreBuilder:
    """Writes sessions through the real store; each session's events carry `updated_at`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._moment = NOW
        self.store = SessionStore(root, clock=lambda: self._moment)

    def add(
        self,
        session_id: str,
        *,
        updated_at: str = "2026-07-04T10:00:00Z",
        events: Sequence[EventSpec] | None = None,
        **fields: Any,
    ) -> Metadata:
        """Create `session_id` with metadata `fields` and `events` (default: a short chat)."""
        self._moment = datetime.fromisoformat(updated_at.replace("Z", "+00:00"))
        meta = self.store.create(session_id, **fields)
        chosen = chat() if events is None else events
        if chosen:
            self.store.append_events(session_id, list(chosen))
        refreshed = self.store.get(session_id)
        assert refreshed is not None
        return refreshed if chosen else meta

    def add_many(self, specs: Iterable[tuple[str, dict[str, Any]]]) -> None:
        for session_id, fields in specs:
            self.add(session_id, **fields)


@pytest.fixture(autouse=True)
def private_cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own zero-tui cache (the catalog, the mirrors), data folder (the
    trash) and config folder (the hosts), never the user's."""
    directory = tmp_path / "zero-tui-cache"
    monkeypatch.setenv("ZERO_TUI_CACHE_DIR", str(directory))
    monkeypatch.setenv("ZERO_TUI_DATA_DIR", str(tmp_path / "zero-tui-data"))
    monkeypatch.setenv("ZERO_TUI_CONFIG_DIR", str(tmp_path / "zero-tui-config"))
    return directory


@pytest.fixture
def make_store(tmp_path: Path) -> Callable[..., StoreBuilder]:
    """`make_store()` -> a `StoreBuilder` on a fresh directory under tmp_path."""
    counter = iter(range(1_000_000))

    def factory(name: str | None = None) -> StoreBuilder:
        root = tmp_path / (name or f"store{next(counter)}")
        root.mkdir(parents=True, exist_ok=True)
        return StoreBuilder(root)

    return factory


async def no_cursor_blink(pilot: Pilot[Any]) -> None:
    """Stop every Input's and TextArea's cursor blinking, so snapshots do not depend on
    timing (the cursor is then always shown)."""
    for widget in pilot.app.screen.query(Input):
        widget.cursor_blink = False
    for area in pilot.app.screen.query(TextArea):
        area.cursor_blink = False
    await pilot.pause()


HANG_SECONDS = 120.0
"""How long a wait on a condition goes on before a test says it hung: a bound on a hang,
never a timing assertion (a machine under load may take long; budgets are the benchmark's)."""


async def wait_until(
    pilot: Pilot[Any], condition: Callable[[], bool], what: str = "the condition"
) -> None:
    """Let the app run until `condition()` holds."""
    deadline = time.monotonic() + HANG_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"never: {what}")
        await pilot.pause(0.02)


async def settle(pilot: Pilot[Any]) -> None:
    """Wait until no worker is pending or running and every posted message is handled.
    A worker cancelled meanwhile (a scan ends the remembered rows' load) counts as done."""
    for _ in range(100):
        try:
            await pilot.app.workers.wait_for_complete()
        except WorkerCancelled:
            continue
        await pilot.pause()
        busy = [
            worker
            for worker in pilot.app.workers
            if worker.state in (WorkerState.PENDING, WorkerState.RUNNING)
        ]
        if not busy:
            return
    raise AssertionError("workers never settled")
