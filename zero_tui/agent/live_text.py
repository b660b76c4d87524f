"""Streamed answer text cut into Markdown pages, so that drawing it costs what arrived.

A live answer grows by deltas, thousands of them. Parsing and laying out the whole answer
again for each frame costs time in proportion to its length, so a long answer streamed in
many deltas costs time in proportion to the square of its length. `LiveText` keeps the
answer as settled pages, each drawn once, and a tail that is drawn again as it grows:

- a page ends at a blank line outside a fenced code block (where one Markdown block ends
  and the next begins, so each page renders alone as it would within the whole), once the
  tail holds PAGE_CHARS characters;
- a tail with no such break for HARD_LIMIT characters is cut at its last newline (a code
  fence open there is closed on the page and opened again on the tail), or, with no
  newline at all, where it is: a live view is allowed a line break the stored answer
  will not have.

Each character is looked at a bounded number of times whatever the answer's length. No
Textual or Rich import: the live turn draws the pages.
"""

from __future__ import annotations

PAGE_CHARS = 2_000
HARD_LIMIT = 2 * PAGE_CHARS
_FENCE_CHARS = "`~"
_HEAD_CHARS = 64  # enough of a line to know whether it opens or closes a code fence


def _fence_of(head: str) -> str | None:
    """The fence a line opens or closes (` ``` `, `~~~~`…), or None. `head`: the line's
    start, up to _HEAD_CHARS characters."""
    stripped = head.lstrip(" ")
    if len(head) - len(stripped) > 3 or not stripped or stripped[0] not in _FENCE_CHARS:
        return None
    marker = stripped[0]
    length = len(stripped) - len(stripped.lstrip(marker))
    return marker * length if length >= 3 else None


class LiveText:
    """One streamed text block as settled `pages` (drawn once each) and a `tail`."""

    def __init__(self, page_chars: int = PAGE_CHARS, hard_limit: int = HARD_LIMIT) -> None:
        self.page_chars = page_chars
        self.hard_limit = max(hard_limit, page_chars)
        self.pages: list[str] = []
        self.length = 0  # characters taken in, pages and tail
        self._tail: list[str] = []
        self._tail_length = 0
        self._break = 0  # tail offset just after its last blank line outside a fence
        self._newline = 0  # tail offset just after its last newline
        self._newline_fence: str | None = None  # the opening line of the fence open there
        self._fence: str | None = None  # the fence open now (` ``` `, `~~~~`…)
        self._fence_line: str | None = None  # the line that opened it (` ```python `)
        self._head = ""  # the start of the line being received
        self._blank = True  # that line is blank so far

    @property
    def tail(self) -> str:
        if len(self._tail) > 1:
            self._tail[:] = ["".join(self._tail)]
        return self._tail[0] if self._tail else ""

    def append(self, text: str) -> None:
        """Take in more text: its lines are looked at once, and pages settle as they fill."""
        if not text:
            return
        self.length += len(text)
        start = 0
        while (newline := text.find("\n", start)) >= 0:
            self._add_piece(text[start:newline])
            self._end_line()
            start = newline + 1
        self._add_piece(text[start:])

    def _add_piece(self, piece: str) -> None:
        """Part of a line, no newline in it."""
        if piece:
            self._tail.append(piece)
            self._tail_length += len(piece)
            if len(self._head) < _HEAD_CHARS:
                self._head += piece[: _HEAD_CHARS - len(self._head)]
            if self._blank and piece.strip():
                self._blank = False
        if self._tail_length - self._newline >= self.hard_limit:
            self._settle(self._tail_length, self._fence_line)  # one line over the limit

    def _end_line(self) -> None:
        self._tail.append("\n")
        self._tail_length += 1
        fence = _fence_of(self._head)
        if self._fence is None:
            if fence is not None:
                self._fence, self._fence_line = fence, self._head.strip()
            elif self._blank and self._tail_length > 1:
                self._break = self._tail_length
        elif (
            fence is not None
            and fence[0] == self._fence[0]
            and len(fence) >= len(self._fence)
            and not self._head.strip().lstrip(fence[0])  # a closing fence has nothing after it
        ):
            self._fence = self._fence_line = None
        self._newline, self._newline_fence = self._tail_length, self._fence_line
        self._head, self._blank = "", True
        if self._tail_length >= self.page_chars and self._break > 0:
            self._settle(self._break, None)
        elif self._tail_length >= self.hard_limit:
            self._settle(self._newline, self._newline_fence)

    def _settle(self, offset: int, open_fence: str | None) -> None:
        """The tail's first `offset` characters become a page; a code fence open at that
        point (`open_fence`: its opening line) is closed on the page and opened again, with
        its info string, at the start of the new tail."""
        text = self.tail
        page, rest = text[:offset], text[offset:]
        if open_fence is not None:
            marker = _fence_of(open_fence) or "```"
            page += ("" if page.endswith("\n") else "\n") + marker + "\n"
            rest = open_fence + "\n" + rest
        self.pages.append(page)
        self._tail = [rest] if rest else []
        self._tail_length = len(rest)
        reopened = len(open_fence) + 1 if open_fence is not None else 0
        self._break = 0
        if self._newline > offset:
            self._newline += reopened - offset
        else:  # the last newline is the reopened fence's, or there is none
            self._newline, self._newline_fence = reopened, open_fence
