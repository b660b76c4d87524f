"""What /copy copies: the last answer by Zero's rule (tui-behaviour §4) and its code blocks.

Zero's rule: scan the transcript from the end; the first assistant row marked final wins;
if there is no final assistant row anywhere, the most recent non-final one; else nothing.
`/copy N` counts back over the answers the same rule ranks: the final ones newest first,
then (only when there is no final one) the non-final ones. The text is the row's raw
Markdown source; the clipboard module sanitises it.

`log_answers` reads a log through its `LogIndex` a chunk at a time from the end, so a huge
session is decoded only as far back as needed. No Textual or Rich import here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from zero_tui.transcript.log_facts import LogFacts
from zero_tui.transcript.log_index import CHUNK_EVENTS, LogIndex, chunk_rows
from zero_tui.transcript.markdown_parser import markdown_parser
from zero_tui.transcript.row_model import Row, RowKind

NO_ANSWER = "no answer to copy yet."


def ranked_answers(rows_newest_first: Iterable[Row], want: int | None = None) -> list[str]:
    """Answer texts in /copy order (see the module docstring); at most `want` of them."""
    finals: list[str] = []
    partials: list[str] = []
    for row in rows_newest_first:
        if row.kind is not RowKind.ASSISTANT or not row.text.strip():
            continue
        if row.final:
            finals.append(row.text)
            if want is not None and len(finals) >= want:
                break
        else:
            partials.append(row.text)
    chosen = finals or partials
    return chosen if want is None else chosen[:want]


def answer_from_rows(rows: Sequence[Row], nth: int = 1) -> str | None:
    """The `nth` answer (1: the last) of rows in transcript order, or None."""
    answers = ranked_answers(reversed(rows), nth)
    return answers[nth - 1] if len(answers) >= nth else None


def log_answers(
    index: LogIndex,
    order: Sequence[int],
    want: int,
    *,
    cancelled: Callable[[], bool] = lambda: False,
    facts: LogFacts | None = None,
) -> list[str]:
    """Up to `want` answers of a log, newest first, reading chunks back from its end."""
    finals: list[str] = []
    partials: list[str] = []
    end = len(order)
    while end > 0 and len(finals) < want and not cancelled():
        start = max(0, end - CHUNK_EVENTS)
        rows = [row for _position, row in chunk_rows(index, order, start, end, facts)]
        for row in reversed(rows):
            if row.kind is not RowKind.ASSISTANT or not row.text.strip():
                continue
            (finals if row.final else partials).append(row.text)
        end = start
    return (finals or partials)[:want]


def log_last_prompt(
    index: LogIndex,
    order: Sequence[int],
    *,
    cancelled: Callable[[], bool] = lambda: False,
) -> str | None:
    """The text of the session's last user message (what /retry and /edit fall back on
    when no prompt was sent in this process), reading chunks back from the log's end."""
    end = len(order)
    while end > 0 and not cancelled():
        start = max(0, end - CHUNK_EVENTS)
        rows = [row for _position, row in chunk_rows(index, order, start, end)]
        for row in reversed(rows):
            if row.kind is RowKind.USER and row.text.strip():
                return row.text
        end = start
    return None


@dataclass(frozen=True, slots=True)
class CodeBlock:
    """One fenced (or indented) code block of an answer: its info string and its text."""

    language: str
    text: str
    line: int  # where it starts in the answer (0-based)

    @property
    def label(self) -> str:
        first = next((line.strip() for line in self.text.splitlines() if line.strip()), "")
        lines = self.text.count("\n") + (0 if self.text.endswith("\n") else 1)
        lang = self.language or "code"
        return f"{lang} · {lines} line{'s' if lines != 1 else ''} · {first}"


_MARKDOWN = markdown_parser()


def code_blocks(markdown: str) -> list[CodeBlock]:
    """The code blocks of a Markdown answer, in order (their contents, without fences)."""
    blocks: list[CodeBlock] = []
    for token in _MARKDOWN.parse(markdown):
        if token.type in ("fence", "code_block"):
            language = token.info.strip().split(" ")[0] if token.type == "fence" else ""
            line = token.map[0] if token.map else 0
            blocks.append(CodeBlock(language, token.content, line))
    return blocks
