"""Go encoding/json (v1) byte for byte, and Go's decoder rules where Python's differ.

Encoder: store-format §12 — HTML escaping of < > &, U+2028/U+2029, short \\b \\f,
\\ufffd for invalid UTF-8, map keys sorted by their UTF-8 bytes, compact separators.
Decoder: json.JSONDecoder's public hooks (object_pairs_hook, parse_constant, parse_float,
parse_int) with Go's rules: no NaN/Infinity, one U+FFFD per invalid byte, objects decoded as
ordered pairs so that struct fields can be matched case-insensitively with the last
duplicate winning. A value nested deeper than READ_DEPTH levels is an error (TOO_DEEP).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NoReturn

from zero_tui.store.gotext import decode_utf8, format_go_float, format_go_sprint_float

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


class JSONNumber:
    """A valid JSON number Python cannot hold as written: more than 4,300 digits (Python's
    int-conversion limit) or beyond float range (`1e400`). Go accepts both in raw JSON;
    keeping the literal keeps its spelling on output and costs no quadratic conversion."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"JSONNumber({self.text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, JSONNumber) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)


MAX_DEPTH = 10_000  # Go's encoding/json scanner: maxNestingDepth


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


def _encode_scalar(value: object) -> str | None:
    if value is None:
        return "null"
    if isinstance(value, str):
        return encode_string(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return format_go_float(value)
    if isinstance(value, JSONNumber):
        return value.text
    if isinstance(value, RawJSON):
        return compact_raw(bytes(value)).decode("utf-8", "surrogateescape")
    return None


def _container_items(value: object) -> Iterator[tuple[str | None, object]] | None:
    if isinstance(value, Mapping):
        for key in value:
            if not isinstance(key, str):
                raise TypeError(f"json: unsupported map key type {type(key).__name__}")
        return ((key, value[key]) for key in sorted(value, key=_sort_key))
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        return ((None, item) for item in value)
    return None


def _encode_into(value: object, out: list[str], depth: int = 0) -> None:
    """Iterative, so that a value as deep as Go reads (10,000 levels) can be written;
    `depth` levels already enclose it, and deeper than Go reads is refused."""
    scalar = _encode_scalar(value)
    if scalar is not None:
        out.append(scalar)
        return
    # each frame: (items, closing bracket, first?)
    stack: list[tuple[Iterator[tuple[str | None, object]], str, list[bool]]] = []

    def open_container(container: object) -> None:
        items = _container_items(container)
        if items is None:
            raise TypeError(f"json: unsupported type: {type(container).__name__}")
        if depth + len(stack) >= MAX_DEPTH:
            raise ValueError(f"exceeded max depth ({MAX_DEPTH} levels, Go's limit)")
        is_object = isinstance(container, Mapping)
        out.append("{" if is_object else "[")
        stack.append((items, "}" if is_object else "]", [True]))

    open_container(value)
    while stack:
        items, closing, first = stack[-1]
        entry = next(items, None)
        if entry is None:
            out.append(closing)
            stack.pop()
            continue
        key, item = entry
        if not first[0]:
            out.append(",")
        first[0] = False
        if key is not None:
            out.append(encode_string(key))
            out.append(":")
        scalar = _encode_scalar(item)
        if scalar is not None:
            out.append(scalar)
        else:
            open_container(item)


def marshal(value: object, *, depth: int = 0) -> bytes:
    """Go json.Marshal of a map/slice/scalar value (maps as sorted-key objects)."""
    out: list[str] = []
    _encode_into(value, out, depth)
    return "".join(out).encode("utf-8", "surrogateescape")


def go_sprint(value: object) -> str:
    """A decoded JSON value as Zero's TUI turns it into text (fmt.Sprint; objects as JSON)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, JSONNumber):
        return value.text  # Go could not decode it into a float64 at all
    if isinstance(value, int | float):
        # encoding/json decodes every number into a float64 before fmt.Sprint sees it
        try:
            return format_go_sprint_float(float(value))
        except OverflowError:
            return str(value)
    return marshal(value).decode("utf-8")


# --- decoding -------------------------------------------------------------------------


class GoJSONError(ValueError):
    """A value Go's decoder would reject; the message is the human-readable detail."""


class JSONObject(list[tuple[str, Any]]):
    """A decoded JSON object as its (key, value) pairs in source order."""


def _reject_constant(name: str) -> NoReturn:
    raise GoJSONError(f"invalid character {name[0]!r} looking for beginning of value")


def _parse_int(text: str) -> int | JSONNumber:
    try:
        return int(text)
    except ValueError:  # more digits than Python converts (sys.get_int_max_str_digits)
        return JSONNumber(text)


def _parse_float(text: str) -> float | JSONNumber:
    value = float(text)
    return value if math.isfinite(value) else JSONNumber(text)


class FloatLiteral(float):
    """A float that remembers how it was written: Go names the literal (`number 1e2`) when
    it cannot go into an int field."""

    __slots__ = ("text",)
    text: str

    def __new__(cls, text: str) -> FloatLiteral:
        literal = super().__new__(cls, text)
        literal.text = text
        return literal


def _parse_float_literal(text: str) -> FloatLiteral | JSONNumber:
    literal = FloatLiteral(text)
    return literal if math.isfinite(literal) else JSONNumber(text)


# The fast decoders leave integers to json's own; only a number past Python's digit
# limit (a ValueError) sends the text through the exact ones. The pairs decoders feed
# `unmarshal`, which needs the spelling of a float for its errors.
_pairs_decoder = json.JSONDecoder(
    object_pairs_hook=JSONObject, parse_constant=_reject_constant, parse_float=_parse_float_literal
)
_plain_decoder = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_parse_float)
_pairs_decoder_exact = json.JSONDecoder(
    object_pairs_hook=JSONObject,
    parse_constant=_reject_constant,
    parse_float=_parse_float_literal,
    parse_int=_parse_int,
)
_plain_decoder_exact = json.JSONDecoder(
    parse_constant=_reject_constant, parse_float=_parse_float, parse_int=_parse_int
)


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


