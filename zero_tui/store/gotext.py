"""Go string semantics the store and the transcript depend on.

Zero is written in Go; where Go and Python disagree (whitespace sets, path cleaning,
integer parsing, number formatting, invalid UTF-8) these functions give Go's answer.
"""

from __future__ import annotations

import codecs
import math
import re
from decimal import Decimal

# unicode.IsSpace: what strings.TrimSpace / bytes.TrimSpace remove (store-format §12.4).
GO_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
_ASCII_SPACE_BYTES = b"\t\n\v\f\r "
_MULTIBYTE_SPACES = tuple(ch.encode("utf-8") for ch in GO_SPACE if ord(ch) > 0x7F)

_ATOI = re.compile(r"[+-]?[0-9]+")
_INT64_MAX = 2**63 - 1


def _go_replace(error: UnicodeError) -> tuple[str, int]:
    # Go's decoders replace each invalid byte with U+FFFD; Python's "replace" would
    # collapse a truncated multi-byte sequence into a single U+FFFD.
    if not isinstance(error, UnicodeDecodeError):
        raise error
    return "\ufffd" * (error.end - error.start), error.end


codecs.register_error("zero_tui_go_replace", _go_replace)


def decode_utf8(data: bytes) -> str:
    """Decode bytes as Go does when it turns them into a string: one U+FFFD per bad byte."""
    return data.decode("utf-8", "zero_tui_go_replace")


def trim_space(text: str) -> str:
    """Go strings.TrimSpace (unlike str.strip it keeps U+001C..U+001F)."""
    return text.strip(GO_SPACE)


_NOT_SPACE_EDGE = frozenset(range(0x21, 0x7F))


def trim_space_bytes(data: bytes) -> bytes:
    """Go bytes.TrimSpace on UTF-8 bytes."""
    if data and data[0] in _NOT_SPACE_EDGE and data[-1] in _NOT_SPACE_EDGE:
        return data
    while True:
        stripped = data.strip(_ASCII_SPACE_BYTES)
        for space in _MULTIBYTE_SPACES:
            if stripped.startswith(space):
                stripped = stripped[len(space) :]
            if stripped.endswith(space):
                stripped = stripped[: -len(space)]
        if stripped == data:
            return stripped
        data = stripped


def collapse_space(text: str) -> str:
    """Go strings.Join(strings.Fields(text), " ")."""
    return " ".join(_split_fields(text))


def _split_fields(text: str) -> list[str]:
    fields: list[str] = []
    current: list[str] = []
    for ch in text:
        if ch in GO_SPACE:
            if current:
                fields.append("".join(current))
                current = []
        else:
            current.append(ch)
    if current:
        fields.append("".join(current))
    return fields


_FOLD_ALONE = frozenset("\u0130\u0131")  # dotted/dotless I: not in i's fold orbit in Go


def _simple_fold(ch: str) -> str:
    if ch in _FOLD_ALONE:
        return ch
    upper = ch.upper()
    if len(upper) != 1:
        return ch.lower() if len(ch.lower()) == 1 else ch
    lower = upper.lower()
    return lower if len(lower) == 1 else upper


def equal_fold(left: str, right: str) -> bool:
    """Go strings.EqualFold: equal under simple Unicode case folding (not str.casefold)."""
    if len(left) != len(right):
        return False
    if left.isascii() and right.isascii():
        return left.lower() == right.lower()
    return all(_simple_fold(a) == _simple_fold(b) for a, b in zip(left, right, strict=True))


def truncate_utf8(text: str, max_bytes: int) -> str:
    """Cut text to at most max_bytes of UTF-8, never inside a code point."""
    encoded = text.encode("utf-8", "surrogatepass")
    if len(encoded) <= max_bytes:
        return text
    cut = max_bytes
    while cut > 0 and (encoded[cut] & 0xC0) == 0x80:
        cut -= 1
    return encoded[:cut].decode("utf-8", "surrogatepass")


