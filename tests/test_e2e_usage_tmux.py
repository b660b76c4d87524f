"""End to end: `/usage` typed in the picker of this checkout's zero-tui, in a private tmux
server (the helpers of test_e2e_tmux.py), with a fake `zero` for the cost."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from conftest import StoreBuilder, assistant, user
from test_e2e_tmux import PROMPT, Tmux
from test_e2e_tmux import tmux as tmux
from test_usage_overview import usage_zero

import zero_tui

pytestmark = pytest.mark.e2e


def this_checkout() -> list[str]:
    """This checkout's zero-tui, whatever the installed script runs: `python -m zero_tui`
    with the checkout first on PYTHONPATH."""
    checkout = str(Path(zero_tui.__file__).resolve().parent.parent)
    return ["env", f"PYTHONPATH={checkout}", sys.executable, "-m", "zero_tui"]


def test_usage_from_the_picker(
    tmux: Tmux, tmp_path: Path, make_store: Callable[..., StoreBuilder]
) -> None:
    workspace = tmp_path / "proj"
    workspace.mkdir()
    today = datetime.now(UTC).replace(microsecond=0)
    builder = make_store("zero/sessions")
    usage = {"promptTokens": 12000, "completionTokens": 345, "totalTokens": 12345}
    builder.add(
        "big-1",
        title="Tune the parser",
        cwd=str(workspace),
        updated_at=today.strftime("%Y-%m-%dT%H:%M:%SZ"),
        events=[user("tune it"), ("provider_usage", usage), assistant("tuned")],
    )
    builder.add(
        "small-2",
        title="Elsewhere",
        cwd="/srv/other",
        updated_at=(today - timedelta(days=3)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        events=[user("hi"), ("provider_usage", {**usage, "totalTokens": 100}), assistant("ok")],
    )
    answer = {"buckets": [], "total": {"totalCost": 0.0512, "totalTokens": 12445}}
    zero, _called = usage_zero(tmp_path, answer)

    tmux.wait_for(lambda screen: PROMPT in screen, "the shell prompt")
    command = [*this_checkout(), "--store", str(builder.root), "--cwd", str(workspace)]
    tmux.send_line(f"ZERO_BIN={shlex.quote(zero)} " + shlex.join(command))
    tmux.wait_for(lambda screen: "Tune the parser" in screen, "the picker")

    tmux.send_text("/usage")
    tmux.press("Enter")
    screen = tmux.wait_for(
        lambda screen: "Zero's cost estimate: $0.0512 (zero usage report)" in screen,
        "the usage screen with Zero's estimate",
    )
    assert "Usage · every workspace · the last 30 days" in screen
    assert "12,445 tokens · 2 requests · 2 sessions" in screen
    assert "█" in screen  # the bars
    assert f"{today:%m-%d}" in screen  # the last day's date under the chart
    assert "Tune the parser" in screen

    tmux.press("Left")
    yesterday = today - timedelta(days=1)
    tmux.wait_for(lambda screen: f"{yesterday:%Y-%m-%d} · no tokens" in screen, "the day before")
    tmux.press("Tab")
    tmux.wait_for(
        lambda screen: (
            "12,345 tokens · 1 request · 1 session" in screen
            and "for every workspace only (Tab)" in screen
        ),
        "this workspace's figures",
    )
    tmux.press("Escape")
    tmux.wait_for(lambda screen: "Resume a session" in screen, "the picker again")
    tmux.press("C-q")
    tmux.wait_for(lambda screen: screen.rstrip().endswith(PROMPT), "the shell prompt again")
