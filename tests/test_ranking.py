"""Picker ranking: Go's tiers exactly (spec tui-behaviour §2, §10 cases 25-30), the typo
tier, highlight positions, hostile and non-ASCII text, and the fast index against the
row-by-row port."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from zero_tui.picker.ranking import (
    GO_SCORES,
    Match,
    PickerItem,
    RankedIndex,
    Ranking,
    Tier,
    apply_query,
    fuzzy_subsequence_gap,
    normalize_query,
    score_picker_item,
    selection_after_query,
)
from zero_tui.store.gotext import go_lower

SESSION_ID = "zero_20260604100000_1780567200000000000_17"


def ranked_values(items: list[PickerItem], query: str) -> list[str]:
    return [items[match.index].value for match in RankedIndex(items).rank(query)]


def highlighted(item: PickerItem, match: Match) -> str:
    return "".join(item.label[position] for position in match.positions)


def session(label: str, number: int) -> PickerItem:
    return PickerItem(label=label, value=f"zero_20260604100000_1780567200000000000_{number}")


# --- §10 cases 25-30 -----------------------------------------------------------------------


def test_case_25_exact_label_beats_contains() -> None:
    items = [
        PickerItem("Claude Opus 4.5", "opus-4.5"),
        PickerItem("Claude Sonnet 4.5", "sonnet-4.5"),
        PickerItem("Sonnet", "sonnet"),
    ]
    assert ranked_values(items, "sonnet") == ["sonnet", "sonnet-4.5"]
    assert [items[i].value for i in apply_query(items, "sonnet")] == ["sonnet", "sonnet-4.5"]


def test_case_26_subsequence_only() -> None:
    items = [PickerItem("Claude Sonnet 4.5", "sonnet-4.5"), PickerItem("GPT-5", "gpt-5")]
    assert ranked_values(items, "snt45") == ["sonnet-4.5"]
    assert [items[i].value for i in apply_query(items, "snt45")] == ["sonnet-4.5"]


def test_case_27_groups_stay_contiguous_and_tie_on_first_match() -> None:
    items = [
        PickerItem("gpt-5 mini", "a", group="openai"),
        PickerItem("sonnet 4.5", "b", group="anthropic"),
        PickerItem("gpt-5 codex", "c", group="openai"),
        PickerItem("opus 4.5", "d", group="anthropic"),
    ]
    assert ranked_values(items, "5") == ["a", "c", "b", "d"]
    assert [items[i].value for i in apply_query(items, "5")] == ["a", "c", "b", "d"]


def test_groups_order_by_best_score_before_first_position() -> None:
    items = [
        PickerItem("mini gpt", "a", group="openai"),
        PickerItem("gpt", "b", group="other"),
        PickerItem("gpt-4", "c", group="openai"),
    ]
    # "other" holds the exact match (0), so it leads although "openai" matched first.
    assert ranked_values(items, "gpt") == ["b", "c", "a"]
    assert [items[i].value for i in apply_query(items, "gpt")] == ["b", "c", "a"]


@pytest.mark.parametrize(
    ("item", "score", "tier"),
    [
        (PickerItem("abc", "abc"), 0, Tier.EXACT),
        (PickerItem("abcd", "abcd"), 20, Tier.LABEL_PREFIX),
        (PickerItem("xabc", "xabc"), 40, Tier.LABEL_CONTAINS),
        (PickerItem("zzz", "abc-id"), 80, Tier.HAY_CONTAINS),
        (PickerItem("a_b_c", "a_b_c"), 122, Tier.SUBSEQUENCE),
    ],
)
def test_case_28_tier_scores(item: PickerItem, score: int, tier: Tier) -> None:
    assert score_picker_item(item, "abc") == score
    (match,) = RankedIndex([item]).rank("abc")
    assert (match.tier, match.score) == (tier, score)


def test_case_28_hay_prefix_cannot_fire_without_a_group() -> None:
    item = PickerItem("zzz", "abc-id")
    assert go_lower(f"{item.group} {item.label} {item.value} {item.meta}").startswith(" ")
    assert score_picker_item(item, "abc") == 80
    grouped = PickerItem("zzz", "x", group="abc")
    assert score_picker_item(grouped, "abc") == 60
    (match,) = RankedIndex([grouped, PickerItem("q", "q", group="other")]).rank("abc")
    assert (match.tier, match.score) == (Tier.HAY_PREFIX, 60)


def test_case_28_ranking() -> None:
    items = [PickerItem(label, label) for label in ("xabc", "a_b_c", "abc", "abcd")]
    assert ranked_values(items, "abc") == ["abc", "abcd", "xabc", "a_b_c"]


@pytest.mark.parametrize(
    ("value", "query", "gap"),
    [
        ("abcdef", "ace", 2),
        ("aXbXXb", "ab", 1),
        ("abc", "", 0),
        ("abc", "abd", None),
        ("ba", "ab", None),
    ],
)
def test_case_29_fuzzy_subsequence_gap(value: str, query: str, gap: int | None) -> None:
    assert fuzzy_subsequence_gap(value, query) == gap


def test_case_30_selection_semantics() -> None:
    items = [PickerItem(f"row {n}", f"v{n}") for n in range(6)]
    index = RankedIndex(items)
    assert selection_after_query(3, "", len(index.rank(""))) == 3
    assert selection_after_query(3, "", 2) == 1  # clamped to a shorter list
    assert selection_after_query(3, "", 0) == 0
    assert selection_after_query(3, "x", len(index.rank("x"))) == 0
    # Deleting the "x" again: every item in original order, and the selection stays 0.
    assert [match.index for match in index.rank("")] == list(range(6))
    assert selection_after_query(0, "", len(index.rank(""))) == 0


# --- query normalisation, empty query --------------------------------------------------------


def test_empty_and_blank_queries_list_everything_in_order() -> None:
    items = [PickerItem("b"), PickerItem("a"), PickerItem("c")]
    index = RankedIndex(items)
    for query in ("", "   ", "\t\n", "\u3000"):
        ranking = index.rank(query)
        assert ranking.indices == [0, 1, 2]
        assert {match.tier for match in ranking} == {Tier.UNFILTERED}
        assert all(match.positions == () for match in ranking)


def test_query_is_trimmed_with_go_whitespace_and_lowered() -> None:
    assert normalize_query("  SoNNet \n") == "sonnet"
    # Go's TrimSpace keeps \x1c-\x1f, which Python's strip() would remove.
    assert normalize_query("\x1cab\x1f") == "\x1cab\x1f"
    items = [PickerItem("Sonnet", "sonnet")]
    assert ranked_values(items, "  SONNET ") == ["sonnet"]
    assert ranked_values(items, "\x1c") == []


def test_go_lower_keeps_one_code_point_per_code_point() -> None:
    assert go_lower("İstanbul") == "istanbul"
    assert len(go_lower("İ")) == 1
    # No final-sigma rule: Go lowers a capital sigma the same way at the end of a word.
    assert go_lower("ΟΔΟΣ") == "\u03bf\u03b4\u03bf\u03c3"


# --- ids --------------------------------------------------------------------------------------


def test_session_id_is_searchable_but_never_highlighted() -> None:
    items = [session("Jul 24 10:47  Fix parser", 17), session("Jul 23 09:00  Add tests", 18)]
    ranking = RankedIndex(items).rank(SESSION_ID)
    assert len(ranking) == 1
    (match,) = ranking
    assert (match.index, match.tier, match.score, match.positions) == (0, Tier.HAY_CONTAINS, 80, ())


def test_unknown_id_leaves_no_rows() -> None:
    items = [session("Jul 24 10:47  Fix parser", 17), session("Jul 23 09:00  Add tests", 18)]
    assert len(RankedIndex(items).rank("__missing_session__")) == 0


# --- highlight positions -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("label", "query", "tier", "expected"),
    [
        ("Parser", "parser", Tier.EXACT, "Parser"),
        ("Fix parser", "fix", Tier.LABEL_PREFIX, "Fix"),
        ("Fix the Parser now", "parser", Tier.LABEL_CONTAINS, "Parser"),
        ("Fix parser", "fpr", Tier.SUBSEQUENCE, "Fpr"),
        ("Fix the flaky test", "fix flky", Tier.SUBSEQUENCE, "Fix flky"),
    ],
)
def test_highlight_positions_per_go_tier(label: str, query: str, tier: Tier, expected: str) -> None:
    item = PickerItem(label, "some-id")
    (match,) = RankedIndex([item]).rank(query)
    assert match.tier is tier
    assert highlighted(item, match) == expected


def test_highlight_of_a_match_spanning_label_and_id_keeps_the_label_part() -> None:
    item = PickerItem("Fix parser", "abc")
    (match,) = RankedIndex([item]).rank("parser ab")
    assert match.tier is Tier.HAY_CONTAINS
    assert highlighted(item, match) == "parser"


def test_highlight_of_a_subsequence_partly_in_the_id() -> None:
    item = PickerItem("Fix parser", "xyz-id")
    (match,) = RankedIndex([item]).rank("fiz")  # "fixz" would be taken for a typo of "fix"
    assert match.tier is Tier.SUBSEQUENCE
    assert highlighted(item, match) == "Fi"


def test_highlight_in_hay_prefix_tier_covers_the_label_part_only() -> None:
    items = [PickerItem("gpt-5", "a", group="openai"), PickerItem("opus", "b", group="x")]
    (match,) = RankedIndex(items).rank("openai gp")
    assert match.tier is Tier.HAY_PREFIX
    assert highlighted(items[0], match) == "gp"


# --- typo tier ----------------------------------------------------------------------------------


def typo_corpus() -> list[PickerItem]:
    titles = [
        "Fix the flaky test in store/lock_test.go",
        "export the transcript",
        "Use claude sonnet for reviews",
        "Refactor the parser",
        "Explain the retry loop",
        "restore the store before release",
        "Exprot tool crashes",  # a real (label contains) match for "exprot"
        "EXPort: PROTect the id",  # a real subsequence match for "exprot"
    ]
    return [session(f"Jul {day:2d} 10:47  {title}", day) for day, title in enumerate(titles, 1)]


def test_typo_snnet_finds_sonnet() -> None:
    items = typo_corpus()
    ranking = RankedIndex(items).rank("snnet")
    found = [items[match.index].label for match in ranking]
    assert "Jul  3 10:47  Use claude sonnet for reviews" in found


def test_typo_with_an_inserted_letter_finds_its_row_in_the_typo_tier() -> None:
    items = typo_corpus()
    ranking = RankedIndex(items).rank("sonnnet")
    assert [(match.index, match.tier) for match in ranking] == [(2, Tier.TYPO)]
    (match,) = ranking
    assert 75 <= match.score < 100
    assert highlighted(items[2], match) == "sonnet"


def test_typo_exprot_ranks_below_every_real_match() -> None:
    items = typo_corpus()
    ranking = list(RankedIndex(items).rank("exprot"))
    tiers = [match.tier for match in ranking]
    assert tiers == sorted(tiers)  # typo rows come after every Go-tier row
    go_rows = [match.index for match in ranking if match.tier is not Tier.TYPO]
    assert go_rows == apply_query(items, "exprot")
    assert go_rows[:2] == [6, 7]
    typo_rows = [match for match in ranking if match.tier is Tier.TYPO]
    assert [match.index for match in typo_rows] == [1]
    assert highlighted(items[1], typo_rows[0]) in {"exprt", "expot"}


def test_typo_rows_order_by_similarity_then_original_order() -> None:
    items = [
        session("Jul  1 10:47  export again", 1),
        session("Jul  2 10:47  exprot", 2),
        session("Jul  3 10:47  export the transcript", 3),
        session("Jul  4 10:47  sonnet exprt", 4),
    ]
    ranking = RankedIndex(items).rank("exprot")
    assert [(match.index, match.tier) for match in ranking] == [
        (1, Tier.LABEL_CONTAINS),
        (0, Tier.TYPO),
        (2, Tier.TYPO),
        (3, Tier.TYPO),
    ]
    scores = [match.score for match in ranking]
    assert scores[1] == scores[2] >= scores[3] >= 75


def test_typo_tier_does_not_reward_a_cut_off_window() -> None:
    # Unpadded, rapidfuzz's partial_ratio scores "rev" 80 against the final "re" of "store".
    items = [session("Jul  1 10:47  restore the store", 1), session("Jul  2 10:47  rev", 2)]
    ranking = RankedIndex(items).rank("rev")
    assert [(match.index, match.tier) for match in ranking] == [(1, Tier.LABEL_CONTAINS)]


def test_typo_tier_matches_a_mistyped_id() -> None:
    items = [session("Jul  1 10:47  first", 17), session("Jul  2 10:47  second", 99)]
    mistyped = SESSION_ID.replace("zero", "zreo")
    ranking = RankedIndex(items).rank(mistyped)
    assert [match.tier for match in ranking] == [Tier.TYPO, Tier.TYPO]
    assert ranking[0].index == 0
    assert ranking[0].score > ranking[1].score
    assert ranking[0].positions == ()


def test_unrelated_words_stay_out_of_the_typo_tier() -> None:
    items = typo_corpus()
    assert len(RankedIndex(items).rank("kubernetes")) == 0


# --- hostile and non-ASCII text -----------------------------------------------------------------


def test_markup_and_escape_sequences_are_plain_text() -> None:
    items = [
        PickerItem("[bold]red[/bold] \x1b[31malert\x1b[0m", "id-1"),
        PickerItem("plain", "id-2"),
    ]
    index = RankedIndex(items)
    (match,) = index.rank("[bold]")
    assert (match.index, match.tier, highlighted(items[0], match)) == (
        0,
        Tier.LABEL_PREFIX,
        "[bold]",
    )
    (match,) = index.rank("\x1b[31m")
    assert highlighted(items[0], match) == "\x1b[31m"
    assert index.rank("[/bold] \x1b").indices == [0]


@pytest.mark.parametrize("query", ["a.c", "a*", "(a", "a]", "[^a]", "a\\", "a-c", "$", "a|b"])
def test_regex_characters_in_the_query_match_literally(query: str) -> None:
    items = [PickerItem("abc", "x"), PickerItem("a.c a*b (a] [^a] a\\ a-c $ a|b", "y")]
    index = RankedIndex(items)
    assert [m.index for m in index.rank(query) if m.tier is not Tier.TYPO] == apply_query(
        items, query
    )
    assert 1 in index.rank(query).indices


def test_non_ascii_positions_and_gaps_are_code_points() -> None:
    assert fuzzy_subsequence_gap("éxé", "éé") == 1
    assert fuzzy_subsequence_gap("日本語のテキスト", "日テ") == 3
    item = PickerItem("Ünïcode café 日本語", "id")
    (match,) = RankedIndex([item]).rank("CAFÉ")
    assert match.tier is Tier.LABEL_CONTAINS
    assert match.positions == (8, 9, 10, 11)
    (match,) = RankedIndex([item]).rank("üc日")
    assert match.tier is Tier.SUBSEQUENCE
    gap = fuzzy_subsequence_gap(" ünïcode café 日本語 id ", "üc日")
    assert gap is not None
    assert match.score == 120 + gap
    assert highlighted(item, match) == "Üc日"


def test_dotted_capital_i_keeps_positions_aligned() -> None:
    item = PickerItem("İstanbul trip", "id")
    (match,) = RankedIndex([item]).rank("trip")
    assert highlighted(item, match) == "trip"


# --- the fast index agrees with the row-by-row port -----------------------------------------


def expected_go_part(items: list[PickerItem], ranking: Ranking, query: str) -> list[int]:
    """Go's order; for ungrouped rows, a loose subsequence match (gap longer than the query)
    only when nothing better matched (no exact tier, tight subsequence, words or typo row)."""
    go = apply_query(items, query)
    normalized = normalize_query(query)
    if any(item.group for item in items) or not normalized:
        return go
    limit = GO_SCORES[Tier.SUBSEQUENCE] + len(normalized)
    strong = [row for row in go if (score_picker_item(items[row], normalized) or 0) <= limit]
    has_words = any(match.tier is Tier.WORDS for match in ranking)
    if strong or has_words:
        return strong
    if any(match.tier is Tier.TYPO for match in ranking):
        return []
    return go


def test_index_matches_go_order_while_typing_and_deleting() -> None:
    rng = random.Random(20260604)
    alphabet = "abcAB -_.éΣİ1"

    def text(limit: int) -> str:
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, limit)))

    for trial in range(300):
        groups = ["", "", "g1", "g2"] if trial % 2 else [""]
        items = [PickerItem(text(8), text(6), rng.choice(groups), text(3)) for _ in range(25)]
        index = RankedIndex(items)
        query = ""
        for _ in range(10):
            roll = rng.random()
            if roll < 0.6 or not query:
                query += rng.choice(alphabet)
            elif roll < 0.8:
                query = query[:-1]
            else:
                query = text(5)
            ranking = index.rank(query)
            go_part = [match for match in ranking if match.tier not in (Tier.WORDS, Tier.TYPO)]
            assert [match.index for match in go_part] == expected_go_part(items, ranking, query)
            normalized = normalize_query(query)
            for match in go_part:
                if normalized:
                    assert match.score == score_picker_item(items[match.index], normalized)


def test_index_agrees_with_the_port_on_session_rows() -> None:
    from benchmarks.ranking_bench import session_rows

    items = session_rows(600)
    index = RankedIndex(items)
    for typed in ("sonnet", "export transcript", "fix flaky", "zero_2026", "jul 2"):
        for end in range(1, len(typed) + 1):
            query = typed[:end]
            ranking = index.rank(query)
            go_part = [m.index for m in ranking if m.tier not in (Tier.WORDS, Tier.TYPO)]
            assert go_part == expected_go_part(items, ranking, query)


# --- the Ranking sequence and the picker-row helpers --------------------------------------------


def test_ranking_is_a_sequence_of_matches() -> None:
    items = [PickerItem(label) for label in ("ab", "xab", "a-b", "zz")]
    ranking = RankedIndex(items).rank("ab")
    assert len(ranking) == 3
    assert [match.index for match in ranking] == [0, 1, 2]
    assert ranking[-1] == ranking[2]
    assert [match.index for match in ranking[1:]] == [1, 2]
    with pytest.raises(IndexError):
        ranking[3]
    assert ranking[0] == Match(0, Tier.EXACT, 0, (0, 1))


def test_highlights_map_item_index_to_positions() -> None:
    items = [
        PickerItem("Jul  1 10:47  Fix the parser", "zero_1"),
        PickerItem("Jul  2 10:47  parser tests", "zero_2"),
        PickerItem("Jul  3 10:47  unrelated", "zero_3"),
    ]
    ranking = RankedIndex(items).rank("parser")
    highlights = ranking.highlights
    assert ranking.indices == [0, 1]
    assert list(highlights) == [0, 1]
    assert highlights[0] == tuple(range(22, 28))
    assert highlights[1] == tuple(range(14, 20))
    assert highlights.get(2, ()) == ()
    assert RankedIndex(items).rank("zero_3").highlights[2] == ()


def test_ranking_module_does_not_import_textual_or_rich() -> None:
    code = (
        "import sys, zero_tui.picker.ranking\n"
        "print(any(m.split('.')[0] in ('textual', 'rich') for m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


# --- beyond Go: words in any order, filters, a typo tier that does not flood ----------------


def demo_rows(tmp_path_factory: pytest.TempPathFactory) -> list[PickerItem]:
    """The demo store's default workspace, as the picker ranks it."""
    from datetime import datetime

    from zero_tui.demo import build_demo_store
    from zero_tui.picker.session_rows import picker_rows
    from zero_tui.store import SessionStore
    from zero_tui.store.resumable import filter_resumable

    demo = build_demo_store(tmp_path_factory.mktemp("demo") / "sessions")
    listing = filter_resumable(SessionStore(demo.root), str(demo.default_workspace))
    rows = picker_rows(listing.sessions, datetime(2026, 12, 1, 12, 0).astimezone())
    return [
        PickerItem(row.label, row.session_id, model=row.model, provider=row.provider)
        for row in rows
    ]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> list[PickerItem]:
    return demo_rows(tmp_path_factory)