def atoi(text: str) -> int | None:
    """Go strconv.Atoi: optional sign, ASCII digits only, must fit int64."""
    if not _ATOI.fullmatch(text):
        return None
    value = int(text)
    if value > _INT64_MAX or value < -_INT64_MAX - 1:
        return None
    return value


def clean_path(path: str, *, windows: bool = False) -> str:
    """Go path/filepath.Clean (POSIX rules; with windows=True, '/' becomes '\\' first)."""
    sep = "\\" if windows else "/"
    if windows:
        path = path.replace("/", "\\")
    volume = ""
    if windows and len(path) >= 2 and path[1] == ":":
        volume, path = path[:2], path[2:]
    if path == "":
        return volume + "."
    rooted = path.startswith(sep)
    parts: list[str] = []
    for part in path.split(sep):
        if part in ("", "."):
            continue
        if part == "..":
            if parts and parts[-1] != "..":
                parts.pop()
            elif not rooted:
                parts.append("..")
            continue
        parts.append(part)
    cleaned = sep.join(parts)
    if rooted:
        cleaned = sep + cleaned
    if cleaned == "":
        cleaned = "."
    return volume + cleaned


def _shortest_digits(value: float) -> tuple[str, str, int]:
    """A nonzero finite float as (sign, its shortest round-trip digits without trailing
    zeros, the exponent of the leading digit in scientific notation)."""
    sign, digits, exponent = Decimal(repr(value)).as_tuple()
    assert isinstance(exponent, int)
    digit_text = "".join(map(str, digits)).rstrip("0") or "0"
    return "-" if sign else "", digit_text, len(digits) + exponent - 1


def _exponent_form(prefix: str, digit_text: str, point: int, negative_width: int) -> str:
    """`d.ddde±XX`: a positive exponent has at least two digits, a negative one
    `negative_width` (Go's json gives 1e-07 as 1e-7, fmt.Sprint as 1e-07)."""
    mantissa = digit_text[0] + ("." + digit_text[1:] if len(digit_text) > 1 else "")
    if point < 0:
        return f"{prefix}{mantissa}e-{str(-point).rjust(negative_width, '0')}"
    return f"{prefix}{mantissa}e+{str(point).rjust(2, '0')}"


def format_go_float(value: float) -> str:
    """Go encoding/json's float64 spelling (shortest digits, 'e' form outside [1e-6, 1e21))."""
    if math.isnan(value) or math.isinf(value):
        raise ValueError(f"json: unsupported value: {value!r}")
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    magnitude = abs(value)
    prefix, digit_text, point = _shortest_digits(value)
    if magnitude < 1e-6 or magnitude >= 1e21:
        return _exponent_form(prefix, digit_text, point, negative_width=1)
    if point >= 0:
        integer_part = digit_text[: point + 1].ljust(point + 1, "0")
        fraction = digit_text[point + 1 :]
    else:
        integer_part = "0"
        fraction = "0" * (-point - 1) + digit_text
    return f"{prefix}{integer_part}" + (f".{fraction}" if fraction else "")


def format_go_sprint_float(value: float) -> str:
    """Go fmt.Sprint of a float64: shortest digits, exponent form when exp < -4 or exp >= 6."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    prefix, digit_text, point = _shortest_digits(value)
    if point < -4 or point >= 6:
        return _exponent_form(prefix, digit_text, point, negative_width=2)
    return format_go_float(value)


def go_lower(text: str) -> str:
    """Go's strings.ToLower, as Zero's search lowers both the text and the query: rune by
    rune, so U+0130 is "i" and a capital sigma U+03C3 even at a word's end (Python's
    str.lower gives "i" with a combining dot, and the final sigma U+03C2)."""
    if text.isascii():
        return text.lower()
    if "\u0130" in text:
        text = text.replace("\u0130", "i")
    if "\u03a3" in text:
        text = text.replace("\u03a3", "\u03c3")
    return text.lower()
