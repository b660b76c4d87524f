"""A tool result's one-line text (tui-behaviour §6.2): a long output is flattened from its
head only, and the text is the one the whole output gives."""

from __future__ import annotations

import random

from zero_tui.store.gotext import trim_space, truncate_utf8
from zero_tui.transcript.rows import TRUNCATED_SUFFIX, truncate_tool_output


def whole_output_text(output: str, limit: int) -> str:
    """The rule as written: flatten the whole output, then cut it."""
    flat = trim_space(output.replace("\r\n", "\n")).replace("\n", " ")
    if len(flat.encode("utf-8", "surrogatepass")) <= limit:
        return flat
    return truncate_utf8(flat, limit) + TRUNCATED_SUFFIX


def test_a_long_output_gives_the_text_of_the_whole_output() -> None:
    pieces = ["x", "é", "完", "🎉", " ", "\n", "\r", "\r\n", "\t", "\u3000", "\u2028", "ab"]
    chooser = random.Random(16)
    for _ in range(3000):
        limit = chooser.choice([1, 2, 5, 17, 240])
        lead = " " * chooser.choice([0, 1, limit, 3 * limit])
        body = "".join(chooser.choices(pieces, k=chooser.randrange(0, 6 * limit + 8)))
        output = lead + body
        assert truncate_tool_output(output, limit) == whole_output_text(output, limit), output


def test_a_crlf_split_by_the_head_is_still_one_line_break() -> None:
    output = "a" * 239 + "\r\n" + "b" * 1000
    assert truncate_tool_output(output) == "a" * 239 + " " + TRUNCATED_SUFFIX
    output = "a" * 480 + "\r\n" + "b" * 1000  # the head ends between "\r" and "\n"
    assert truncate_tool_output(output) == "a" * 240 + TRUNCATED_SUFFIX


def test_an_output_of_whitespace_then_text_is_cut_after_the_whitespace() -> None:
    output = " \r\n" * 400 + "z" * 10
    assert truncate_tool_output(output) == "z" * 10
