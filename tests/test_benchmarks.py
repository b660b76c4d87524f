"""`python -m benchmarks` works end to end at a small size (never timed here)."""

from __future__ import annotations

import pytest

from benchmarks.__main__ import QUERIES, main


def test_the_benchmark_prints_one_table_with_every_figure(
    capsys: pytest.CaptureFixture[str],
) -> None:
    arguments = ["--sessions", "24", "--small", "12", "--events", "6", "--big-events", "120"]
    tiny = ["--repeats", "1", "--rounds", "1", "--workspaces", "3", "--writes", "3"]
    assert main([*arguments, *tiny, "--idle-seconds", "0.2"]) == 0
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
        "index update after +10 events in one session",
        "transcript first screen, 120 events (0 MB)",
        "transcript peak memory (traced)",
        "export txt throughput",
        "export html throughput",
        "live picker: a write to its row on screen, p95 of 3",
        "open picker idle, CPU per minute, file-change notification",
        "open picker idle, CPU per minute, polling every 1s",
        "running mark, one look after a batch",
    ):
        assert expected in figures
    # every measured cell holds a number with its unit
    for line in table[2:]:
        cells = [cell.strip() for cell in line.split("|")[2:4]]
        assert any(cell and cell[0].isdigit() for cell in cells), line


def test_the_query_set_is_valid() -> None:
    from zero_tui.search.query import parse_query

    for query in QUERIES:
        assert not parse_query(query).is_empty