def _describe(error: json.JSONDecodeError) -> str:
    return f"{error.msg} (column {error.colno})"


_SPACE = re.compile(r"[ \t\n\r]*")


def _syntax_error(message: str, text: str, index: int) -> GoJSONError:
    return GoJSONError(_describe(json.JSONDecodeError(message, text, index)))


READ_DEPTH = 500
"""How deep a value zero-tui reads (Go reads MAX_DEPTH): json's decoder recurses, and its
recursion limit falls between 1,000 and 9,000 levels by Python version and by how deep the
caller's stack already is; a fixed limit below it says the same of a file everywhere."""
TOO_DEEP = f"nested deeper than {READ_DEPTH} levels, which zero-tui does not read"
_STRING_LITERAL = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def _too_deep(text: str, start: int, end: int, depth: int) -> bool:
    """Whether the value at text[start:end] nests past READ_DEPTH, `depth` levels already
    open around it (a cheap count first: most values have too few brackets to)."""
    levels = READ_DEPTH - depth
    if text.count("[", start, end) + text.count("{", start, end) <= levels:
        return False
    brackets = _NOT_BRACKET.sub("", _STRING_LITERAL.sub("", text[start:end]))
    nesting = 0
    for bracket in brackets:
        if bracket in "[{":
            nesting += 1
            if nesting > levels:
                return True
        else:
            nesting -= 1
            if nesting <= 0:
                return False  # the value ended: what follows is its caller's
    return False


def _decode_exact(text: str, index: int, pairs: bool, depth: int) -> tuple[Any, int]:
    """One value at text[index] with Go's rules; returns (value, end index)."""
    if text[index : index + 1] in ("[", "{") and _too_deep(text, index, len(text), depth):
        raise GoJSONError(TOO_DEEP)
    try:
        try:
            decoder = _pairs_decoder if pairs else _plain_decoder
            try:
                value, end = decoder.raw_decode(text, index)
            except json.JSONDecodeError:
                raise
            except ValueError:  # an integer past Python's digit limit
                exact = _pairs_decoder_exact if pairs else _plain_decoder_exact
                value, end = exact.raw_decode(text, index)
            if _SURROGATE_SOURCE.search(text, index, end):
                value = _replace_surrogates(value)
            return value, end
        except RecursionError:  # json's own limit, should the caller's stack be that deep
            raise GoJSONError(TOO_DEEP) from None
    except json.JSONDecodeError as error:
        raise GoJSONError(_describe(error)) from None


