"""`pin`, `unpin`, `tag`, `archive`, `unarchive` and what `sessions`, `search` and `show`
make of them (issue 29)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import StoreBuilder

from zero_tui.cli import main
from zero_tui.store.session_flags import read_flags

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def builder(make_store: Callable[..., StoreBuilder]) -> StoreBuilder:
    built = make_store("sessions")
    built.add("alpha-1", title="Alpha plan", cwd="/w", updated_at="2026-07-04T10:00:00Z")
    built.add("beta-2", title="Beta fix", cwd="/w", updated_at="2026-07-04T11:00:00Z")
    built.add("gamma-3", title="Gamma notes", cwd="/w", updated_at="2026-07-04T12:00:00Z")
    return built


@pytest.fixture
def run(builder: StoreBuilder, capsys: pytest.CaptureFixture[str]) -> Run:
    def call(*argv: str) -> tuple[int, str, str]:
        code = main(["--store", str(builder.root), "--cwd", "/w", *argv])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return call


def listed_ids(out: str) -> list[str]:
    return [item["sessionId"] for item in json.loads(out)]


def test_pin_takes_several_ids_and_prefixes_and_lists_them_first(
    run: Run, builder: StoreBuilder
) -> None:
    code, out, _err = run("pin", "alpha", "beta-2")
    assert code == 0
    assert out.splitlines() == ["pinned alpha-1", "pinned beta-2"]
    assert listed_ids(run("sessions", "--json")[1]) == ["beta-2", "alpha-1", "gamma-3"]
    _code, out, _err = run("sessions")
    assert "★ Alpha plan" in out
    assert listed_ids(run("sessions", "--pinned", "--json")[1]) == ["beta-2", "alpha-1"]
    run("unpin", "alpha-1")
    assert listed_ids(run("sessions", "--pinned", "--json")[1]) == ["beta-2"]


def test_an_unknown_id_changes_nothing(run: Run, builder: StoreBuilder) -> None:
    code, _out, err = run("pin", "alpha-1", "nothing-here")
    assert code == 1
    assert "nothing-here" in err
    assert read_flags(builder.root).sessions == {}


def test_tag_adds_and_removes_and_lists(run: Run) -> None:
    assert run("tag", "alpha-1", "gamma", "+work", "+old")[0] == 0
    code, out, _err = run("tag", "alpha-1", "-old", "+review")
    assert code == 0
    assert out == "tagged alpha-1 (tags: review, work)\n"
    assert run("tag", "alpha-1", "gamma-3")[1].splitlines() == [
        "alpha-1: review, work",
        "gamma-3: old, work",
    ]
    assert listed_ids(run("sessions", "--tag", "work", "--json")[1]) == ["gamma-3", "alpha-1"]
    assert listed_ids(run("sessions", "--tag", "work", "--tag", "old", "--json")[1]) == ["gamma-3"]
    _code, out, _err = run("sessions")
    assert "Alpha plan  #review #work" in out


@pytest.mark.parametrize("word", ["+two words", "+a,b", "+", "-"])
def test_a_bad_tag_name_is_a_clear_line(run: Run, builder: StoreBuilder, word: str) -> None:
    code, _out, err = run("tag", "alpha-1", word)
    assert code == 2
    assert err.count("\n") == 1
    assert "tag" in err
    assert read_flags(builder.root).sessions == {}


def test_archive_hides_from_sessions_and_says_so(run: Run, builder: StoreBuilder) -> None:
    before = (builder.root / "beta-2" / "metadata.json").read_bytes()
    assert run("archive", "beta-2")[0] == 0
    _code, out, err = run("sessions")
    assert "Beta fix" not in out
    assert "1 archived not shown (--archived)" in err
    assert listed_ids(run("sessions", "--archived", "--json")[1]) == ["beta-2"]
    document = json.loads(run("sessions", "--archived", "--json")[1])[0]
    assert (document["archived"], document["pinned"], document["tags"]) == (True, False, [])
    assert (builder.root / "beta-2" / "metadata.json").read_bytes() == before  # a view
    assert run("show", "beta-2")[0] == 0  # still there by id
    run("unarchive", "beta-2")
    assert "beta-2" in listed_ids(run("sessions", "--json")[1])


def test_search_filters_by_tag_and_pin(run: Run) -> None:
    run("tag", "alpha-1", "+work")
    run("pin", "gamma-3")
    assert listed_ids(run("search", "tag:work", "--json")[1]) == ["alpha-1"]
    assert listed_ids(run("search", "is:pinned", "--json")[1]) == ["gamma-3"]
    assert "alpha-1" not in listed_ids(run("search", "-tag:work", "--json")[1])
    code, _out, err = run("search", "is:sideways")
    assert code == 2
    assert "is: wants pinned or archived" in err


def test_show_says_the_flags_and_a_forks_parents_tags(run: Run, builder: StoreBuilder) -> None:
    run("tag", "alpha-1", "+work")
    run("pin", "alpha-1")
    _code, out, _err = run("show", "alpha-1")
    assert "  pinned: yes\n" in out
    assert "  tags: work\n" in out
    _code, out, _err = run("fork", "alpha-1", "--json")
    fork = json.loads(out)
    assert (fork["pinned"], fork["tags"]) == (False, [])
    _code, out, _err = run("show", fork["sessionId"])
    assert "  parent: alpha-1 (tags: work)\n" in out
    assert "  tags:" not in out


def test_a_damaged_flags_file_is_one_warning(run: Run, builder: StoreBuilder) -> None:
    from zero_tui.store.session_flags import flags_path

    path: Path = flags_path(builder.root)
    path.parent.mkdir(parents=True)
    path.write_text("{broken")
    code, out, err = run("sessions", "--json")
    assert code == 0
    assert len(listed_ids(out)) == 3
    assert err.count("pins and tags not read") == 1
