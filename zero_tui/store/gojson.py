"""Go encoding/json (v1) byte for byte, and Go's decoder rules where Python's differ.

Encoder: store-format §12 — HTML escaping of < > &, U+2028/U+2029, short \\b \\f,
\\ufffd for invalid UTF-8, map keys sorted by their UTF-8 bytes, compact separators.
Decoder: no NaN/Infinity, one U+FFFD per invalid byte, objects decoded as ordered pairs
so that struct fields can be matched case-insensitively with the last duplicate winning.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NoReturn

from zero_tui.store.gotext import decode_utf8, format_go_float

_STRING_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\b": "\\b",
    "\f": "\\f",
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}
_NEEDS_ESCAPE = re.compile('["\\\\\x00-\x1f<>&\u2028\u2029\ud800-\udfff]')


def _escape_char(match: re.Match[str]) -> str:
    ch = match.group()
    escaped = _STRING_ESCAPES.get(ch)
    if escaped is not None:
        return escaped
    if "\ud800" <= ch <= "\udfff":
        # a byte that was not valid UTF-8 (surrogateescape) or a lone surrogate
        return "\\ufffd"
    return f"\\u{ord(ch):04x}"


def encode_string(text: str) -> str:
    """A JSON string literal exactly as Go's json.Marshal writes it."""
    return '"' + _NEEDS_ESCAPE.sub(_escape_char, text) + '"'


class RawJSON(bytes):
    """Bytes that already hold JSON (Go json.RawMessage): compacted and escaped on output."""


_WHITESPACE_OUTSIDE_STRINGS = re.compile(rb'("(?:[^"\\]|\\.)*")|[ \t\n\r]+', re.DOTALL)
_HTML_BYTES = re.compile(rb"[<>&]|\xe2\x80[\xa8\xa9]")
_HTML_BYTE_ESCAPES = {
    b"<": b"\\u003c",
    b">": b"\\u003e",
    b"&": b"\\u0026",
    b"\xe2\x80\xa8": b"\\u2028",
    b"\xe2\x80\xa9": b"\\u2029",
}


def compact_raw(raw: bytes) -> bytes:
    """Go json.Compact with HTML escaping: key order, escapes and number spellings survive."""
    compacted = _WHITESPACE_OUTSIDE_STRINGS.sub(lambda m: m.group(1) or b"", raw)
    return _HTML_BYTES.sub(lambda m: _HTML_BYTE_ESCAPES[m.group()], compacted)


def _sort_key(key: str) -> bytes:
    # Go sorts keys by their bytes: an invalid byte (surrogateescape) sorts as that byte
    try:
        return key.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return key.encode("utf-8", "surrogatepass")


def _encode_into(value: object, out: list[str]) -> None:
    if value is None:
        out.append("null")
    elif isinstance(value, str):
        out.append(encode_string(value))
    elif isinstance(value, bool):
        out.append("true" if value else "false")
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, float):
        out.append(format_go_float(value))
    elif isinstance(value, RawJSON):
        out.append(compact_raw(bytes(value)).decode("utf-8", "surrogateescape"))
    elif isinstance(value, Mapping):
        out.append("{")
        first = True
        for key in value:
            if not isinstance(key, str):
                raise TypeError(f"json: unsupported map key type {type(key).__name__}")
        for key in sorted(value, key=_sort_key):
            if not first:
                out.append(",")
            first = False
            out.append(encode_string(key))
            out.append(":")
            _encode_into(value[key], out)
        out.append("}")
    elif isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _encode_into(item, out)
        out.append("]")
    else:
        raise TypeError(f"json: unsupported type: {type(value).__name__}")


def marshal(value: object) -> bytes:
    """Go json.Marshal of a map/slice/scalar value (maps as sorted-key objects)."""
    out: list[str] = []
    _encode_into(value, out)
    return "".join(out).encode("utf-8", "surrogateescape")


# --- decoding -------------------------------------------------------------------------


class GoJSONError(ValueError):
    """A value Go's decoder would reject; the message is the human-readable detail."""


class JSONObject(list[tuple[str, Any]]):
    """A decoded JSON object as its (key, value) pairs in source order."""


def _reject_constant(name: str) -> NoReturn:
    raise GoJSONError(f"invalid character {name[0]!r} looking for beginning of value")


_pairs_decoder = json.JSONDecoder(object_pairs_hook=JSONObject, parse_constant=_reject_constant)
_plain_decoder = json.JSONDecoder(parse_constant=_reject_constant)