def _whole_exact(text: str, pairs: bool, depth: int) -> Any:
    value, end = _decode_exact(text, _SPACE.match(text).end(), pairs, depth)  # type: ignore[union-attr]
    end = _SPACE.match(text, end).end()  # type: ignore[union-attr]
    if end != len(text):
        raise _syntax_error("Extra data", text, end)
    return value


# The fast path: json's decoder alone, kept only when a cheap scan shows that none of Go's
# rules could have changed the result. Anything else (an error, a number past Python's digit
# limit, deep nesting, a surrogate escape, whitespace around the value) goes through the
# exact path above, which decides alone what is returned or raised.
_SURROGATE_ESCAPE = re.compile("\\\\u[dD][89a-fA-F]")


def _decode_fast(
    text: str, index: int, pairs: bool, depth: int, raw_surrogates: bool
) -> tuple[Any, int] | None:
    """The value at text[index] and its end, or None when only the exact path can say.
    `raw_surrogates` False: the text was made by `decode_utf8`, which leaves none in it."""
    try:
        value, end = (_pairs_decoder if pairs else _plain_decoder).raw_decode(text, index)
    except (ValueError, RecursionError):
        return None
    if text.count("[", index, end) + text.count("{", index, end) > READ_DEPTH - depth:
        return None
    if _SURROGATE_ESCAPE.search(text, index, end) is not None:
        return None
    if raw_surrogates and not text.isascii() and _SURROGATE.search(text, index, end):
        return None
    return value, end


def _decode(text: str, index: int, pairs: bool, depth: int) -> tuple[Any, int]:
    """`_decode_exact`, through the fast path when it can decide."""
    decoded = _decode_fast(text, index, pairs, depth, True)
    return _decode_exact(text, index, pairs, depth) if decoded is None else decoded


def _whole(text: str, pairs: bool, depth: int, *, raw_surrogates: bool = True) -> Any:
    """`_whole_exact`, through the fast path when the value fills the text but for
    whitespace around it (a metadata file ends with a newline)."""
    start = 0 if text[:1] not in _JSON_SPACE else _SPACE.match(text).end()  # type: ignore[union-attr]
    decoded = _decode_fast(text, start, pairs, depth, raw_surrogates)
    if decoded is not None:
        end = decoded[1]
        if end == len(text) or _SPACE.match(text, end).end() == len(text):  # type: ignore[union-attr]
            return decoded[0]
    return _whole_exact(text, pairs, depth)


_JSON_SPACE = frozenset(" \t\n\r")


# One token of JSON, after optional whitespace: a string exactly as the grammar allows it, a
# punctuation mark, a number, a literal.
_TOKEN = re.compile(
    r'[ \t\n\r]*(?:("(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*")|([{}\[\],:])'
    r"|(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)|(true|false|null))"
)
_VALUE, _AFTER_VALUE, _KEY, _COLON = range(4)
HUGE_VALUE = 8 * 1024 * 1024
"""Above this many characters a value is validated token by token instead of decoded: a
50 MB array of 25 million numbers would take gigabytes as Python objects."""


def check_valid(text: str, *, depth: int = 0) -> None:
    """Raise GoJSONError unless `text` is exactly one JSON value as Go accepts it (grammar,
    strings, numbers, Go's 10,000 levels with `depth` already open), building nothing:
    memory stays at the nesting depth whatever the size."""
    stack: list[str] = []  # the closing bracket of each open container
    state = _VALUE
    position = 0
    match = _TOKEN.match
    while True:
        token = match(text, position)
        if token is None:
            if state == _AFTER_VALUE and not stack and not text[position:].strip(" \t\n\r"):
                return
            raise _syntax_error("Expecting value", text, position)
        position = token.end()
        string, mark = token.group(1), token.group(2)
        if state == _AFTER_VALUE:
            if not stack or mark not in (",", stack[-1]):
                raise _syntax_error("Expecting ',' delimiter", text, token.start())
            if mark == ",":
                state = _KEY if stack[-1] == "}" else _VALUE
            else:
                stack.pop()
            continue
        if state == _KEY:
            if string is None:
                raise _syntax_error(
                    "Expecting property name enclosed in double quotes", text, token.start()
                )
            state = _COLON
            continue
        if state == _COLON:
            if mark != ":":
                raise _syntax_error("Expecting ':' delimiter", text, token.start())
            state = _VALUE
            continue
        # a value is expected
        if mark in ("{", "["):
            if depth + len(stack) >= MAX_DEPTH:
                raise GoJSONError("exceeded max depth")
            closing = "}" if mark == "{" else "]"
            after = match(text, position)
            if after is not None and after.group(2) == closing:
                position = after.end()  # an empty container is a whole value
                state = _AFTER_VALUE
                continue
            stack.append(closing)
            state = _KEY if mark == "{" else _VALUE
            continue
        if mark is not None:
            raise _syntax_error("Expecting value", text, token.start())
        state = _AFTER_VALUE