def titles(items: list[PickerItem], query: str) -> list[str]:
    return [items[match.index].label[14:] for match in RankedIndex(items).rank(query)]


def test_the_typo_tier_does_not_flood_a_short_query(demo: list[PickerItem]) -> None:
    assert len(demo) == 17
    assert titles(demo, "linter") == ["Run the linter and fix what it reports"]


def test_words_match_in_any_order(demo: list[PickerItem]) -> None:
    assert titles(demo, "rate limit")
    assert titles(demo, "limit rate") == titles(demo, "rate limit")
    ranking = RankedIndex(demo).rank("limit rate")
    assert {match.tier for match in ranking} == {Tier.WORDS}
    assert highlighted(demo[ranking[0].index], ranking[0]) == "ratelimit"
    assert titles(demo, "limit kangaroo") == []


def test_the_model_and_provider_are_searchable_and_filter(demo: list[PickerItem]) -> None:
    on_gpt = [item.label[14:] for item in demo if item.model == "gpt-5"]
    assert on_gpt
    assert titles(demo, "gpt-5") == on_gpt
    assert titles(demo, "model:GPT") == on_gpt
    assert titles(demo, "provider:openai") == on_gpt
    assert titles(demo, "model:gpt index") == ["Add an index for orders.created_at"]
    assert titles(demo, "index model:sonnet") == []
    assert titles(demo, "model:") == titles(demo, "")


