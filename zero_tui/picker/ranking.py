"""Picker ranking: a faithful port of Zero's Go fuzzy ranking, then words, filters and typos.

Go (`internal/tui/picker.go`): `applyQuery`, `scorePickerItem`, `fuzzySubsequenceGap`.
The straight ports (`score_picker_item`, `apply_query`, `fuzzy_subsequence_gap`) are kept as
the reference; `RankedIndex` gives the same order for the Go tiers, but does its work in
C-level loops (`map`/`compress` over pre-lowered haystacks, `str.find` continuing each row's
greedy walk from the previous keystroke) so a keystroke over 10,000 rows takes milliseconds.

For ungrouped items (session rows) it goes beyond Go (design §3, issue 10):
- `model:X` / `provider:X` words filter the rows (case-insensitive substrings);
- after Go's tiers for the whole query comes `Tier.WORDS`: every word of the query somewhere
  in the label, model, provider or meta, in any order ("limit rate" finds "rate limiting",
  "gpt-5" finds the sessions run on it);
- Go's subsequence matches that are loose (a gap longer than the query) are noise next to a
  real match ("linter" would match most titles letter by letter): they are kept only when
  nothing better matched, and the rapidfuzz typo tier fills in only when the exact tiers
  and the words found fewer than `TYPO_FILL_BELOW` rows. A typo match is a row with a field
  (a title word, the model, the provider, the id) close to each word typed
  (`picker.typo_tier`); its `Match.reason` says which (`≈ sonnet (model)`), and a loose
  match is not listed beside it.

No textual or rich import here: the UI turns `Match.positions` into highlight spans.
"""

from __future__ import annotations

import operator
import re
import threading
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum
from functools import lru_cache
from itertools import chain, compress, repeat
from typing import overload

from zero_tui.picker.typo_tier import TYPO_MIN_QUERY_LENGTH, TypoTier
from zero_tui.store.gotext import GO_SPACE, go_lower

# The typo tier fills in only when the exact tiers (and the words tier) found fewer rows.
TYPO_FILL_BELOW = 3
FILTER_NAMES = ("model", "provider")
_GO_SPACE_RUN = re.compile(f"[{re.escape(GO_SPACE)}]+")
_FILTER_WORD = re.compile(rf"(?i)(?<!\S)({'|'.join(FILTER_NAMES)}):(\S*)")
# Go rankings remembered per index, for recent queries and for one-character queries
# apart (typing extends one, backspace returns to one).
_REMEMBERED_QUERIES = 16


class Tier(IntEnum):
    """How an item matched; lower tiers rank first. The Go score of each is in `GO_SCORES`."""

    EXACT = 0
    LABEL_PREFIX = 1
    LABEL_CONTAINS = 2
    HAY_PREFIX = 3
    HAY_CONTAINS = 4
    SUBSEQUENCE = 5
    WORDS = 6  # every query word somewhere in the row, any order (beyond Go)
    TYPO = 7
    UNFILTERED = 8  # empty query: every item, original order


GO_SCORES = {
    Tier.EXACT: 0,
    Tier.LABEL_PREFIX: 20,
    Tier.LABEL_CONTAINS: 40,
    Tier.HAY_PREFIX: 60,
    Tier.HAY_CONTAINS: 80,
    Tier.SUBSEQUENCE: 120,  # plus the gap
}


@dataclass(frozen=True, slots=True)
class PickerItem:
    """One picker row, as Go's pickerItem: `label` is shown, `value` is what selecting returns."""

    label: str
    value: str = ""
    group: str = ""
    meta: str = ""
    model: str = ""  # matched by `model:` and by the words tier (not part of Go's haystack)
    provider: str = ""


@dataclass(frozen=True, slots=True)
class Match:
    """One ranked row.

    `index` is the item's position in the list given to `RankedIndex`. `score` is Go's score
    (lower is better) for the Go tiers, the rapidfuzz similarity 0-100 (higher is better) for
    `Tier.TYPO`, and 0 for `Tier.UNFILTERED`. `positions` are the code-point indices of the
    label to highlight, ascending.
    """

    index: int
    tier: Tier
    score: float
    positions: tuple[int, ...]
    reason: str = ""  # why a `Tier.TYPO` row matched: `≈ sonnet (model)`