def iter_tokens(text: str) -> Iterator[str]:
    """The tokens of valid JSON text (strings as written, marks, numbers, literals)."""
    for token in _TOKEN.finditer(text):
        yield token.group().lstrip(" \t\n\r")


def loads_pairs(data: bytes | str, *, depth: int = 0) -> Any:
    """Decode JSON keeping objects as JSONObject pairs (for struct-style field matching).

    `depth`: how many levels already enclose the value (Go's limit counts the whole line).
    """
    if isinstance(data, bytes):
        return _whole(decode_utf8(data), True, depth, raw_surrogates=False)
    return _whole(data, True, depth)


def loads(data: bytes | str, *, depth: int = 0) -> Any:
    """Decode JSON the way Go decodes into `any` (objects become dicts, last key wins)."""
    if isinstance(data, bytes):
        return _whole(decode_utf8(data), False, depth, raw_surrogates=False)
    return _whole(data, False, depth)


def check_decodes(data: bytes, *, depth: int = 0) -> None:
    """Raise GoJSONError where `loads(data)` would; faster, as the value is not kept (nor
    scanned for surrogates, which change a value but never whether it decodes)."""
    text = decode_utf8(data)
    try:
        _value, end = _plain_decoder.raw_decode(text)
    except (ValueError, RecursionError):
        end = -1
    if end != len(text) or text.count("[") + text.count("{") > READ_DEPTH - depth:
        _whole_exact(text, False, depth)


def check_go_reads(data: bytes, *, depth: int = 0) -> None:
    """Raise GoJSONError unless Go's decoder reads `data` (its grammar and 10,000 levels),
    however deep zero-tui reads: the token validator takes what nests deeper."""
    try:
        check_decodes(data, depth=depth)
    except GoJSONError as error:
        if str(error) != TOO_DEEP:
            raise
        check_valid(decode_utf8(data), depth=depth)


def all_decode(values: Sequence[bytes]) -> bool:
    """True when the C decoder takes every one of these JSON texts (each a value as a
    payload holds it, in no outer value but its line), tried at once as one array; Go's
    decoder takes all such values too. False: some may still decode with Go's rules (a
    number past Python's digit limit, nesting past the recursion limit), or not."""
    text = decode_utf8(b"[" + b",".join(values) + b"]")
    try:
        value, end = _plain_decoder.raw_decode(text)
    except (ValueError, RecursionError):
        return False
    if text.count("[") + text.count("{") > READ_DEPTH and any(
        raw.count(b"[") + raw.count(b"{") > READ_DEPTH - 1 for raw in values
    ):
        return False  # one may nest too deep: decoded one by one, it says so
    # a value with a top-level comma in it (`1,2`) would count as two
    return end == len(text) and len(value) == len(values)


def raw_decode(text: str, index: int, *, depth: int = 0) -> tuple[Any, int]:
    """Decode one value starting at text[index]; returns (value, end index)."""
    return _decode(text, index, False, depth)


def fold_key(key: str) -> str | None:
    """Go's case-insensitive field-name fold for ASCII field names (None: can never match)."""
    folded = key.replace("\u017f", "s").replace("\u212a", "k")
    if not folded.isascii():
        return None
    return folded.lower()


INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


def go_type_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float | JSONNumber):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list) and not isinstance(value, JSONObject):
        return "array"
    return "object"


def field_type_error(shown: str, field: str, go_type: str) -> GoJSONError:
    """Go's UnmarshalTypeError for a struct field: `shown` is the JSON kind (and value)."""
    return GoJSONError(f"cannot unmarshal {shown} into Go struct field {field} of type {go_type}")


