"""The full-text query language: parsing, matching, ranking, snippets and bad input."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from zero_tui.search.catalog import SessionCatalog
from zero_tui.search.query import (
    DEFAULT_LIMIT,
    Filter,
    QueryError,
    Term,
    make_snippet,
    parse_query,
    search,
)
from zero_tui.store import Metadata, SessionStore

PLUS_TWO = timezone(timedelta(hours=2))


class Store:
    """A store whose sessions are written with a clock the test sets."""

    def __init__(self, root: Path) -> None:
        self.moment = datetime(2026, 7, 4, 10, 0, tzinfo=UTC)
        self.store = SessionStore(root, clock=lambda: self.moment)

    def add(
        self,
        session_id: str,
        *events: tuple[str, object],
        title: str = "",
        model: str = "claude-sonnet-4-5",
        provider: str = "anthropic",
        at: datetime | None = None,
    ) -> None:
        if at is not None:
            self.moment = at
        self.store.create(session_id, title=title or session_id, model_id=model, provider=provider)
        self.store.append_events(session_id, list(events))


def user(text: str) -> tuple[str, object]:
    return ("message", {"role": "user", "content": text})


def answer(text: str) -> tuple[str, object]:
    return ("message", {"role": "assistant", "content": text})


@pytest.fixture
def corpus(tmp_path: Path) -> tuple[SessionCatalog, list[Metadata]]:
    builder = Store(tmp_path / "sessions")
    day = datetime(2026, 7, 1, 12, 0, tzinfo=UTC)
    builder.add(
        "limits",
        user("Add rate limiting to the API"),
        answer("Done: a token bucket rate limiter, 5 requests per second."),
        title="Add rate limiting",
        at=day,
    )
    builder.add(
        "spread",
        user("the limit is wrong"),
        answer("the rate was computed per minute"),
        title="Fix the quota",
        model="gpt-5",
        provider="openai",
        at=day + timedelta(days=1),
    )
    builder.add(
        "payments",
        user("Explain the payment flow"),
        answer("checkout creates a Stripe PaymentIntent; the webhook is not idempotent"),
        ("tool_call", {"id": "c1", "name": "grep", "arguments": '{"pattern":"stripe\\\\."}'}),
        ("tool_result", {"toolCallId": "c1", "name": "grep", "output": "src/pay.ts: stripe."}),
        ("error", {"message": "provider error: 429 Too Many Requests"}),
        title="Explain the payment flow",
        at=day + timedelta(days=2),
    )
    builder.add(
        "phrases",
        answer("limit the rate, not the rate limit"),
        title="Words in another order",
        model="gpt-5-codex",
        provider="openai",
        at=day + timedelta(days=3, hours=21, minutes=30),  # 2026-07-05 in UTC+2
    )
    catalog = SessionCatalog(builder.store, tmp_path / "cache")
    sessions = catalog.refresh()
    catalog.update_content()
    return catalog, sessions


def hit_ids(
    corpus: tuple[SessionCatalog, list[Metadata]], query: str, **options: object
) -> list[str]:
    catalog, sessions = corpus
    result = search(catalog, query, sessions, tz=PLUS_TWO, **options)  # type: ignore[arg-type]
    return [hit.session.session_id for hit in result.hits]


# --- parsing -------------------------------------------------------------------------------


def test_parse_words_phrases_exclusions_and_filters() -> None:
    query = parse_query(
        'rate "token bucket" -minute -"per second" title:API model:"gpt 5" id:zero_'
    )
    assert query.terms == (Term("rate"), Term("token bucket", phrase=True))
    assert query.excluded == (Term("minute"), Term("per second", phrase=True))
    assert [(f.name, f.value, f.negated) for f in query.filters] == [
        ("title", "API", False),
        ("model", "gpt 5", False),
        ("id", "zero_", False),
    ]
    assert query.notices == ()


def test_parse_dates_are_local_midnights() -> None:
    query = parse_query("after:2026-07-05 before:2026-07-06", tz=PLUS_TWO)
    assert [f.moment for f in query.filters] == [
        datetime(2026, 7, 5, tzinfo=PLUS_TWO),
        datetime(2026, 7, 6, tzinfo=PLUS_TWO),
    ]


@pytest.mark.parametrize("bad", ["after:2026-13-01", "before:yesterday", "after:2026-7-1"])
def test_a_bad_date_is_a_one_line_error(bad: str) -> None:
    with pytest.raises(QueryError) as caught:
        parse_query(bad)
    assert "\n" not in str(caught.value)
    assert "YYYY-MM-DD" in str(caught.value)


def test_an_unknown_filter_is_searched_as_text_with_a_notice() -> None:
    query = parse_query("modle:gpt")
    assert query.terms == (Term("modle"), Term("gpt"))
    assert len(query.notices) == 1
    assert "modle:" in query.notices[0]


def test_an_unbalanced_quote_runs_to_the_end_and_empty_filters_are_ignored() -> None:
    query = parse_query('rate "token bucket title:')
    assert query.terms == (Term("rate"), Term("token bucket title:", phrase=True))
    assert parse_query("title: model:").filters == ()


def test_syntax_only_words_are_dropped() -> None:
    assert parse_query("* ^ - ( ) _ :").is_empty


def test_a_negated_filter_inverts_it() -> None:
    assert parse_query("-model:gpt").filters == (Filter("model", "gpt", negated=True),)


# --- matching ------------------------------------------------------------------------------


def test_words_match_in_any_order_anywhere_in_the_session(
    corpus: tuple[SessionCatalog, list[Metadata]],
) -> None:
    assert set(hit_ids(corpus, "rate limit")) == {"limits", "spread", "phrases"}
    assert set(hit_ids(corpus, "limit rate")) == set(hit_ids(corpus, "rate limit"))


def test_words_only_in_answers_and_tools_are_found(
    corpus: tuple[SessionCatalog, list[Metadata]],
) -> None:
    assert hit_ids(corpus, "Stripe") == ["payments"]
    assert hit_ids(corpus, "idempotent") == ["payments"]
    assert hit_ids(corpus, "429") == ["payments"]


def test_a_word_matches_as_a_prefix(corpus: tuple[SessionCatalog, list[Metadata]]) -> None:
    assert hit_ids(corpus, "limiter") == ["limits"]
    assert "limits" in hit_ids(corpus, "limit")


def test_a_phrase_needs_its_words_in_order(corpus: tuple[SessionCatalog, list[Metadata]]) -> None:
    assert hit_ids(corpus, '"rate limit"') == ["phrases"]
    assert hit_ids(corpus, '"token bucket"') == ["limits"]
    assert hit_ids(corpus, '"bucket token"') == []


def test_excluded_words_leave_sessions_out(corpus: tuple[SessionCatalog, list[Metadata]]) -> None:
    assert set(hit_ids(corpus, "rate -minute")) == {"limits", "phrases"}
    assert set(hit_ids(corpus, '-"rate limit" rate')) == {"limits", "spread"}


def test_filters_narrow_and_alone_list_sessions_newest_first(
    corpus: tuple[SessionCatalog, list[Metadata]],
) -> None:
    assert hit_ids(corpus, "model:GPT-5") == ["phrases", "spread"]
    assert hit_ids(corpus, "provider:anthropic") == ["payments", "limits"]
    assert set(hit_ids(corpus, "rate provider:openai")) == {"phrases", "spread"}
    assert hit_ids(corpus, "title:payment") == ["payments"]
    assert hit_ids(corpus, "id:lim") == ["limits"]
    assert hit_ids(corpus, "id:imits") == []
    assert hit_ids(corpus, "-model:gpt") == ["payments", "limits"]
    catalog, sessions = corpus
    (hit,) = search(catalog, "title:payment", sessions).hits
    assert (hit.sequence, hit.role, hit.snippet.text) == (None, None, "")


def test_dates_are_days_in_local_time(corpus: tuple[SessionCatalog, list[Metadata]]) -> None:
    # "phrases" was updated 2026-07-04 21:30 UTC: the 5th in UTC+2
    assert hit_ids(corpus, "after:2026-07-05") == ["phrases"]
    assert hit_ids(corpus, "before:2026-07-02") == ["limits"]
    assert hit_ids(corpus, "after:2026-07-02 before:2026-07-04") == ["payments", "spread"]


def test_relevance_first_then_recency(corpus: tuple[SessionCatalog, list[Metadata]]) -> None:
    # one event holding both words beats two events holding one each, although newer
    ranked = hit_ids(corpus, "rate limit")
    assert ranked.index("limits") < ranked.index("spread")


def test_each_hit_names_its_best_event_with_a_snippet(
    corpus: tuple[SessionCatalog, list[Metadata]],
) -> None:
    catalog, sessions = corpus
    (hit,) = search(catalog, "idempotent", sessions).hits
    assert (hit.sequence, hit.role, hit.compacted, hit.open_sequence) == (2, "assistant", False, 2)
    start, end = hit.snippet.spans[0]
    assert hit.snippet.text[start:end] == "idempotent"
    (tool_hit,) = search(catalog, "pay.ts", sessions).hits
    assert tool_hit.role == "tool"
    (error_hit,) = search(catalog, "429 Many", sessions).hits
    assert error_hit.role == "error"
    assert hit.to_json()["sessionId"] == "payments"
    assert set(hit.to_json()) >= {
        "sessionId",
        "title",
        "cwd",
        "updatedAt",
        "sequence",
        "role",
        "snippet",
    }


def test_the_limit_applies_and_the_count_is_kept(tmp_path: Path) -> None:
    builder = Store(tmp_path / "sessions")
    for number in range(DEFAULT_LIMIT + 5):
        builder.add(
            f"s{number:02d}", answer("same words"), at=builder.moment + timedelta(minutes=1)
        )
    catalog = SessionCatalog(builder.store, tmp_path / "cache")
    sessions = catalog.refresh()
    catalog.update_content()
    result = search(catalog, "same", sessions)
    assert (len(result.hits), result.matched) == (DEFAULT_LIMIT, DEFAULT_LIMIT + 5)
    # equal relevance: the newest first
    assert [hit.session.session_id for hit in result.hits] == [
        meta.session_id for meta in sessions[:DEFAULT_LIMIT]
    ]
    assert len(search(catalog, "same", sessions, limit=3).hits) == 3


def test_the_scope_given_is_respected(corpus: tuple[SessionCatalog, list[Metadata]]) -> None:
    catalog, sessions = corpus
    only = [meta for meta in sessions if meta.session_id == "spread"]
    assert [hit.session.session_id for hit in search(catalog, "rate", only).hits] == ["spread"]


@pytest.mark.parametrize(
    "hostile",
    [
        '"unbalanced',
        "NEAR(rate limit)",
        "rate*",
        "^rate",
        "rate:limit",
        "title:",
        "a:b:c:",
        "OR AND NOT",
        '"" "" ""',
        "rate - limit",
        "'; DROP TABLE sessions; --",
        "\x00\x1b[31m",
        "(((",
        "col:rate",
        "body:rate",
        "{rate}",
        "rate + limit",
        "é ü ß",
        "😀",
        "-",
        '-"',
        "x" * 5000,
    ],
)
def test_bad_input_never_surfaces_an_sqlite_error(
    corpus: tuple[SessionCatalog, list[Metadata]], hostile: str
) -> None:
    catalog, sessions = corpus
    result = search(catalog, hostile, sessions)
    assert not any("unavailable" in notice for notice in result.notices)


def test_fts_syntax_is_taken_literally(corpus: tuple[SessionCatalog, list[Metadata]]) -> None:
    assert hit_ids(corpus, "OR") == []  # a word, not an operator
    assert set(hit_ids(corpus, "NEAR(rate limit)")) == set(hit_ids(corpus, "near rate limit"))
    assert hit_ids(corpus, "rate:limit") == hit_ids(corpus, "rate limit")


def test_a_snippet_is_one_line_around_the_first_match_with_every_match_marked() -> None:
    body = (
        "Intro words. " * 10 + "Then the Rate\n\tlimiting part, and a rate-limit too. " + "x " * 80
    )
    snippet = make_snippet(body, [Term("rate"), Term("limit")])
    assert "\n" not in snippet.text
    assert snippet.text.startswith("…")
    assert snippet.text.endswith("…")
    assert [snippet.text[a:b] for a, b in snippet.spans] == ["Rate", "limiting", "rate", "limit"]
    phrase = make_snippet(body, [Term("rate limit", phrase=True)])
    assert [phrase.text[a:b] for a, b in phrase.spans] == ["rate-limit"]
    assert make_snippet("short text", [Term("absent")]) == make_snippet("short text", [])


def test_the_best_event_holds_every_word_when_one_does(tmp_path: Path) -> None:
    """A short event with one of the words scores better by bm25 than a long one with
    both; the hit names the event that holds every word, which ranked the session."""
    builder = Store(tmp_path / "sessions")
    padding = " ".join(f"filler{number}" for number in range(20))
    builder.add("both", user("timeout"), answer(f"{padding} the parser hit a timeout {padding}"))
    catalog = SessionCatalog(builder.store, tmp_path / "cache")
    sessions = catalog.refresh()
    catalog.update_content()
    (hit,) = search(catalog, "parser timeout", sessions).hits
    assert (hit.sequence, hit.role) == (2, "assistant")
    (hit,) = search(catalog, "timeout", sessions).hits  # one word: bm25 among them all
    assert (hit.sequence, hit.role) == (1, "user")
