"""Each session's tokens in `sessions --json` (design §2, issue 20 part 3), remembered in
the catalog so that a listing reads a log only when it changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zero_tui.cli import main
from zero_tui.picker import session_usage as usage_module
from zero_tui.search.catalog import SessionCatalog
from zero_tui.store import SessionStore
from zero_tui.store.token_counts import Tokens, session_tokens


def usage(prompt: int, completion: int, cached: int = 0) -> tuple[str, object]:
    payload = {"promptTokens": prompt, "completionTokens": completion}
    payload |= {"totalTokens": prompt + completion}
    if cached:
        payload["cachedInputTokens"] = cached
    return ("provider_usage", payload)


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    store = SessionStore(tmp_path / "sessions")
    for session_id, figures in (("a", (100, 10, 40)), ("b", (7, 3, 0))):
        store.create(session_id, cwd="/w")
        store.append_events(
            session_id,
            [
                ("message", {"role": "user", "content": "hi"}),
                usage(*figures),
                ("message", {"role": "assistant", "content": "hello"}),
            ],
        )
    return store


def listed(store: SessionStore, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(["sessions", "--json", "--store", str(store.root), "--cwd", "/w"]) == 0
    return {item["sessionId"]: item["usage"] for item in json.loads(capsys.readouterr().out)}


def logs_read_for_tokens(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The sessions whose log the listing reads again for its tokens, from now on."""
    reads: list[str] = []
    real = session_tokens

    def counted(store: SessionStore, session_id: str) -> Tokens:
        reads.append(session_id)
        return real(store, session_id)

    monkeypatch.setattr(usage_module, "session_tokens", counted)
    return reads


def test_sessions_json_carries_each_session_s_tokens(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    assert listed(store, capsys) == {
        "a": Tokens(1, 100, 10, 110, 40).to_json(),
        "b": Tokens(1, 7, 3, 10, 0).to_json(),
    }


def test_the_figures_are_remembered_until_the_log_changes(
    store: SessionStore, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # a log changed within seconds of being read is always read again: not so here
    monkeypatch.setattr("zero_tui.search.file_identity.RACY_NS", 0)
    listed(store, capsys)  # remembers both
    reads = logs_read_for_tokens(monkeypatch)
    listed(store, capsys)
    assert reads == []
    store.append_events("b", [usage(1000, 1)])
    assert listed(store, capsys)["b"] == Tokens(2, 1007, 4, 1011, 0).to_json()
    assert reads == ["b"]


def test_a_cold_listing_counts_the_tokens_in_its_one_read_of_each_log(
    store: SessionStore, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The verdict on each log and its tokens come from the same read: none is read again
    for its tokens."""
    reads = logs_read_for_tokens(monkeypatch)
    assert listed(store, capsys) == {
        "a": Tokens(1, 100, 10, 110, 40).to_json(),
        "b": Tokens(1, 7, 3, 10, 0).to_json(),
    }
    assert reads == []


def test_an_unreadable_log_has_no_figures(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    store.append_events("b", [("provider_usage", {"promptTokens": "lots"})])
    found = listed(store, capsys)
    assert found["b"] is None
    assert found["a"] == Tokens(1, 100, 10, 110, 40).to_json()


def test_the_catalog_s_own_figures(store: SessionStore, tmp_path: Path) -> None:
    with SessionCatalog(store, tmp_path / "cache") as catalog:
        figures = usage_module.session_usage(catalog, ["a", "b", "a", "gone"])
    assert figures == {
        "a": Tokens(1, 100, 10, 110, 40),
        "b": Tokens(1, 7, 3, 10, 0),
        "gone": Tokens(),
    }


def test_show_says_the_same_figures_as_sessions_json(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    store.append_events("a", [usage(2000, 500, 1500)])
    figures = listed(store, capsys)["a"]
    assert figures == Tokens(2, 2100, 510, 2610, 1540).to_json()
    assert main(["show", "a", "--store", str(store.root)]) == 0
    out = capsys.readouterr().out
    said = "  usage: 2 requests · 2,100 input (1,540 cached) · 510 output · 2,610 total\n"
    assert said in out
    assert out.index(said) < out.index("you: hi")  # in the header, before the rows


def test_show_of_a_session_without_usage_says_none_was_recorded(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    store.create("quiet", cwd="/w")
    store.append_events("quiet", [("message", {"role": "user", "content": "hi"})])
    assert main(["show", "quiet", "--store", str(store.root)]) == 0
    assert "  usage: none recorded\n" in capsys.readouterr().out


def test_show_of_an_unreadable_usage_event_says_nothing_of_usage(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    store.append_events("b", [("provider_usage", {"promptTokens": "lots"})])
    assert main(["show", "b", "--store", str(store.root)]) == 0
    out = capsys.readouterr().out
    assert "usage:" not in out
    assert "you: hi" in out


def test_show_json_stays_an_array_of_events(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["show", "a", "--json", "--store", str(store.root)]) == 0
    events = json.loads(capsys.readouterr().out)
    assert isinstance(events, list)
    assert all("type" in event for event in events)


def test_a_cold_catalog_counts_every_log_and_leaves_out_one_it_cannot_count(
    store: SessionStore, tmp_path: Path
) -> None:
    for number in range(6):
        store.create(f"more-{number}", cwd="/w")
        store.append_events(f"more-{number}", [usage(number, 1, number // 2)] * (number % 3))
    store.append_events("more-5", [("provider_usage", {"promptTokens": "lots"})])
    wanted = ["a", "b", *(f"more-{number}" for number in range(6)), "gone"]
    with SessionCatalog(store, tmp_path / "here") as catalog:
        here = usage_module.session_usage(catalog, wanted)
    assert "more-5" not in here
    assert here["more-4"] == Tokens(1, 4, 1, 5, 2)