def test_loose_subsequences_only_when_nothing_better_matches() -> None:
    items = [
        session("Jul  1 10:47  Explain the difference between stores", 1),
        session("Jul  2 10:47  Run the linter", 2),
    ]
    assert [m.index for m in RankedIndex(items).rank("linter")] == [1]
    # alone, Go's loose match is still offered
    (match,) = RankedIndex(items[:1]).rank("linter")
    assert match.tier is Tier.SUBSEQUENCE


def test_snnet_still_finds_sonnet_among_many_rows() -> None:
    from benchmarks.ranking_bench import session_rows

    items = session_rows(3000)
    ranking = RankedIndex(items).rank("snnet").indices
    first = next(at for at, row in enumerate(ranking) if "sonnet" in items[row].label.lower())
    assert first < 10


def test_snnet_lists_the_sonnet_sessions_and_says_why(demo: list[PickerItem]) -> None:
    # The README's own example: no title says "sonnet", the model does; the gpt-5 sessions
    # that hold s, n, n, e, t far apart in their titles are not listed beside them.
    ranking = RankedIndex(demo).rank("snnet")
    on_sonnet = {index for index, item in enumerate(demo) if "sonnet" in item.model}
    assert {match.index for match in ranking} == on_sonnet
    assert {match.tier for match in ranking} == {Tier.TYPO}
    assert {match.reason for match in ranking} == {"≈ sonnet (model)"}


