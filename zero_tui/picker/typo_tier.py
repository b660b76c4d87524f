"""The picker's typo tier: rows with a field within a typo or two of the query (rapidfuzz).

`RankedIndex` asks it for the rows no Go tier matched (and, with a words query, no words
match either); it keeps the rows' distinct words, so a keystroke scores only the rows with
a word close to each word typed. Every text here is lowered already (`gotext.go_lower`).
"""

from __future__ import annotations

import operator
import re
import threading
from bisect import bisect_right
from collections import OrderedDict, defaultdict
from collections.abc import Collection, Iterable, Iterator, Sequence
from itertools import compress, repeat

from rapidfuzz import fuzz, process
from rapidfuzz.distance import Indel

TYPO_MIN_QUERY_LENGTH = 3
# rapidfuzz similarity (0-100) a row needs to enter the typo tier: about one typo per four
# characters ("exprot" vs "export" scores 83, "snnet" vs "sonnet" 80-91).
TYPO_SIMILARITY_CUTOFF = 75.0
# A query word and a row word this similar make the row a typo-tier candidate.
_WORD_SIMILARITY_CUTOFF = 75.0
_TERM_CACHE_SIZE = 256
WORD_PATTERN = re.compile(r"\w+")
# Padding for rapidfuzz's partial_ratio: a noncharacter no one types. It stops
# `partial_ratio` from rewarding a window cut off at a string's edge: unpadded, "rev"
# scores 80 against "store" (its last two characters, "re").
_PAD = "\uffff" * 8
_UNMATCHED = (0.0, -9)  # the key of a field that did not match


