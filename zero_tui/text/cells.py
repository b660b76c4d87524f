"""How many terminal cells text takes, without Rich: for what is drawn before Textual loads.

Unicode's east-asian widths: wide and full-width characters take two cells, combining and
other zero-width marks none. Rich's table (which the UI measures with) agrees on every
character but a few hundred rare ones (some symbols, spacing marks of Indic scripts); a
frame drawn with these widths is redrawn by Textual a moment later anyway.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

ELLIPSIS = "…"


@lru_cache(maxsize=4096)
def char_width(char: str) -> int:
    """The cells of one code point: 0, 1 or 2."""
    code = ord(char)
    if 0x20 <= code < 0x7F:
        return 1
    if code < 0x20 or 0x7F <= code < 0xA0:
        return 0
    category = unicodedata.category(char)
    if category in ("Mn", "Me", "Mc", "Cf") or 0x1160 <= code <= 0x11FF:
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def cell_width(text: str) -> int:
    """The cells `text` takes on one line."""
    if text.isascii():
        return len(text)
    return sum(char_width(char) for char in text)
