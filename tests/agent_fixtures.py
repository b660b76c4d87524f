"""Fixtures for the agent tests: a fake `zero` on ZERO_BIN with a private HOME and store."""

from __future__ import annotations

import os
import shlex
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from zero_tui.agent.engine import ExecEngine, RunRequest, terminate_all
from zero_tui.agent.outcome import RunOutcome
from zero_tui.agent.stream import AgentEvent
from zero_tui.store import SessionStore

FAKE_ZERO = Path(__file__).resolve().with_name("fake_zero.py")


@dataclass
class AgentSandbox:
    """A private HOME, XDG_DATA_HOME (so Zero's default root) and workspace."""

    env: dict[str, str]
    store: SessionStore
    workspace: Path

    def engine(self, grace_seconds: float = 10.0, exit_timeout: float = 15.0) -> ExecEngine:
        return ExecEngine(
            self.store, env=self.env, grace_seconds=grace_seconds, exit_timeout=exit_timeout
        )

    def new_session(self, session_id: str = "zero_s1", *, session_kind: str = "") -> str:
        self.store.create(
            session_id, title="earlier work", cwd=str(self.workspace), session_kind=session_kind
        )
        self.store.append_events(
            session_id,
            [
                ("message", {"role": "user", "content": "q"}),
                ("message", {"role": "assistant", "content": "a"}),
            ],
        )
        return session_id

    def request(self, prompt: str, session_id: str | None = "zero_s1", **extra: str) -> RunRequest:
        return RunRequest(prompt, session_id, str(self.workspace), **extra)


def make_sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AgentSandbox:
    home = tmp_path / "home"
    data = tmp_path / "data"
    workspace = tmp_path / "workspace"
    for directory in (home, data, workspace):
        directory.mkdir()
    env = dict(os.environ)
    env.pop("ZERO_BIN", None)
    env.update(HOME=str(home), XDG_DATA_HOME=str(data), XDG_CONFIG_HOME=str(home / ".config"))
    env.update(XDG_CACHE_HOME=str(home / ".cache"), XDG_STATE_HOME=str(home / ".state"))
    for key in ("HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        monkeypatch.setenv(key, env[key])
    return AgentSandbox(env, SessionStore(data / "zero" / "sessions"), workspace)


def write_fake_zero(directory: Path) -> Path:
    """An executable `zero` that runs fake_zero.py with this interpreter."""
    directory.mkdir(parents=True, exist_ok=True)
    wrapper = directory / "zero"
    wrapper.write_text(
        f'#!/bin/sh\nexec {shlex.quote(sys.executable)} {shlex.quote(str(FAKE_ZERO))} "$@"\n',
        encoding="utf-8",
    )
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    return wrapper


@pytest.fixture
def fake_agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[AgentSandbox]:
    """A sandbox whose ZERO_BIN is the fake `zero`; no run outlives the test."""
    sandbox = make_sandbox(tmp_path, monkeypatch)
    binary = write_fake_zero(tmp_path / "bin")
    sandbox.env["ZERO_BIN"] = str(binary)
    monkeypatch.setenv("ZERO_BIN", str(binary))
    yield sandbox
    terminate_all(0.0)


async def run_to_end(
    engine: ExecEngine, request: RunRequest
) -> tuple[list[AgentEvent], RunOutcome]:
    run = await engine.start(request)
    events = [event async for event in run.events()]
    return events, await run.wait()
