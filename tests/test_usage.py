"""Token usage (issue 20, part 3): the figures `zero usage report` gives, and more."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from zero_tui.cli import main
from zero_tui.store import SessionStore
from zero_tui.store.token_counts import Tokens
from zero_tui.transcript.usage_report import session_usage, usage_report, utc_day


def usage(prompt: int, completion: int, **more: object) -> tuple[str, object]:
    return (
        "provider_usage",
        {"promptTokens": prompt, "completionTokens": completion,
         "totalTokens": prompt + completion, **more},
    )  # fmt: skip


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    moments = iter(
        datetime(2026, 7, 1, 23, 0, tzinfo=UTC) + timedelta(hours=6 * n) for n in range(99)
    )
    store = SessionStore(tmp_path / "zero" / "sessions", clock=lambda: next(moments))
    store.create("here-1", cwd="/w", model_id="gpt-5")
    store.append_events("here-1", [("message", {"role": "user", "content": "hi"}), usage(100, 10)])
    store.append_events("here-1", [usage(200, 20, cachedInputTokens=150)])
    store.create("here-2", cwd="/w", model_id="gpt-5")
    store.append_events("here-2", [usage(50, 5, model="claude-sonnet-4-5")])
    store.create("there", cwd="/elsewhere", model_id="o3")
    store.append_events("there", [usage(1000, 100, reasoningTokens=40)])
    return store


def run(
    store: SessionStore, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str, str]:
    code = main(["usage", "--store", str(store.root), "--cwd", "/w", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_figures_are_zero_s_per_utc_day(store: SessionStore) -> None:
    report = usage_report(store, store.list())
    assert report.total.to_json() == {
        "requests": 4,
        "inputTokens": 1350,
        "outputTokens": 135,
        "totalTokens": 1485,
        "cachedInputTokens": 150,
        "cacheWriteTokens": 0,
        "reasoningTokens": 40,
    }
    # the events' UTC days (the store's clock moves six hours an event from 23:00 UTC)
    days = {day: tokens.requests for day, tokens in report.by_day.items()}
    assert sum(days.values()) == 4
    assert {model: t.total for model, t in report.by_model.items()} == {
        "gpt-5": 330,
        "claude-sonnet-4-5": 55,
        "o3": 1100,
    }
    assert {cwd: t.requests for cwd, t in report.by_workspace.items()} == {"/w": 3, "/elsewhere": 1}
    since = max(days)
    assert usage_report(store, store.list(), since=since).total.requests == days[since]


def test_a_payload_is_read_as_go_reads_it(store: SessionStore) -> None:
    store.create("odd", cwd="/w")
    store.append_events(
        "odd",
        [("provider_usage", b'{"PROMPTTOKENS":7,"completionTokens":3,"completionTokens":null}')],
    )
    (event,) = session_usage(store, "odd")
    assert (event.tokens.input, event.tokens.output, event.tokens.total) == (7, 3, 0)


def test_a_payload_zero_would_fail_on_is_left_out_and_said(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    store.create("bad", cwd="/w")
    store.append_events("bad", [("provider_usage", {"promptTokens": "many"})])
    code, out, err = run(store, capsys, "--json")
    assert code == 0
    document = json.loads(out)
    assert document["total"]["requests"] == 3
    assert [item["sessionId"] for item in document["skipped"]] == ["bad"]
    assert err == (
        "zero-tui: usage event 1 of bad: cannot unmarshal string into Go struct field "
        "usageEventPayload.promptTokens of type int: not counted\n"
    )


def test_the_command_scopes(store: SessionStore, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(store, capsys, "--json")
    here = json.loads(out)
    assert (code, here["scope"], here["total"]["requests"]) == (0, "/w", 3)
    assert [row["model"] for row in here["models"]] == ["gpt-5", "claude-sonnet-4-5"]
    code, out, _ = run(store, capsys, "--all", "--json")
    assert json.loads(out)["total"]["requests"] == 4
    code, out, _ = run(store, capsys, "--session", "here-2", "--json")
    assert json.loads(out)["topSessions"] == [{"sessionId": "here-2", **json.loads(out)["total"]}]
    assert run(store, capsys, "--since", "July 1")[0] == 2
    code, out, err = run(store, capsys)
    assert code == 0
    assert out.startswith("usage in /w, all time: 2 sessions\n")
    assert "DAY (UTC)" in out
    assert "MODEL" in out
    assert "covers a session or every workspace" in err


def fake_zero(tmp_path: Path, answer: Mapping[str, object]) -> str:
    script = tmp_path / "bin" / "zero"
    script.parent.mkdir(exist_ok=True)
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, os, sys\n"
        "assert sys.argv[1:4] == ['usage', 'report', '--json'], sys.argv\n"
        "assert os.environ['XDG_DATA_HOME'].endswith('/' + os.environ['EXPECT_DATA'])\n"
        f"print(json.dumps({answer!r}))\n"
    )
    script.chmod(0o755)
    return str(script)


def test_the_cost_is_zero_s_own_estimate(
    store: SessionStore,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    answer = {
        "buckets": [{"date": "2026-07-02", "totalCost": 0.25}],
        "total": {"totalCost": 1.258, "totalTokens": 1485},
    }
    monkeypatch.setenv("ZERO_BIN", fake_zero(tmp_path, answer))
    monkeypatch.setenv("EXPECT_DATA", tmp_path.name)
    code, out, err = run(store, capsys, "--all")
    assert (code, err) == (0, "")
    assert out.endswith("estimated cost (Zero's estimate, zero usage report): $1.2580\n")
    code, out, _ = run(store, capsys, "--all", "--json")
    assert json.loads(out)["estimatedCost"] == {
        "total": 1.258,
        "days": {"2026-07-02": 0.25},
        "source": "zero usage report",
    }


def test_without_zero_the_tokens_are_still_there(
    store: SessionStore, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", "")
    monkeypatch.delenv("ZERO_BIN", raising=False)
    code, out, err = run(store, capsys, "--all")
    assert code == 0
    assert "total" in out
    assert err.startswith("zero-tui: no cost estimate: The Zero agent (`zero`) is not on PATH")


def test_utc_days_follow_go() -> None:
    assert utc_day("2026-07-01T23:30:00-07:00") == "2026-07-02"
    assert utc_day("not a time at all") == "not a time"


def zero_agent() -> str | None:
    from shutil import which

    return os.environ.get("ZERO_BIN") or which("zero")


@pytest.mark.agent
def test_equal_to_zero_s_own_report(
    store: SessionStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import subprocess

    agent = zero_agent()
    if agent is None:
        pytest.skip("no `zero` (ZERO_BIN or PATH): the comparison with Zero's own report skips")
    env = dict(os.environ, XDG_DATA_HOME=str(store.root.parent.parent), HOME=str(tmp_path))
    env["ZERO_DISABLE_MODELS_FETCH"] = "1"
    done = subprocess.run(
        [agent, "usage", "report", "--json"], env=env, cwd=tmp_path, capture_output=True, check=True
    )
    theirs = json.loads(done.stdout)
    ours = usage_report(store, store.list())
    assert [
        (b["date"], b["requests"], b["inputTokens"], b["outputTokens"], b["totalTokens"])
        for b in theirs["buckets"]
    ] == [(day, t.requests, t.input, t.output, t.total) for day, t in sorted(ours.by_day.items())]


def test_figures_copy_the_tokens_field_by_field() -> None:
    from dataclasses import astuple

    tokens = Tokens(1, 2, 3, 4, 5, 6, 7)
    assert tokens.figures() == astuple(tokens)
    assert Tokens(*tokens.figures()) == tokens
