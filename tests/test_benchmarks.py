"""`python -m benchmarks` works end to end at a small size (never timed here)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from benchmarks import zero_bench
from benchmarks.__main__ import QUERIES, main
from benchmarks.local_sshd import missing_tools
from benchmarks.store_bench import generate_store

HOSTS_FIGURES = (
    ()
    if missing_tools()
    else (
        "hosts: first sync over ssh",
        "hosts: incremental sync, one session +10 events",
        "hosts: data sent for that sync (rsync's literal data)",
        "hosts: `search --host devbox --all` over the mirror (median)",
        "hosts: picker first rows, three hosts of N beside N local, warm",
        "hosts: `search --host all --all` across three hosts and N local (median)",
    )
)


def test_the_benchmark_prints_one_table_with_every_figure(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--quick", "--skip-tui"]) == 0
    out = capsys.readouterr().out
    table = [line for line in out.splitlines() if line.startswith("|")]
    header = table[0]
    assert "12 sessions" in header
    assert "24 sessions" in header
    assert "growth 12→24" in header
    figures = [line.split("|")[1].strip() for line in table[2:]]
    for expected in (
        "picker first rows, warm cache",
        "picker first rows, cold cache",
        "title ranking per keystroke, p50",
        "title ranking per keystroke, p95",
        "title ranking per keystroke, p95, 240 rows",
        "`sessions --all --json`, warm",
        "content query in-process, p95",
        "`zero-tui search` process (median)",
        "index build, cold",
        "full-text index size (the catalog's file)",
        "index update after +10 events in one session",
        "transcript first screen, 120 events (0 MB)",
        "transcript peak memory (traced)",
        "export txt throughput",
        "export html throughput",
        "vs Zero: `zero-tui search --all` a common word, readable output",
        "vs Zero: `zero-tui search --all` two words, readable output",
        "vs Zero: `sessions --all --json`, cold cache",
        "vs Zero: full-text index, cold build",
        "vs Zero: `export --format txt -o -`, 120 events (0 MB)",
        "live picker: a write to its row on screen, p95 of 3",
        "open picker idle, CPU per minute, file-change notification",
        "open picker idle, CPU per minute, polling every 1s",
        "running mark, one look after a batch",
        "`sessions --all --json` with usage, warm cache",
        "`sessions --all --json` with usage, cold cache",
        "picker first rows with the tokens column, warm cache",
        *HOSTS_FIGURES,
    ):
        assert expected in figures
    # the rows against Zero say what they were compared with
    no_zero = zero_bench.find_zero()[0] is None
    for line in table[2:]:
        if line.split("|")[1].strip().startswith("vs Zero"):
            assert ("(no zero)" in line) == no_zero, line
    # every measured cell holds a number with its unit
    for line in table[2:]:
        cells = [cell.strip() for cell in line.split("|")[2:4]]
        assert any(cell and cell[0].isdigit() for cell in cells), line


def test_the_query_set_is_valid() -> None:
    from zero_tui.search.query import parse_query

    for query in QUERIES:
        assert not parse_query(query).is_empty


def test_paired_runs_alternate_and_give_the_median_of_the_ratios() -> None:
    calls: list[str] = []
    ours = iter([1.0, 2.0, 9.0])
    theirs = iter([2.0, 1.0, 3.0])

    def run_ours() -> float:
        calls.append("ours")
        return next(ours)

    def run_theirs() -> float:
        calls.append("theirs")
        return next(theirs)

    assert zero_bench._paired(run_ours, run_theirs, 3) == (2.0, 2.0, 2.0)
    assert calls == ["ours", "theirs", "theirs", "ours", "ours", "theirs"]


@pytest.mark.e2e
@pytest.mark.parametrize("against", ["a plain lister", "zero"])
def test_the_picker_is_timed_in_tmux(tmp_path: Path, against: str) -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    zero = zero_bench.find_zero()[0] if against == "zero" else None
    if against == "zero" and zero is None:
        pytest.skip("no real zero ($ZERO_BIN, PATH)")
    root = tmp_path / "data" / "zero" / "sessions"
    workspace = Path(generate_store(root, 12, 6, 3, str(tmp_path / "workspaces"))[0])
    workspace.mkdir(parents=True)
    env = zero_bench.sandbox_env(tmp_path, tmp_path / "data")
    notes: list[str] = []
    rows, frame = zero_bench.compare_picker(root, 12, workspace, env, tmp_path, zero, 1, notes)
    assert 0 < frame.ours_s <= rows.ours_s
    assert 0 < frame.theirs_s <= rows.theirs_s
    assert ("(no zero)" in rows.baseline) == (zero is None)
    assert rows.within is None if zero is None else rows.within == (rows.ratio <= 1.5)


def test_the_keys_table_holds_zero_tui_to_its_goal_against_the_bare_input() -> None:
    from benchmarks.__main__ import keys_rows, render_keys
    from benchmarks.keys_bench import KeyFigures

    figures = [
        KeyFigures("bare Textual Input", "", "Input: type", 0.004, 0.01, 0.02, 20, 0),
        KeyFigures("zero-tui", "demo store", "picker: move ↓/↑", 0.005, 0.01, 0.02, 20, 0),
        KeyFigures("zero-tui", "demo store", "picker: type a query", 0.04, 0.01, 0.02, 20, 1),
        KeyFigures("Zero's TUI", "10 sessions", "prompt: type", 0.002, 0.01, 0.02, 20, 0),
    ]
    table = render_keys(keys_rows(figures)).splitlines()
    assert table[0].startswith("| Keys: action | program | store | CPU per key | vs bare Input")
    bare, move, typing, zero = table[2:]
    assert bare.endswith("|  |  |")  # the baseline itself: no ratio, no goal
    assert "| 1.25x |" in move
    assert move.endswith("| ≤ 1.5x | ok |")
    assert "(1 of 20 never drawn)" in typing
    assert typing.endswith("| **over** |")
    assert "| 0.50x |" in zero
    assert zero.endswith("|  |  |")  # Zero's figures are beside ours, not held to a goal


def test_the_start_table_holds_the_picker_to_its_goal_against_the_bare_app() -> None:
    from benchmarks.start_bench import StartFigures, render

    figures = [
        StartFigures("demo store", 17, 0.2, 0.22, 1.1, 0.2, 0.21),
        StartFigures("10,000 sessions", 50, 0.2, 0.5, 2.5, 0.2, 0.55),
    ]
    header, _, within, over = render(figures).splitlines()
    assert header.startswith("| Start: first rows, warm cache | store | rows | bare Textual app")
    assert "| demo store | 17 | 200.0 ms | 220.0 ms | 1.10x | ≤ 1.15x | ok |" in within
    assert "| 2.50x | ≤ 1.15x | **over** |" in over
    assert over.endswith("| 200 ms | 550 ms | 2.75x |")


@pytest.mark.e2e
def test_the_start_is_timed_beside_a_bare_textual_app_in_tmux(tmp_path: Path) -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    from benchmarks.start_bench import run

    demo, generated = run(sessions=12, events=6, repeats=1)
    assert (demo.store, generated.store) == ("demo store", "12 sessions")
    for figures in (demo, generated):
        assert figures.rows > 0
        assert figures.bare_s > 0
        assert figures.ours_s > 0
        assert figures.ratio > 0