# A surrogate in decoded text came from an unpaired \\uD800-\\uDFFF escape or, in text
# decoded with surrogateescape, from an invalid byte: Go's decoder makes both U+FFFD.
_SURROGATE_SOURCE = re.compile("[\ud800-\udfff]|\\\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _replace_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, JSONObject):
        return JSONObject((_replace_surrogates(k), _replace_surrogates(v)) for k, v in value)
    if isinstance(value, dict):
        return {_replace_surrogates(k): _replace_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace_surrogates(item) for item in value]
    return value


def _go_strings(value: Any, source: str) -> Any:
    return _replace_surrogates(value) if _SURROGATE_SOURCE.search(source) else value


def _describe(error: json.JSONDecodeError) -> str:
    return f"{error.msg} (column {error.colno})"


def loads_pairs(data: bytes | str) -> Any:
    """Decode JSON keeping objects as JSONObject pairs (for struct-style field matching)."""
    text = decode_utf8(data) if isinstance(data, bytes) else data
    try:
        return _go_strings(_pairs_decoder.decode(text), text)
    except json.JSONDecodeError as error:
        raise GoJSONError(_describe(error)) from None
    except RecursionError:
        raise GoJSONError("exceeded max depth") from None


def loads(data: bytes | str) -> Any:
    """Decode JSON the way Go decodes into `any` (objects become dicts, last key wins)."""
    text = decode_utf8(data) if isinstance(data, bytes) else data
    try:
        return _go_strings(_plain_decoder.decode(text), text)
    except json.JSONDecodeError as error:
        raise GoJSONError(_describe(error)) from None
    except RecursionError:
        raise GoJSONError("exceeded max depth") from None


def raw_decode(text: str, index: int) -> tuple[Any, int]:
    """Decode one value starting at text[index]; returns (value, end index)."""
    try:
        value, end = _plain_decoder.raw_decode(text, index)
        return _go_strings(value, text[index:end]), end
    except json.JSONDecodeError as error:
        raise GoJSONError(_describe(error)) from None
    except RecursionError:
        raise GoJSONError("exceeded max depth") from None


def fold_key(key: str) -> str | None:
    """Go's case-insensitive field-name fold for ASCII field names (None: can never match)."""
    folded = key.replace("\u017f", "s").replace("\u212a", "k")
    if not folded.isascii():
        return None
    return folded.lower()


def match_fields(
    pairs: JSONObject, fields: Mapping[str, str], context: str
) -> dict[str, tuple[Any, str]]:
    """Map JSON keys onto struct fields as Go does: exact name first, else case-insensitive.

    `fields` maps each JSON field name to itself folded; returns {field: (value, key)},
    the last occurrence winning. Unknown keys are ignored.
    """
    del context
    by_fold = {folded: name for name, folded in fields.items()}
    matched: dict[str, tuple[Any, str]] = {}
    for key, value in pairs:
        name = key if key in fields else by_fold.get(fold_key(key) or "")
        if name is not None:
            matched[name] = (value, key)
    return matched


INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


def go_type_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list) and not isinstance(value, JSONObject):
        return "array"
    return "object"


def as_go_string(value: object, field: str, current: str) -> str:
    """A JSON value stored into a Go string field (null leaves the field unchanged)."""
    if value is None:
        return current
    if not isinstance(value, str):
        raise GoJSONError(
            f"cannot unmarshal {go_type_name(value)} into Go struct field {field} of type string"
        )
    return value


def as_go_int(value: object, field: str, current: int) -> int:
    """A JSON value stored into a Go int field: integer literals in int64 range only."""
    if value is None:
        return current
    if isinstance(value, bool) or not isinstance(value, int):
        kind = go_type_name(value)
        shown = f" {value!r}" if isinstance(value, float) else ""
        raise GoJSONError(
            f"cannot unmarshal {kind}{shown} into Go struct field {field} of type int"
        )
    if not INT64_MIN <= value <= INT64_MAX:
        raise GoJSONError(
            f"cannot unmarshal number {value} into Go struct field {field} of type int"
        )
    return value


def as_go_bool(value: object, field: str, current: bool) -> bool:
    if value is None:
        return current
    if not isinstance(value, bool):
        raise GoJSONError(
            f"cannot unmarshal {go_type_name(value)} into Go struct field {field} of type bool"
        )
    return value


FieldReader = Callable[[object, str, Any], Any]