def normalize_query(query: str) -> str:
    """Go's `strings.ToLower(strings.TrimSpace(query))`."""
    return go_lower(query.strip(GO_SPACE))


def haystack(item: PickerItem) -> str:
    """Go's `strings.Join([]string{Group, Label, Value, Meta}, " ")`, lowered."""
    return go_lower(f"{item.group} {item.label} {item.value} {item.meta}")


def fuzzy_subsequence_gap(value: str, query: str) -> int | None:
    """Go's fuzzySubsequenceGap: greedy earliest match of each query code point in order.

    Returns the sum of the skipped code points between consecutive matches, or None when
    `query` is not a subsequence of `value`. Case is folded by the caller.
    """
    positions = _greedy_positions(value, query)
    if positions is None:
        return None
    if not positions:
        return 0
    return positions[-1] - positions[0] - (len(positions) - 1)


def score_picker_item(item: PickerItem, query: str) -> int | None:
    """Go's scorePickerItem for an already normalized query; None when it does not match."""
    label = go_lower(item.label)
    hay = haystack(item)
    if label == query:
        return 0
    if label.startswith(query):
        return 20
    if query in label:
        return 40
    if hay.startswith(query):
        return 60
    if query in hay:
        return 80
    gap = fuzzy_subsequence_gap(hay, query)
    if gap is None:
        return None
    return 120 + gap


def apply_query(items: Sequence[PickerItem], query: str) -> list[int]:
    """Go's applyQuery, row by row: the indices of `items` in ranked order (Go tiers only)."""
    normalized = normalize_query(query)
    if not normalized:
        return list(range(len(items)))
    group_first: dict[str, int] = {}
    group_best: dict[str, int] = {}
    entries: list[tuple[str, int, int]] = []
    for index, item in enumerate(items):
        score = score_picker_item(item, normalized)
        if score is None:
            continue
        group_first.setdefault(item.group, index)
        if item.group not in group_best or score < group_best[item.group]:
            group_best[item.group] = score
        entries.append((item.group, score, index))
    entries.sort(key=lambda e: (group_best[e[0]], group_first[e[0]], e[1], e[2]))
    return [index for _, _, index in entries]


def query_words(query: str) -> list[str]:
    """The distinct words of a query, split on Go's whitespace."""
    return [word for word in dict.fromkeys(_GO_SPACE_RUN.split(query)) if word]


def split_filters(query: str) -> tuple[str, list[tuple[str, str]]]:
    """`model:X` and `provider:X` words out of a query: (the rest, [(name, lowered X)])."""
    filters = [
        (match.group(1).lower(), go_lower(match.group(2)))
        for match in _FILTER_WORD.finditer(query)
        if match.group(2)
    ]
    rest = _FILTER_WORD.sub(" ", query)
    return " ".join(rest.split()), filters


def selection_after_query(selected: int, query: str, count: int) -> int:
    """The picker's selection after (re)applying `query` to a list now `count` rows long.

    Go keeps the selection (clamped) for an empty query and resets it to 0 otherwise.
    """
    if normalize_query(query):
        return 0
    return max(0, min(selected, count - 1))


def _greedy_positions(value: str, query: str) -> list[int] | None:
    positions: list[int] = []
    start = 0
    for char in query:
        found = value.find(char, start)
        if found < 0:
            return None
        positions.append(found)
        start = found + 1
    return positions


@lru_cache(maxsize=64)
def _subsequence_pattern(query: str) -> re.Pattern[str]:
    """`^[^a]*+(a)[^b]*+b...`: the greedy walk as a regex that can never backtrack.

    Group 1 is the first matched code point and the match ends just after the last one.
    Used for a query typed (or pasted) from scratch; keystrokes extend an earlier walk.
    """
    parts = []
    for position, char in enumerate(query):
        escaped = re.escape(char)
        matched = f"({escaped})" if position == 0 else escaped
        parts.append(f"[^{escaped}]*+{matched}")
    return re.compile("".join(parts), re.DOTALL)


def _step(
    char: str, rows: list[int], hays: list[str], anchors: list[int], nexts: list[int]
) -> tuple[list[int], list[str], list[int], list[int]]:
    """Advance greedy walks by one code point, dropping the haystacks that run out."""
    ends = list(map(str.find, hays, repeat(char), nexts))
    keep = list(map(operator.ge, ends, repeat(0)))
    return (
        list(compress(rows, keep)),
        list(compress(hays, keep)),
        list(compress(anchors, keep)),
        list(map(operator.add, compress(ends, keep), repeat(1))),
    )


