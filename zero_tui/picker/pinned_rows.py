"""A scope's rows as the picker lists them by zero-tui's own flags (issue 29): the pinned
first, the archived left out unless shown, and the title query's `is:pinned`, `pinned:`,
`is:archived` and `tag:NAME` words.

`PinnedRows.rows` answers the same list object for the same rows, flags and words, so
that what is cached by the rows' identity (the ranking index, the columns' widths) stays
cached while a query is typed. No Textual import.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from zero_tui.picker.session_rows import PickerRow
from zero_tui.store.session_flags import NO_FLAGS, FlagBook

_FLAG_WORD = re.compile(r"(?i)(?<!\S)(-?)(is:pinned|is:archived|pinned:|tag:\S+)(?!\S)")


@dataclass(frozen=True, slots=True)
class FlagWords:
    """The flag words of a title query: what every listed row must be (or not be)."""

    pinned: bool | None = None
    archived: bool | None = None
    tags: tuple[tuple[str, bool], ...] = ()  # (name, wanted)

    @property
    def any(self) -> bool:
        return self.pinned is not None or self.archived is not None or bool(self.tags)


def split_flag_words(query: str) -> tuple[str, FlagWords]:
    """The query without its flag words, and what they ask for (`-tag:old`: not tagged)."""
    if ":" not in query:
        return query, FlagWords()
    pinned: bool | None = None
    archived: bool | None = None
    tags: list[tuple[str, bool]] = []
    for match in _FLAG_WORD.finditer(query):
        wanted = not match.group(1)
        word = match.group(2).lower()
        if word in ("is:pinned", "pinned:"):
            pinned = wanted
        elif word == "is:archived":
            archived = wanted
        else:
            tags.append((match.group(2)[4:], wanted))
    rest = " ".join(_FLAG_WORD.sub(" ", query).split())
    return rest, FlagWords(pinned, archived, tuple(tags))


class PinnedRows:
    """The rows a scope lists by their flags, remembered for the last rows asked of it."""

    def __init__(self) -> None:
        self._asked: tuple[Sequence[PickerRow], FlagBook, bool, FlagWords] | None = None
        self._answer: tuple[list[PickerRow], int] = ([], 0)

    def rows(
        self,
        rows: Sequence[PickerRow],
        book: FlagBook,
        *,
        show_archived: bool,
        words: FlagWords = FlagWords(),
    ) -> tuple[Sequence[PickerRow], int]:
        """`rows` with the pinned first and, unless `show_archived` (or `is:archived`),
        without the archived; also how many archived rows were left out."""
        if not book.sessions and not words.any:
            return rows, 0
        asked = self._asked
        if (
            asked is not None
            and asked[0] is rows
            and asked[1] is book
            and asked[2:] == (show_archived, words)
        ):
            return self._answer
        self._asked = (rows, book, show_archived, words)
        self._answer = _listed(rows, book, show_archived or words.archived is True, words)
        return self._answer


def _listed(
    rows: Sequence[PickerRow], book: FlagBook, show_archived: bool, words: FlagWords
) -> tuple[list[PickerRow], int]:
    first: list[PickerRow] = []
    rest: list[PickerRow] = []
    hidden = 0
    for row in rows:
        # a mirror's sessions have no flags here (a host's id may be one of this store's)
        flags = book.sessions.get(row.session_id, NO_FLAGS) if row.host is None else NO_FLAGS
        if flags.archived and not show_archived:
            hidden += 1
            continue
        if words.any and not (
            (words.pinned is None or flags.pinned == words.pinned)
            and (words.archived is None or flags.archived == words.archived)
            and all(flags.has_tag(name) == wanted for name, wanted in words.tags)
        ):
            continue
        (first if flags.pinned else rest).append(row)
    return first + rest, hidden