class TypoTier:
    """The rows' lowered `labels`, `values` (ids), `models` and `providers`, and the distinct
    words of the labels and ids, each with the rows holding it."""

    def __init__(
        self,
        labels: Sequence[str],
        values: Sequence[str],
        models: Sequence[str],
        providers: Sequence[str],
    ) -> None:
        self._labels, self._values = labels, values
        self._models, self._providers = models, providers
        word_rows: defaultdict[str, list[int]] = defaultdict(list)
        title_rows: defaultdict[str, list[int]] = defaultdict(list)
        # Titles (and models) repeat their pieces: split on whitespace (never inside a
        # word) and find the words of each distinct piece once.
        piece_words: dict[str, list[str]] = {}

        def words_of(text: str) -> set[str]:
            words: set[str] = set()
            for piece in text.split():
                found = piece_words.get(piece)
                if found is None:
                    found = piece_words[piece] = WORD_PATTERN.findall(piece)
                words.update(found)
            return words

        for row, (label, *others) in enumerate(zip(labels, values, models, providers, strict=True)):
            in_title = words_of(label)
            for word in in_title:
                title_rows[word].append(row)
            for word in in_title.union(*map(words_of, others)):
                word_rows[word].append(row)
        self._word_rows = word_rows
        self._title_rows = title_rows
        self._words = sorted(word_rows, key=len)
        self._padded_words = [f"{_PAD}{word}{_PAD}" for word in self._words]
        self._lengths = list(map(len, self._words))
        self._padded_labels = [f"{_PAD}{label}{_PAD}" for label in labels]
        self._padded_values = [f"{_PAD}{value}{_PAD}" for value in values]
        self._near: OrderedDict[str, tuple[frozenset[int], frozenset[int]]] = OrderedDict()
        self._lock = threading.Lock()

    def rank(
        self, query: str, excluded: Iterable[Collection[int]], *, ids_too: bool
    ) -> tuple[list[int], list[float]]:
        """The rows in none of `excluded` with a field close to `query`, best first, and
        their similarities (the rows excluded are read only when some are close).

        A row is a candidate when each query word of three or more characters is close to
        one of its words: of the title, the model, the provider or the id (a rapidfuzz pass
        over the words, cached per word). Only the candidates are scored, with
        `partial_ratio` against the label, the model and the provider, and against the id
        when `ids_too`; at equal scores a title match goes first.
        """
        terms = {term for term in WORD_PATTERN.findall(query) if len(term) >= 3}
        if not terms:
            return [], []
        near = [self._rows_near(term) for term in terms]
        candidates = set.intersection(*(set(rows) for rows, _ in near))
        if candidates:
            for rows in excluded:
                candidates.difference_update(rows)
        if not candidates:
            return [], []
        rows = sorted(candidates)
        # Each row's best field as (similarity, -its rank): title, model, provider, id.
        keys: list[list[tuple[float, int]]] = []
        # A title is scored only where each word typed is close to one of its words.
        titled = sorted(candidates.intersection(*(title_rows for _, title_rows in near)))
        searched = [(0, titled, self._padded_labels)]
        if ids_too:
            searched.append((3, rows, self._padded_values))
        for rank, scored, strings in searched:
            found = process.extract(
                query,
                list(map(strings.__getitem__, scored)),
                scorer=fuzz.partial_ratio,
                processor=None,
                score_cutoff=TYPO_SIMILARITY_CUTOFF,
                limit=None,
            )
            by_row = {scored[position]: (similarity, -rank) for _, similarity, position in found}
            keys.append(list(map(by_row.get, rows, repeat(_UNMATCHED))))
        for rank, values in ((1, self._models), (2, self._providers)):
            # Models and providers repeat: each distinct one is scored once.
            by_value = {
                value: (similarity, -rank)
                for value, similarity in _similarities(query, {values[row] for row in rows})
            }
            if by_value:
                keys.append(
                    list(map(by_value.get, map(values.__getitem__, rows), repeat(_UNMATCHED)))
                )
        best = list(map(max, *keys)) if len(keys) > 1 else keys[0]
        matched = list(map(operator.gt, best, repeat(_UNMATCHED)))
        rows = list(compress(rows, matched))
        best = list(compress(best, matched))
        # Stable: at equal keys the rows stay in their order.
        order = sorted(range(len(rows)), key=best.__getitem__, reverse=True)
        return list(map(rows.__getitem__, order)), [best[at][0] for at in order]

    def reason(self, index: int, query: str) -> str:
        """Why row `index` is a typo match of `query`: the closest word of one of its
        fields for each word typed, `≈ sonnet (model)`."""
        fields = (
            ("title", self._labels[index]),
            ("model", self._models[index]),
            ("provider", self._providers[index]),
            ("id", self._values[index]),
        )
        found: list[str] = []
        for term in dict.fromkeys(WORD_PATTERN.findall(query)):
            if len(term) < TYPO_MIN_QUERY_LENGTH:
                continue
            closest = max(
                (
                    (_word_similarity(term, word), -rank, word, name)
                    for rank, (name, text) in enumerate(fields)
                    for word in WORD_PATTERN.findall(text)
                ),
                default=None,
            )
            if closest is not None and closest[0] >= _WORD_SIMILARITY_CUTOFF:
                found.append(f"{closest[2]} ({closest[3]})")
        return f"≈ {', '.join(dict.fromkeys(found))}" if found else ""

    def positions(self, index: int, query: str) -> tuple[int, ...]:
        """The characters of row `index`'s label rapidfuzz aligned with the query's (none
        when its id matched)."""
        padded_label = self._padded_labels[index]
        alignment = fuzz.partial_ratio_alignment(
            query, padded_label, processor=None, score_cutoff=TYPO_SIMILARITY_CUTOFF
        )
        if alignment is None:
            return ()
        source = query[alignment.src_start : alignment.src_end]
        target = padded_label[alignment.dest_start : alignment.dest_end]
        label_length = len(padded_label) - 2 * len(_PAD)
        positions: list[int] = []
        for opcode in Indel.opcodes(source, target):
            if opcode.tag == "equal":
                start = alignment.dest_start + opcode.dest_start - len(_PAD)
                stop = alignment.dest_start + opcode.dest_end - len(_PAD)
                positions.extend(range(max(start, 0), min(stop, label_length)))
        return tuple(positions)

    def _rows_near(self, term: str) -> tuple[frozenset[int], frozenset[int]]:
        """Rows with a word close to `term` (similar as a whole, or a longer word with a
        close part: "exprot" reaches "exporter"), and those of them where it is a title's.
        Cached: typing changes only the last word."""
        with self._lock:
            cached = self._near.get(term)
        if cached is not None:
            return cached
        near = process.extract(
            term,
            self._words,
            scorer=fuzz.ratio,
            processor=None,
            score_cutoff=_WORD_SIMILARITY_CUTOFF,
            limit=None,
        )
        low = bisect_right(self._lengths, len(term) + 1)
        high = bisect_right(self._lengths, 4 * len(term))
        longer = process.extract(
            term,
            self._padded_words[low:high],
            scorer=fuzz.partial_ratio,
            processor=None,
            score_cutoff=_WORD_SIMILARITY_CUTOFF,
            limit=None,
        )
        words = [word for word, _, _ in near]
        words += [self._words[low + position] for _, _, position in longer]
        title_rows = self._title_rows
        found = (
            frozenset().union(*map(self._word_rows.__getitem__, words)),
            frozenset().union(*(title_rows[word] for word in words if word in title_rows)),
        )
        with self._lock:
            self._near[term] = found
            if len(self._near) > _TERM_CACHE_SIZE:
                self._near.popitem(last=False)
        return found


def _similarities(query: str, texts: Iterable[str]) -> Iterator[tuple[str, float]]:
    """Those of `texts` that score at least the cutoff against `query`, as a label is
    scored (padded), with their scores."""
    for text in texts:
        if text:
            similarity = fuzz.partial_ratio(
                query, f"{_PAD}{text}{_PAD}", processor=None, score_cutoff=TYPO_SIMILARITY_CUTOFF
            )
            if similarity:
                yield text, similarity


def _word_similarity(term: str, word: str) -> float:
    """How close a typed word is to a row's word, as `_rows_near` finds them: as a whole,
    or a close part of a longer word."""
    similarity = fuzz.ratio(term, word, processor=None)
    if len(term) + 1 < len(word) <= 4 * len(term):
        part = fuzz.partial_ratio(term, f"{_PAD}{word}{_PAD}", processor=None)
        similarity = max(similarity, part)
    return similarity
