"""The scriptable CLI (design §2): `zero-tui sessions` and `zero-tui show`."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zero_tui import json_output
from zero_tui.cli import main
from zero_tui.store import Metadata, SessionStore
from zero_tui.store.token_counts import Tokens
from zero_tui.text.sanitize import escape_json_controls


def ticking_clock(start: datetime) -> Iterator[datetime]:
    moment = start
    while True:
        yield moment
        moment += timedelta(seconds=1)


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "cache"
    monkeypatch.setenv("ZERO_TUI_CACHE_DIR", str(cache))
    return cache


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    ticks = ticking_clock(datetime(2026, 7, 4, 9, 0, 0, tzinfo=UTC))
    return SessionStore(tmp_path / "sessions", clock=lambda: next(ticks))


def add_session(
    store: SessionStore,
    session_id: str,
    *,
    cwd: str,
    title: str = "",
    answer: str | None = "done",
    model_id: str = "",
    provider: str = "",
) -> None:
    store.create(session_id, title=title, cwd=cwd, model_id=model_id, provider=provider)
    events: list[tuple[str, object]] = [("message", {"role": "user", "content": "please"})]
    if answer is not None:
        events.append(("message", {"role": "assistant", "content": answer}))
    store.append_events(session_id, events)


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def workspace(tmp_path: Path) -> str:
    path = tmp_path / "proj"
    path.mkdir()
    return str(path)


def test_sessions_json_lists_the_workspace_in_picker_order(
    store: SessionStore, workspace: str, capsys: pytest.CaptureFixture[str]
) -> None:
    add_session(store, "older", cwd=workspace, title="Fix parser", model_id="gpt-4.1")
    add_session(store, "elsewhere", cwd="/some/other/place", title="Other")
    add_session(store, "newer", cwd=workspace, title="Add tests", provider="openai")
    add_session(store, "empty", cwd=workspace, answer=None)

    code, out, err = run_cli(
        ["sessions", "--json", "--store", str(store.root), "--cwd", workspace], capsys
    )

    assert (code, err) == (0, "")
    listed = json.loads(out)
    assert [item["sessionId"] for item in listed] == ["newer", "older"]
    assert listed[1]["title"] == "Fix parser"
    assert listed[1]["modelId"] == "gpt-4.1"
    assert listed[0]["provider"] == "openai"
    for key in ("sessionId", "title", "cwd", "updatedAt", "eventCount", "modelId", "provider"):
        assert key in listed[0]
    assert listed[0]["eventCount"] == 2
    assert listed[0]["sessionKind"] == ""


def test_sessions_flags_widen_scope_and_show_empty_runs(
    store: SessionStore, workspace: str, capsys: pytest.CaptureFixture[str]
) -> None:
    add_session(store, "here", cwd=workspace)
    add_session(store, "there", cwd="/elsewhere")
    add_session(store, "empty", cwd=workspace, answer=None)
    base = ["sessions", "--json", "--store", str(store.root), "--cwd", workspace]

    def ids(*extra: str) -> set[str]:
        code, out, _ = run_cli([*base, *extra], capsys)
        assert code == 0
        return {item["sessionId"] for item in json.loads(out)}

    assert ids() == {"here"}
    assert ids("--all") == {"here", "there"}
    assert ids("--include-empty") == {"here", "empty"}
    assert ids("--all", "--include-empty") == {"here", "there", "empty"}


def test_sessions_table_says_what_it_hides(
    store: SessionStore, workspace: str, capsys: pytest.CaptureFixture[str]
) -> None:
    add_session(store, "here", cwd=workspace, title="Visible [bold]title[/bold]\x1b[31m")
    add_session(store, "there", cwd="/elsewhere")
    add_session(store, "empty", cwd=workspace, answer=None)

    code, out, err = run_cli(["sessions", "--store", str(store.root), "--cwd", workspace], capsys)

    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 2  # the header and one session: `| wc -l` counts them
    assert lines[0].split() == ["UPDATED", "EVENTS", "MODEL", "ID", "TITLE"]
    assert "here" in lines[1]
    assert "Visible [bold]title[/bold]" in lines[1]
    assert "\x1b" not in out
    assert err == "1 shown · 1 in other workspaces (--all) · 1 empty run (--include-empty)\n"


def test_sessions_table_columns_line_up_whatever_the_id_lengths(
    store: SessionStore, workspace: str, capsys: pytest.CaptureFixture[str]
) -> None:
    add_session(store, "a", cwd=workspace, title="Short id", model_id="gpt-4.1")
    add_session(store, "zero_20260704090000_1234567890_7", cwd=workspace, title="Long id")
    add_session(store, "mid-length-id", cwd="/elsewhere", title="Elsewhere")

    for extra in ([], ["--all"]):
        code, out, _ = run_cli(
            ["sessions", "--store", str(store.root), "--cwd", workspace, *extra], capsys
        )
        assert code == 0
        lines = out.splitlines()
        title_column = lines[0].index("TITLE")
        id_column = lines[0].index("ID")
        for line in lines[1:]:
            assert line[title_column - 2 : title_column] == "  "
            assert line[title_column] != " "  # every title starts in the TITLE column
            assert line[id_column - 2 : id_column] == "  "
        assert len(lines) == 1 + (3 if extra else 2)
    assert "WORKSPACE" in lines[0]


def test_an_explicit_store_must_exist_but_the_default_need_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "no-such-store"
    for command in (["sessions"], ["show", "x"], ["export", "x"], ["sessions", "--json"]):
        code, out, err = run_cli([*command, "--store", str(missing)], capsys)
        assert (code, out, err) == (1, "", f"zero-tui: no session store at {missing}\n")
    assert not missing.exists()

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "fresh-data"))
    code, out, err = run_cli(["sessions", "--cwd", str(tmp_path)], capsys)
    assert (code, out) == (0, "")
    assert err.startswith("no sessions yet")


def test_store_and_cwd_are_accepted_before_the_subcommand(
    store: SessionStore, workspace: str, capsys: pytest.CaptureFixture[str]
) -> None:
    add_session(store, "here", cwd=workspace)
    code, out, _ = run_cli(
        ["--store", str(store.root), "--cwd", workspace, "sessions", "--json"], capsys
    )
    assert code == 0
    assert [item["sessionId"] for item in json.loads(out)] == ["here"]


def test_cwd_need_not_exist(store: SessionStore, capsys: pytest.CaptureFixture[str]) -> None:
    add_session(store, "gone", cwd="/projects/deleted-long-ago")
    code, out, _ = run_cli(
        ["sessions", "--json", "--store", str(store.root), "--cwd", "/projects/deleted-long-ago"],
        capsys,
    )
    assert code == 0
    assert [item["sessionId"] for item in json.loads(out)] == ["gone"]


def test_show_json_prints_rehydrated_events(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    store.create("s", cwd="/w")
    store.append_events(
        "s",
        [
            ("message", {"role": "user", "content": "alpha"}),
            ("message", {"role": "assistant", "content": "beta"}),
            ("message", {"role": "user", "content": "gamma"}),
            ("provider_usage", None),
        ],
    )
    store.append_events(
        "s",
        [
            (
                "session_compaction",
                {
                    "summary": "early summary",
                    "compactedThroughSequence": 2,
                    "compactableEvents": [
                        {"id": "s:1", "sequence": 1, "type": "message"},
                        {"id": "s:2", "sequence": 2, "type": "message"},
                    ],
                },
            )
        ],
    )

    code, out, _ = run_cli(["show", "s", "--json", "--store", str(store.root)], capsys)
    assert code == 0
    events = json.loads(out)
    assert [event["id"] for event in events] == ["s:5", "s:3", "s:4"]
    assert events[0]["payload"]["summary"] == "early summary"
    assert events[2]["payload"] is None
    assert set(events[1]) == {"id", "sessionId", "sequence", "type", "createdAt", "payload"}

    code, out, _ = run_cli(["show", "s", "--json", "--raw", "--store", str(store.root)], capsys)
    assert code == 0
    assert [event["sequence"] for event in json.loads(out)] == [1, 2, 3, 4, 5]


def test_show_falls_back_to_raw_events_and_says_so(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    store.create("s", cwd="/w")
    store.append_events(
        "s",
        [
            ("message", {"role": "user", "content": "alpha"}),
            ("session_compaction", {"summary": ""}),
        ],
    )
    code, out, err = run_cli(["show", "s", "--json", "--store", str(store.root)], capsys)
    assert code == 0
    assert [event["id"] for event in json.loads(out)] == ["s:1", "s:2"]
    assert "summary is required" in err
    assert len(err.strip().splitlines()) == 1


def test_show_human_transcript(store: SessionStore, capsys: pytest.CaptureFixture[str]) -> None:
    add_session(store, "s", cwd="/w", title="Readable", answer="Here is **the** answer")
    code, out, _ = run_cli(["show", "s", "--store", str(store.root)], capsys)
    assert code == 0
    assert "Readable" in out
    assert "you: please" in out
    assert "zero: Here is **the** answer" in out


def test_show_errors_are_one_line_with_exit_1(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    add_session(store, "good", cwd="/w")
    store.create("bad", cwd="/w")
    store.events_path("bad").write_bytes(b'{"sequence":1}\nnot json\n{"sequence":3}\n')

    code, out, err = run_cli(["show", "missing", "--store", str(store.root)], capsys)
    assert (code, out) == (1, "")
    assert err == "zero-tui: zero session not found: missing\n"

    code, _, err = run_cli(["show", "bad", "--store", str(store.root)], capsys)
    assert code == 1
    assert "events.jsonl at line 2" in err
    assert len(err.splitlines()) == 1

    code, _, err = run_cli(["show", "../escape", "--store", str(store.root)], capsys)
    assert code == 1
    assert err == 'zero-tui: invalid zero session id "../escape"\n'


def test_an_id_prefix_or_latest_works_wherever_an_id_does(
    store: SessionStore, workspace: str, capsys: pytest.CaptureFixture[str]
) -> None:
    add_session(store, "zero_20260704_alpha", cwd=workspace, title="Alpha", answer="first")
    add_session(store, "zero_20260704_beta", cwd=workspace, title="Beta", answer="second")
    base = ["--store", str(store.root), "--cwd", workspace]

    code, out, _ = run_cli(["show", "zero_20260704_a", *base], capsys)
    assert code == 0
    assert "zero: first" in out

    code, out, _ = run_cli(["show", "latest", *base], capsys)  # what --resume latest opens
    assert code == 0
    assert "zero: second" in out

    code, out, _ = run_cli(["export", "zero_20260704_b", "-o", "b.txt", *base], capsys)
    assert code == 0
    assert "zero: second" in Path(workspace, "b.txt").read_text(encoding="utf-8")

    code, out, err = run_cli(["show", "zero_2026", *base], capsys)
    assert (code, out) == (1, "")
    assert err == (
        "zero-tui: ambiguous session id 'zero_2026': 2 sessions start with it: "
        "zero_20260704_alpha, zero_20260704_beta\n"
    )
    code, out, err = run_cli(["export", "zero_2026", *base], capsys)
    assert (code, out) == (1, "")
    assert "ambiguous session id" in err


def test_a_session_named_by_id_is_read_without_the_catalog(
    store: SessionStore, workspace: str
) -> None:
    # the catalog's imports cost ~20 ms; only `latest` needs it
    add_session(store, "zero_20260704_alpha", cwd=workspace, title="Alpha", answer="first")
    probe = (
        "import sys; from zero_tui.cli import _main; "
        "code = _main(sys.argv[1:]); "
        "sys.stdout.write(f'|{code} {\"zero_tui.search.catalog\" in sys.modules}')"
    )
    base = ["--store", str(store.root), "--cwd", workspace]
    for name, loaded in (("zero_20260704_a", False), ("latest", True)):
        result = subprocess.run(
            [sys.executable, "-c", probe, "export", name, "-o", "-", *base],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
        assert "zero: first" in result.stdout, result.stderr
        assert result.stdout.rsplit("|", 1)[1] == f"0 {loaded}"


def test_usage_errors_exit_2_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["show"], capsys)
    assert (code, out) == (2, "")
    assert len(err.splitlines()) == 1
    assert err.startswith("zero-tui: ")

    code, _, err = run_cli(["sessions", "--no-such-flag"], capsys)
    assert code == 2
    assert len(err.splitlines()) == 1


def test_installed_console_script_runs_without_textual(store: SessionStore, workspace: str) -> None:
    add_session(store, "here", cwd=workspace, title="From the console script")
    script = shutil.which("zero-tui", path=os.path.dirname(sys.executable))
    command = [script] if script else [sys.executable, "-m", "zero_tui"]
    result = subprocess.run(
        [*command, "sessions", "--json", "--store", str(store.root), "--cwd", workspace],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)[0]["title"] == "From the console script"


def test_default_cwd_is_the_shell_spelling(
    store: SessionStore,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    add_session(store, "via-link", cwd=str(link))
    monkeypatch.chdir(real)
    monkeypatch.setenv("PWD", str(link))
    code, out, _ = run_cli(["sessions", "--json", "--store", str(store.root)], capsys)
    assert code == 0
    assert [item["cwd"] for item in json.loads(out)] == [str(link)]


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(items=st.lists(_JSON_VALUES, max_size=6))
def test_a_json_listing_is_json_dumps_of_each_item_on_its_own_line(items: list[object]) -> None:
    """The compact encoder made once gives json.dumps' text, control characters escaped."""
    out = io.StringIO()
    json_output.write_json_array(items, out)
    lines = out.getvalue().split("\n")
    assert lines[0] == "["
    assert lines[-2:] == ["]", ""]
    body = [line.removesuffix(",") for line in lines[1:-2]]
    assert body == [escape_json_controls(json.dumps(item, ensure_ascii=False)) for item in items]
    assert json.loads(out.getvalue()) == items