def _label_positions(start: int, stop: int, label_offset: int, label_length: int) -> range:
    """The part of hay[start:stop] that falls inside the label, as label indices."""
    return range(max(start - label_offset, 0), min(stop - label_offset, label_length))


@dataclass(frozen=True, slots=True)
class _Walk:
    """The rows a query matched, with where each haystack's greedy walk went.

    `rows` (ascending) contain the query, first at `occurrences`; `loose_rows` (any order)
    hold it only as a subsequence. Per row: the haystack, one past where the walk matched
    the last code point (`nexts`), and `anchors` = index - count * (where it matched the
    first), so that next * count + anchor = (gap + length) * count + index sorts the
    subsequence tier by gap, then index.
    """

    query: str
    rows: list[int]
    hays: list[str]
    anchors: list[int]
    nexts: list[int]
    occurrences: list[int]
    loose_rows: list[int]
    loose_hays: list[str]
    loose_anchors: list[int]
    loose_nexts: list[int]


class _KeyedScores(Sequence[float]):
    """Subsequence scores decoded from the sort keys (gap * count + index) only when read."""

    __slots__ = ("_base", "_count", "_keys")

    def __init__(self, keys: list[int], count: int, base: int) -> None:
        self._keys = keys
        self._count = count
        self._base = base

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[float]:
        count, base = self._count, self._base  # one decode per key, not two calls
        return (key // count + base for key in self._keys)

    @overload
    def __getitem__(self, position: int) -> float: ...

    @overload
    def __getitem__(self, position: slice) -> list[float]: ...

    def __getitem__(self, position: int | slice) -> float | list[float]:
        if isinstance(position, slice):
            return [self[p] for p in range(*position.indices(len(self._keys)))]
        return self._keys[position] // self._count + self._base


@dataclass(frozen=True, slots=True)
class _Run:
    """A stretch of a ranking matched by one tier; `scores` is one score or one per row."""

    end: int
    tier: Tier
    scores: float | Sequence[float]


@dataclass(frozen=True, slots=True)
class _Remembered:
    """A query's walk and its Go ranking (never mutated: callers copy the lists)."""

    walk: _Walk
    indices: list[int]
    runs: list[_Run]


class RankedIndex:
    """Items prepared once for ranking; `rank(query)` is then called per keystroke.

    Holds the lowered labels and haystacks, an exact-label table and the typo tier's words
    (`TypoTier`: built here, or on the first typo search with `build_vocabulary=False`).
    The walks and Go rankings of recent queries are kept: a query that equals one (backspace)
    reuses it, and one that extends one (typing) starts from it, because every Go tier
    implies a subsequence match of the haystack, so only the rows matched before can match
    the longer query.
    """

    def __init__(self, items: Sequence[PickerItem], *, build_vocabulary: bool = True) -> None:
        self._count = len(items)
        self._labels = [go_lower(item.label) for item in items]
        self._values = [go_lower(item.value) for item in items]
        self._hays = [haystack(item) for item in items]
        self._groups = [item.group for item in items]
        self._label_offsets = [len(group) + 1 for group in self._groups]
        self._label_ends = list(map(operator.add, self._label_offsets, map(len, self._labels)))
        self._grouped = len(set(self._groups)) > 1
        self._plain = not any(self._groups)
        self._by_label: dict[str, list[int]] = {}
        for index, label in enumerate(self._labels):
            self._by_label.setdefault(label, []).append(index)
        # What the words tier and the filters look in: label, model, provider, meta.
        self._word_hays = [
            go_lower(f"{item.label} {item.model} {item.provider} {item.meta}") for item in items
        ]
        self._models = [go_lower(item.model) for item in items]
        self._providers = [go_lower(item.provider) for item in items]
        self._typos: TypoTier | None = None
        if build_vocabulary:
            self._typos = self._typo_tier()
        # Every search starts with one character: those are remembered apart, so typing
        # other queries does not push them out.
        self._first_chars: OrderedDict[str, _Remembered] = OrderedDict()
        self._recent: OrderedDict[str, _Remembered] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return self._count

    def rank(self, query: str) -> Ranking:
        """Rank every item against `query` (trimmed and lowered here, as Go does)."""
        filters: list[tuple[str, str]] = []
        if self._plain and _FILTER_WORD.search(query):
            query, filters = split_filters(query)
        normalized = normalize_query(query)
        if not normalized:
            rows = self._filtered(range(self._count), filters)
            return Ranking(self, normalized, rows, [_Run(len(rows), Tier.UNFILTERED, 0)])
        entry = self._go_ranking(normalized)
        if not self._plain:
            indices = list(entry.indices)
            runs = list(entry.runs)
            if len(normalized) >= TYPO_MIN_QUERY_LENGTH:
                typo_rows, typo_scores = self._rank_typos(normalized, entry.walk)
                if typo_rows:
                    indices += typo_rows
                    runs.append(_Run(len(indices), Tier.TYPO, typo_scores))
            return Ranking(self, normalized, indices, runs)
        return self._rank_plain(normalized, entry, filters)

    def _filtered(self, rows: Iterable[int], filters: list[tuple[str, str]]) -> list[int]:
        if not filters:
            return list(rows)
        kept = list(rows)
        for name, value in filters:
            fields = self._models if name == "model" else self._providers
            kept = [row for row in kept if value in fields[row]]
        return kept

    def _rank_plain(
        self, query: str, entry: _Remembered, filters: list[tuple[str, str]]
    ) -> Ranking:
        """Go's tiers, split into exact and subsequence, then words, loose matches, typos."""
        blocks: list[tuple[Tier, list[int], float | Sequence[float]]] = []
        start = 0
        loose_rows: list[int] = []
        loose_scores: list[float] = []
        for run in entry.runs:
            rows = entry.indices[start : run.end]
            if run.tier is Tier.SUBSEQUENCE:
                assert isinstance(run.scores, Sequence)
                decoded = list(run.scores)  # once, read twice below
                limit = GO_SCORES[Tier.SUBSEQUENCE] + len(query)  # gap <= the query's length
                tight = [score <= limit for score in decoded]
                blocks.append(
                    (Tier.SUBSEQUENCE, list(compress(rows, tight)), list(compress(decoded, tight)))
                )
                loose = list(map(operator.not_, tight))
                loose_rows = list(compress(rows, loose))
                loose_scores = list(compress(decoded, loose))
            else:
                blocks.append((run.tier, list(rows), run.scores))
            start = run.end
        taken = set(chain.from_iterable(rows for _, rows, _ in blocks))  # not the loose
        words = [row for row in self._word_rows(query) if row not in taken]
        if words:
            blocks.append((Tier.WORDS, words, 0))
        indices: list[int] = []
        runs: list[_Run] = []
        for tier, rows, scores in blocks:
            if filters:
                kept = set(self._filtered(rows, filters))
                keep = [row in kept for row in rows]
                rows = list(compress(rows, keep))
                if isinstance(scores, Sequence):
                    scores = list(compress(scores, keep))
            if rows:
                indices += rows
                runs.append(_Run(len(indices), tier, scores))
        strong = sum(len(rows) for tier, rows, _ in blocks if tier is not Tier.SUBSEQUENCE)
        # Only loose matches: a close typo is likelier what was meant, and takes their place.
        only_loose = not indices and bool(loose_rows)
        typo_rows: list[int] = []
        if strong < TYPO_FILL_BELOW and len(query) >= TYPO_MIN_QUERY_LENGTH:
            typo_rows, typo_scores = self._rank_typos(
                query, entry.walk, exclude=set(words), include_loose=only_loose
            )
            if filters and typo_rows:
                kept = set(self._filtered(typo_rows, filters))
                pairs = [(r, s) for r, s in zip(typo_rows, typo_scores, strict=True) if r in kept]
                typo_rows, typo_scores = [r for r, _ in pairs], [s for _, s in pairs]
            if typo_rows:
                indices += typo_rows
                runs.append(_Run(len(indices), Tier.TYPO, typo_scores))
        if only_loose and not typo_rows:
            shown = set(self._filtered(loose_rows, filters))
            pairs = [(r, s) for r, s in zip(loose_rows, loose_scores, strict=True) if r in shown]
            if pairs:
                indices += [row for row, _ in pairs]
                runs.append(_Run(len(indices), Tier.SUBSEQUENCE, [score for _, score in pairs]))
        return Ranking(self, query, indices, runs)

    def _word_rows(self, query: str) -> list[int]:
        """Rows holding every word of `query` in their label, model, provider or meta."""
        words = query_words(query)
        if not words:
            return []
        rows: Iterable[int] = range(self._count)
        hays: list[str] = self._word_hays
        for word in words[:-1]:
            holds = list(map(operator.contains, hays, repeat(word)))
            rows = list(compress(rows, holds))
            hays = list(compress(hays, holds))
        return list(compress(rows, map(operator.contains, hays, repeat(words[-1]))))

    def _go_ranking(self, query: str) -> _Remembered:
        """The Go tiers for `query`, remembered, and continued from the longest remembered
        prefix of it when there is one."""
        with self._lock:
            cache = self._first_chars if len(query) == 1 else self._recent
            remembered = cache.get(query)
            if remembered is not None:
                cache.move_to_end(query)
                return remembered
            start: _Walk | None = None
            for length in range(len(query) - 1, 0, -1):
                prefix = query[:length]
                cached = (self._first_chars if length == 1 else self._recent).get(prefix)
                if cached is not None:
                    start = cached.walk
                    break
        if start is not None:
            walk = self._extend(start, query[len(start.query) :])
        elif len(query) <= 2:
            walk = self._extend(self._walk_first(query[0]), query[1:])
        else:
            walk = self._walk_fresh(query)
        indices, runs = self._order_go(walk)
        remembered = _Remembered(walk, indices, runs)
        with self._lock:
            cache[query] = remembered
            while len(cache) > _REMEMBERED_QUERIES:
                cache.popitem(last=False)
        return remembered

    def _walk_first(self, char: str) -> _Walk:
        """The walk of a one-character query: every haystack holding `char`."""
        found = list(map(str.find, self._hays, repeat(char)))
        holds = list(map(operator.ge, found, repeat(0)))
        occurrences = list(compress(found, holds))
        nexts = list(map(operator.add, occurrences, repeat(1)))
        rows = list(compress(range(self._count), holds))
        hays = list(compress(self._hays, holds))
        anchors = self._anchors(rows, occurrences)
        return _Walk(char, rows, hays, anchors, nexts, occurrences, [], [], [], [])

    def _anchors(self, rows: list[int], firsts: list[int]) -> list[int]:
        return list(map(operator.sub, rows, map(operator.mul, firsts, repeat(self._count))))

    def _walk_fresh(self, query: str) -> _Walk:
        """The walk of a longer query from scratch: one possessive regex per haystack."""
        walks = list(map(_subsequence_pattern(query).match, self._hays))
        hits = list(filter(None, walks))
        rows = list(compress(range(self._count), walks))
        hays = list(compress(self._hays, walks))
        firsts = list(map(re.Match.start, hits, repeat(1)))
        nexts = list(map(re.Match.end, hits))
        anchors = self._anchors(rows, firsts)
        walk = _Walk(query, rows, hays, anchors, nexts, firsts, [], [], [], [])
        return self._split(walk, query)

    def _extend(self, walk: _Walk, suffix: str) -> _Walk:
        """The walk of `walk.query + suffix`, visiting only the rows `walk` matched.

        The greedy walk of a longer query continues the walk of its prefix, and a haystack
        containing the longer query contains the prefix, from the prefix's first occurrence on.
        """
        if not suffix:
            return walk
        rows, hays, anchors, nexts = walk.rows, walk.hays, walk.anchors, walk.nexts
        occurrences = walk.occurrences
        loose = (walk.loose_rows, walk.loose_hays, walk.loose_anchors, walk.loose_nexts)
        for char in suffix[:-1]:
            ends = list(map(str.find, hays, repeat(char), nexts))
            keep = list(map(operator.ge, ends, repeat(0)))
            rows = list(compress(rows, keep))
            hays = list(compress(hays, keep))
            anchors = list(compress(anchors, keep))
            occurrences = list(compress(occurrences, keep))
            nexts = list(map(operator.add, compress(ends, keep), repeat(1)))
            loose = _step(char, *loose)
        # The last code point: step the walks and re-check containment in one go.
        char = suffix[-1]
        query = walk.query + suffix
        loose = _step(char, *loose)
        ends = list(map(str.find, hays, repeat(char), nexts))
        keep = list(map(operator.ge, ends, repeat(0)))
        if keep.count(False) * 4 > len(keep):
            # Many walks ran out: drop them first, so the search below skips their haystacks.
            rows = list(compress(rows, keep))
            hays = list(compress(hays, keep))
            anchors = list(compress(anchors, keep))
            occurrences = list(compress(occurrences, keep))
            ends = list(compress(ends, keep))
            keep = [True] * len(ends)
        found = list(map(str.find, hays, repeat(query), occurrences))
        inside = list(map(operator.ge, found, repeat(0)))
        # Containing the query implies the walk went through, so this is "walk only".
        moving = list(map(operator.xor, keep, inside))
        return _Walk(
            query,
            list(compress(rows, inside)),
            list(compress(hays, inside)),
            list(compress(anchors, inside)),
            list(map(operator.add, compress(ends, inside), repeat(1))),
            list(compress(found, inside)),
            loose[0] + list(compress(rows, moving)),
            loose[1] + list(compress(hays, moving)),
            loose[2] + list(compress(anchors, moving)),
            loose[3] + list(map(operator.add, compress(ends, moving), repeat(1))),
        )

    @staticmethod
    def _split(walk: _Walk, query: str) -> _Walk:
        """Re-sort `walk`'s contained rows for `query`: still contained, or now loose."""
        found = list(map(str.find, walk.hays, repeat(query), walk.occurrences))
        inside = list(map(operator.ge, found, repeat(0)))
        outside = list(map(operator.not_, inside))
        return _Walk(
            query,
            list(compress(walk.rows, inside)),
            list(compress(walk.hays, inside)),
            list(compress(walk.anchors, inside)),
            list(compress(walk.nexts, inside)),
            list(compress(found, inside)),
            walk.loose_rows + list(compress(walk.rows, outside)),
            walk.loose_hays + list(compress(walk.hays, outside)),
            walk.loose_anchors + list(compress(walk.anchors, outside)),
            walk.loose_nexts + list(compress(walk.nexts, outside)),
        )

    def _order_go(self, walk: _Walk) -> tuple[list[int], list[_Run]]:
        """Go's order of the rows `walk` matched, as item indices and tier runs: the label
        tiers of the rows that contain the query, then the subsequence tier."""
        label_tiers = self._label_tiers(walk)
        subsequence_rows, subsequence_scores = self._subsequence_tier(walk)
        if self._grouped:
            return self._order_groups(
                [
                    *((tier, block, None) for tier, block in label_tiers),
                    (Tier.SUBSEQUENCE, subsequence_rows, list(subsequence_scores)),
                ]
            )
        indices: list[int] = []
        runs: list[_Run] = []
        for tier, block in label_tiers:
            if block:
                indices += block
                runs.append(_Run(len(indices), tier, GO_SCORES[tier]))
        if subsequence_rows:
            indices += subsequence_rows
            runs.append(_Run(len(indices), Tier.SUBSEQUENCE, subsequence_scores))
        return indices, runs

    def _label_tiers(self, walk: _Walk) -> list[tuple[Tier, list[int]]]:
        """The rows that contain the query, by tier from the best (each tier ascending):
        the label is the query, starts with it, contains it; the haystack starts with it,
        contains it."""
        query = walk.query
        length = len(query)
        rows = walk.rows
        if self._plain:
            # No groups: every haystack is " <label> ..." and the trimmed query cannot start
            # with a space, so the first occurrence is at 1 or later and an occurrence inside
            # the label, if any, is the first one: it alone decides the label tiers.
            limits = map(operator.sub, map(self._label_ends.__getitem__, rows), repeat(length))
            in_label = list(map(operator.le, walk.occurrences, limits))
            label_rows = list(compress(rows, in_label))
            at_start = list(map(operator.eq, compress(walk.occurrences, in_label), repeat(1)))
            hay_prefix_rows: list[int] = []
            hay_contains_rows = list(compress(rows, map(operator.not_, in_label)))
        else:
            labels = list(map(self._labels.__getitem__, rows))
            in_label = list(map(operator.contains, labels, repeat(query)))
            label_rows = list(compress(rows, in_label))
            at_start = list(map(str.startswith, compress(labels, in_label), repeat(query)))
            outside_rows = list(compress(rows, map(operator.not_, in_label)))
            outside_hays = map(self._hays.__getitem__, outside_rows)
            hay_starts = list(map(str.startswith, outside_hays, repeat(query)))
            hay_prefix_rows = list(compress(outside_rows, hay_starts))
            hay_contains_rows = list(compress(outside_rows, map(operator.not_, hay_starts)))
        prefix_rows = list(compress(label_rows, at_start))
        contains_rows = list(compress(label_rows, map(operator.not_, at_start)))
        exact_rows: list[int] = []
        exact = self._by_label.get(query)
        if exact:
            exact_set = set(exact)
            exact_rows = [row for row in prefix_rows if row in exact_set]
            prefix_rows = [row for row in prefix_rows if row not in exact_set]
        return [
            (Tier.EXACT, exact_rows),
            (Tier.LABEL_PREFIX, prefix_rows),
            (Tier.LABEL_CONTAINS, contains_rows),
            (Tier.HAY_PREFIX, hay_prefix_rows),
            (Tier.HAY_CONTAINS, hay_contains_rows),
        ]

    def _subsequence_tier(self, walk: _Walk) -> tuple[list[int], _KeyedScores]:
        """The rows that hold the query only as a subsequence, by (gap, index), and their
        scores."""
        # Subsequence rows by (gap, index): one integer key per row sorts both at C speed.
        # key = (next - first) * count + index, and next - first = gap + length.
        length = len(walk.query)
        count = self._count
        nexts = map(operator.mul, walk.loose_nexts, repeat(count))
        keys = sorted(map(operator.add, nexts, walk.loose_anchors))
        subsequence_rows = list(map(operator.mod, keys, repeat(count)))
        subsequence_scores = _KeyedScores(keys, count, GO_SCORES[Tier.SUBSEQUENCE] - length)
        return subsequence_rows, subsequence_scores

    def _order_groups(
        self, blocks: list[tuple[Tier, list[int], list[float] | None]]
    ) -> tuple[list[int], list[_Run]]:
        """Go's group ordering: best score, then first matching position; then score, index."""
        entries: list[tuple[int, Tier, float]] = []
        for tier, rows, scores in blocks:
            if scores is None:
                entries += [(row, tier, GO_SCORES[tier]) for row in rows]
            else:
                entries += [(row, tier, score) for row, score in zip(rows, scores, strict=True)]
        group_first: dict[str, int] = {}
        group_best: dict[str, float] = {}
        for row, _, score in entries:
            group = self._groups[row]
            if row < group_first.get(group, self._count):
                group_first[group] = row
            if score < group_best.get(group, float("inf")):
                group_best[group] = score
        groups = self._groups
        entries.sort(
            key=lambda entry: (
                group_best[groups[entry[0]]],
                group_first[groups[entry[0]]],
                entry[2],
                entry[0],
            )
        )
        runs = [_Run(end + 1, tier, score) for end, (_, tier, score) in enumerate(entries)]
        return [row for row, _, _ in entries], runs

    def _rank_typos(
        self,
        query: str,
        walk: _Walk,
        exclude: set[int] | None = None,
        *,
        include_loose: bool = False,
    ) -> tuple[list[int], list[float]]:
        """Rows no Go tier matched (nor `exclude`; loose matches only with `include_loose`)
        with a field within a typo or two of the query: `TypoTier.rank`."""
        excluded: list[Collection[int]] = [walk.rows, exclude or ()]
        if not include_loose:
            excluded.append(walk.loose_rows)
        # Ids all look alike ("zero_<time>_<nanos>_<n>"): next to a real match, a
        # neighbouring id would be noise (and Go leaves exactly one row for a full id).
        ids_too = not (walk.rows or walk.loose_rows)
        return self._typo_tier().rank(query, excluded, ids_too=ids_too)

    def _typo_tier(self) -> TypoTier:
        if self._typos is None:
            self._typos = TypoTier(self._labels, self._values, self._models, self._providers)
        return self._typos

    def typo_reason(self, index: int, query: str) -> str:
        """Why item `index` is a typo match of `query`, `≈ sonnet (model)`."""
        return self._typo_tier().reason(index, query)

    def positions(self, index: int, tier: Tier, query: str) -> tuple[int, ...]:
        """Label code-point indices to highlight for item `index` matched by `tier`."""
        label = self._labels[index]
        if tier in (Tier.EXACT, Tier.LABEL_PREFIX, Tier.LABEL_CONTAINS):
            start = label.find(query)
            return tuple(range(start, start + len(query)))
        offset = self._label_offsets[index]
        hay = self._hays[index]
        if tier in (Tier.HAY_PREFIX, Tier.HAY_CONTAINS):
            start = hay.find(query)
            return tuple(_label_positions(start, start + len(query), offset, len(label)))
        if tier is Tier.SUBSEQUENCE:
            greedy = _greedy_positions(hay, query) or []
            return tuple(p - offset for p in greedy if 0 <= p - offset < len(label))
        if tier is Tier.WORDS:
            found: set[int] = set()
            for word in query_words(query):
                at = label.find(word)
                if at >= 0:
                    found.update(range(at, at + len(word)))
            return tuple(sorted(found))
        if tier is Tier.TYPO and self._typos is not None:
            return self._typos.positions(index, query)
        return ()


class Ranking(Sequence[Match]):
    """The result of `RankedIndex.rank`: a read-only sequence of `Match`, best first.

    Built lazily: with 10,000 matching rows, creating every `Match` (and its highlight
    positions) would cost more than the whole ranking, and a picker only draws a screenful.
    `indices` gives all item indices in order without building any `Match`.
    """

    __slots__ = ("_ends", "_index", "_indices", "_query", "_runs")

    def __init__(
        self, index: RankedIndex, query: str, indices: list[int], runs: list[_Run]
    ) -> None:
        self._index = index
        self._query = query
        self._indices = indices
        self._runs = runs
        self._ends = [run.end for run in runs]

    @property
    def query(self) -> str:
        """The normalized query (trimmed, lowered) this ranking answers."""
        return self._query

    @property
    def indices(self) -> list[int]:
        """Item indices in ranked order (a copy)."""
        return list(self._indices)

    @property
    def highlights(self) -> Highlights:
        """Item index -> label positions to highlight, computed lazily per item."""
        return Highlights(self)

    def __len__(self) -> int:
        return len(self._indices)

    @overload
    def __getitem__(self, position: int) -> Match: ...

    @overload
    def __getitem__(self, position: slice) -> list[Match]: ...

    def __getitem__(self, position: int | slice) -> Match | list[Match]:
        if isinstance(position, slice):
            return [self._match(p) for p in range(*position.indices(len(self._indices)))]
        if position < 0:
            position += len(self._indices)
        if not 0 <= position < len(self._indices):
            raise IndexError(position)
        return self._match(position)

    def __iter__(self) -> Iterator[Match]:
        return (self._match(position) for position in range(len(self._indices)))

    def _match(self, position: int) -> Match:
        index = self._indices[position]
        run_number = bisect_right(self._ends, position)
        run = self._runs[run_number]
        if isinstance(run.scores, Sequence):
            start = self._ends[run_number - 1] if run_number else 0
            score = run.scores[position - start]
        else:
            score = run.scores
        if run.tier is Tier.UNFILTERED:
            return Match(index, run.tier, score, ())
        positions = self._index.positions(index, run.tier, self._query)
        if run.tier is Tier.TYPO:
            reason = self._index.typo_reason(index, self._query)
            return Match(index, run.tier, score, positions, reason)
        return Match(index, run.tier, score, positions)


class Highlights(Mapping[int, tuple[int, ...]]):
    """Item index -> label positions to highlight, computed when a row is drawn."""

    __slots__ = ("_cache", "_ranking", "_where")

    def __init__(self, ranking: Ranking) -> None:
        self._ranking = ranking
        self._where: dict[int, int] | None = None
        self._cache: dict[int, tuple[int, ...]] = {}

    def __getitem__(self, index: int) -> tuple[int, ...]:
        cached = self._cache.get(index)
        if cached is not None:
            return cached
        if self._where is None:
            self._where = {item: position for position, item in enumerate(self._ranking.indices)}
        position = self._where[index]
        positions = self._ranking[position].positions
        self._cache[index] = positions
        return positions

    def __iter__(self) -> Iterator[int]:
        return iter(self._ranking.indices)

    def __len__(self) -> int:
        return len(self._ranking)