def as_go_string(value: object, field: str, current: str, go_type: str = "string") -> str:
    """A JSON value stored into a Go string field (null leaves the field unchanged);
    `go_type` is the field's type as Go's errors name it (a named type: sessions.EventType)."""
    if value is None:
        return current
    if not isinstance(value, str):
        raise field_type_error(go_type_name(value), field, go_type)
    return value


def _int_problem(value: object, low: int = INT64_MIN, high: int = INT64_MAX) -> str | None:
    """Why a non-null JSON value cannot go into a Go integer field of range low..high (None:
    it can), as Go shows it: `number <literal>` for a number strconv.ParseInt (ParseUint)
    refuses or the type cannot hold, else the JSON kind. The literal `-0` arrives as 0 and
    is taken by an unsigned field too, where Go's ParseUint refuses its sign."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return None if low <= value <= high else f"number {value}"
    if isinstance(value, FloatLiteral | JSONNumber):
        return f"number {value.text}"
    if isinstance(value, float):
        return f"number {value!r}"
    return go_type_name(value)


def as_go_int(value: object, field: str, current: int) -> int:
    """A JSON value stored into a Go int field: integer literals in int64 range only."""
    if value is None:
        return current
    problem = _int_problem(value)
    if problem is not None:
        raise field_type_error(problem, field, "int")
    assert isinstance(value, int)
    return value


# --- json.Unmarshal into a Go struct ------------------------------------------------------


class GoType:
    """A Go type that JSON is unmarshalled into, for `unmarshal`.

    `kind` is "string", "int" (any Go integer type: `low`..`high` is its range), "bool",
    "struct", "pointer" (to a struct) or "slice"; `name` is Go's spelling of the type in
    its errors ("sessions.SessionKind", "uint32"). A struct's fields are (JSON name, Python
    attribute, type) in declaration order.
    """

    __slots__ = (
        "by_fold",
        "by_key",
        "elem",
        "fields",
        "has_slice",
        "high",
        "kind",
        "low",
        "name",
        "struct_fields",
        "struct_name",
        "zero_fields",
    )

    def __init__(
        self,
        kind: str,
        name: str,
        *,
        fields: tuple[tuple[str, str, GoType], ...] = (),
        elem: GoType | None = None,
        low: int = INT64_MIN,
        high: int = INT64_MAX,
    ) -> None:
        self.kind = kind
        self.name = name
        self.fields = fields
        self.elem = elem
        self.low, self.high = low, high
        self.struct_name = name.rpartition(".")[2]  # reflect's Name(), as Go's errors show it
        self.by_key = {field[0]: field for field in fields}
        self.by_fold = {fold_key(field[0]) or field[0]: field for field in fields}
        self.has_slice: bool = (
            kind == "slice"
            or any(field[2].has_slice for field in fields)
            or (elem is not None and elem.has_slice)
        )
        self.zero_fields = {attribute: go_type.zero() for _, attribute, go_type in fields}
        # a struct held by value needs a fresh dict in every zero value
        self.struct_fields = tuple(field for field in fields if field[2].kind == "struct")

    def zero(self) -> Any:
        if self.kind == "struct":
            zero = self.zero_fields.copy()
            for _, attribute, go_type in self.struct_fields:
                zero[attribute] = go_type.zero()
            return zero
        return {"string": "", "int": 0, "bool": False}.get(self.kind)


GO_STRING = GoType("string", "string")
GO_INT = GoType("int", "int")
GO_BOOL = GoType("bool", "bool")
GO_UINT32 = GoType("int", "uint32", low=0, high=2**32 - 1)


class _Slice:
    """A Go slice while it is decoded into: its backing array outlives a shorter length, so
    a later, longer array decodes into the old elements again (decode.go reuses them)."""

    __slots__ = ("backing", "length")

    def __init__(self) -> None:
        self.backing: list[Any] = []
        self.length = 0


def unmarshal(value: Any, target: GoType) -> Any:
    """Go's json.Unmarshal of a decoded document (`loads_pairs`) into a new `target` value:
    a struct as a dict of its attributes, a nil pointer or slice as None.

    Go's rules where Python's would differ: a key matches a field by its exact name, else
    case-insensitively; each occurrence of a key is decoded in turn into what the earlier
    ones left, so a later `null` leaves a string, number or bool as it was (and clears a
    pointer or slice) and a repeated object fills in its struct; a value of the wrong type
    is an error even when a later duplicate would fit. Go records the first such error and
    decodes on; Unmarshal returns it, so it is raised here (GoJSONError).
    """
    result, error = unmarshal_with_error(value, target)
    if error is not None:
        raise error
    return result


def unmarshal_with_error(value: Any, target: GoType) -> tuple[Any, GoJSONError | None]:
    """`unmarshal` as Go's returns: the value as far as it was filled (every field of the
    wrong type left as it was) and the first error, or None."""
    decoder = _Unmarshaller()
    result = decoder.store(value, target, target.zero(), "", "")
    return (_finished(result) if target.has_slice else result), decoder.error


def _finished(value: Any) -> Any:
    if isinstance(value, _Slice):
        return [_finished(item) for item in value.backing[: value.length]]
    if isinstance(value, dict):
        return {key: _finished(item) for key, item in value.items()}
    return value


class _Unmarshaller:
    __slots__ = ("error",)

    def __init__(self) -> None:
        self.error: GoJSONError | None = None

    def mismatch(self, shown: str, target: GoType, struct: str, path: str) -> None:
        """Go's saveError(UnmarshalTypeError): only the first one is kept."""
        if self.error is None:
            if struct:
                self.error = field_type_error(shown, f"{struct}.{path}", target.name)
            else:
                self.error = GoJSONError(
                    f"cannot unmarshal {shown} into Go value of type {target.name}"
                )

    def store(self, value: Any, target: GoType, current: Any, struct: str, path: str) -> Any:
        """`value` decoded into `current` (of type `target`); returns the new value. `struct`
        and `path` are Go's error context: the innermost struct and the field names to here."""
        kind = target.kind
        if value is None:
            # null: no-op for a string, number, bool or struct; clears a pointer or a slice
            return None if kind in ("pointer", "slice") else current
        if kind == "string":
            if isinstance(value, str):
                return value
            self.mismatch(go_type_name(value), target, struct, path)
            return current
        if kind == "int":
            problem = _int_problem(value, target.low, target.high)
            if problem is None:
                return value
            self.mismatch(problem, target, struct, path)
            return current
        if kind == "bool":
            if isinstance(value, bool):
                return value
            self.mismatch(go_type_name(value), target, struct, path)
            return current
        if kind == "pointer":
            assert target.elem is not None
            pointee = target.elem.zero() if current is None else current  # Go allocates first
            return self.store(value, target.elem, pointee, struct, path)
        if kind == "struct":
            if not isinstance(value, JSONObject):
                self.mismatch(go_type_name(value), target, struct, path)
                return current
            self.fill_struct(value, target, current, path)
            return current
        assert kind == "slice"
        assert target.elem is not None
        if not isinstance(value, list) or isinstance(value, JSONObject):
            self.mismatch(go_type_name(value), target, struct, path)
            return current
        slice_ = current if isinstance(current, _Slice) else _Slice()
        if not value:
            return _Slice()  # Go makes a new empty slice: the old backing array is gone
        backing = slice_.backing
        for index, item in enumerate(value):
            if index == len(backing):
                backing.append(target.elem.zero())
            backing[index] = self.store(item, target.elem, backing[index], struct, path)
        slice_.length = len(value)
        return slice_

    def fill_struct(
        self, pairs: JSONObject, target: GoType, values: dict[str, Any], path: str
    ) -> None:
        prefix = f"{path}." if path else ""
        by_key, by_fold = target.by_key, target.by_fold
        for key, value in pairs:
            field = by_key.get(key) or by_fold.get(fold_key(key) or "")
            if field is None:
                continue  # an unknown key is ignored
            name, attribute, go_type = field
            kind = go_type.kind
            if (kind == "string" and value.__class__ is str) or (
                kind == "int" and value.__class__ is int and go_type.low <= value <= go_type.high
            ):
                values[attribute] = value  # the common cases, inline
            else:
                values[attribute] = self.store(
                    value, go_type, values[attribute], target.struct_name, prefix + name
                )