def test_a_typo_of_the_provider_finds_its_sessions(demo: list[PickerItem]) -> None:
    on_openai = [item.label[14:] for item in demo if item.provider == "openai"]
    assert titles(demo, "opnai") == on_openai
    assert {match.reason for match in RankedIndex(demo).rank("opnai")} == {"≈ openai (provider)"}


def test_a_typo_names_the_title_word_it_is_close_to() -> None:
    items = [
        PickerItem("Jul  1 10:47  export the transcript", "id-1", model="gpt-5"),
        PickerItem("Jul  2 10:47  fix the parser", "id-2", model="exporter-1"),
    ]
    ranking = RankedIndex(items).rank("exprot")
    assert [(match.index, match.reason) for match in ranking] == [
        (0, "≈ export (title)"),
        (1, "≈ exporter (model)"),
    ]
    assert highlighted(items[0], ranking[0]) in {"exprt", "expot"}
    assert ranking[1].positions == ()  # nothing of the title matched


def test_a_typo_match_takes_the_place_of_loose_subsequences() -> None:
    items = [
        session("Jul  1 10:47  Explain the difference between stores", 1),
        session("Jul  2 10:47  Use claude sonnet for reviews", 2),
    ]
    ranking = RankedIndex(items).rank("snnet")
    assert [(match.index, match.tier) for match in ranking] == [(1, Tier.TYPO)]
    assert ranking[0].reason == "≈ sonnet (title)"
