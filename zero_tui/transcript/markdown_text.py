"""Session Markdown as plain text, for where there is room for a glance only (the picker's
preview): headings, emphasis, links and fences lose their marks, lists keep a bullet.
No Textual or Rich import here.
"""

from __future__ import annotations

from collections.abc import Sequence

from markdown_it.token import Token

from zero_tui.transcript.markdown_parser import markdown_parser

PARSED_CHARS = 8000
"""Only the start of a long answer is read: a glance never shows more."""


def markdown_as_text(markdown: str) -> str:
    """`## Answer 17\\n\\nhello **there**` as `Answer 17\\n\\nhello there`."""
    blocks: list[str] = []
    lists: list[list[int]] = []  # one counter per open list (0: a bullet list)
    item_start = False
    new_list = False  # a list begins: a blank line before its first item
    for token in markdown_parser().parse(markdown[:PARSED_CHARS]):
        kind = token.type
        if kind in ("bullet_list_open", "ordered_list_open"):
            start = token.attrGet("start")
            new_list = new_list or not lists
            lists.append([0] if kind == "bullet_list_open" else [int(start or 1)])
        elif kind in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif kind == "list_item_open":
            item_start = True
        elif kind in ("inline", "fence", "code_block"):
            text = _inline(token.children or []) if kind == "inline" else token.content.rstrip()
            if lists:
                text = _list_line(text, lists, item_start)
                separator = "\n\n" if new_list else "\n"
                item_start = new_list = False
                blocks.append((separator if blocks else "") + text)
                continue
            blocks.append(("\n\n" if blocks else "") + text)
        elif kind == "hr":
            blocks.append(("\n\n" if blocks else "") + "—")
    return "".join(blocks)


def _list_line(text: str, lists: list[list[int]], first: bool) -> str:
    indent = "  " * (len(lists) - 1)
    counter = lists[-1]
    if not first:
        marker = "  "
    elif counter[0] == 0:
        marker = "• "
    else:
        marker = f"{counter[0]}. "
        counter[0] += 1
    pad = " " * len(marker)
    return "\n".join(
        indent + (marker if n == 0 else pad) + line for n, line in enumerate(text.split("\n"))
    )


def _inline(children: Sequence[Token]) -> str:
    parts: list[str] = []
    for child in children:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append("\n")
        elif child.type == "image":
            parts.append(_inline(child.children or []))
    return "".join(parts)