_TEXTS = st.text(max_size=12)
_METADATA = st.builds(
    Metadata,
    session_id=_TEXTS,
    title=_TEXTS,
    cwd=_TEXTS,
    created_at=_TEXTS,
    updated_at=_TEXTS,
    event_count=st.integers(-(2**63), 2**63 - 1),
    last_event_type=_TEXTS,
    model_id=_TEXTS,
    provider=_TEXTS,
    session_kind=_TEXTS,
    parent_session_id=_TEXTS,
)


@settings(max_examples=200, deadline=None)
@given(
    sessions=st.lists(_METADATA, max_size=5),
    figures=st.lists(st.integers(0, 10**12), min_size=7, max_size=7),
    running=st.booleans(),
)
def test_a_listing_s_lines_are_its_summaries_encoded(
    sessions: list[Metadata], figures: list[int], running: bool
) -> None:
    """The keys written once and only the values encoded: the text json gives the summary."""
    tokens = Tokens(*figures)
    usage = {meta.session_id: tokens for meta in sessions[::2]}
    running_ids = {meta.session_id for meta in sessions} if running else set()
    lines = json_output.summary_lines(sessions, running_ids, usage)
    expected = []
    for meta in sessions:
        counted = usage.get(meta.session_id)
        summary = json_output.session_summary(
            meta,
            running=meta.session_id in running_ids,
            usage=None if counted is None else counted.to_json(),
        )
        expected.append(json.dumps(summary, ensure_ascii=False))
    assert lines == expected


@pytest.mark.parametrize(
    "odd_values",
    [{"event_count": True}, {"event_count": 1.5}, {"title": None}, {"title": 7}],
)
def test_a_listing_line_of_an_odd_value_is_what_json_gives(odd_values: dict[str, Any]) -> None:
    odd = dataclasses.replace(Metadata(session_id="odd"), **odd_values)  # not from Go
    assert json_output.summary_lines([odd], set(), {}) == [
        json.dumps(json_output.session_summary(odd), ensure_ascii=False)
    ]
