"""Go's encoding/json v1 and Go string helpers, edge by edge (store-format §12, tui §9)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zero_tui.store.gojson import (
    GO_INT,
    GO_STRING,
    GO_UINT32,
    GoJSONError,
    GoType,
    RawJSON,
    as_go_int,
    compact_raw,
    encode_string,
    fold_key,
    go_sprint,
    loads,
    loads_pairs,
    marshal,
    unmarshal,
    unmarshal_with_error,
)
from zero_tui.store.gotext import (
    atoi,
    clean_path,
    decode_utf8,
    format_go_float,
    trim_space,
    trim_space_bytes,
    truncate_utf8,
)
from zero_tui.store.models import Goal, Metadata


def invalid(data: bytes) -> str:
    """A Python str holding bytes that are not UTF-8, as surrogateescape carries them."""
    return data.decode("utf-8", "surrogateescape")


# --- §12.1 strings ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "encoded"),
    [
        ('"', '"\\""'),
        ("\\", '"\\\\"'),
        ("\n\r\t", '"\\n\\r\\t"'),
        ("\b\f", '"\\b\\f"'),
        ("\x00\x01\x1b\x1f", '"\\u0000\\u0001\\u001b\\u001f"'),
        ("\x0b", '"\\u000b"'),
        ("<a>&", '"\\u003ca\\u003e\\u0026"'),
        ("\u2028\u2029", '"\\u2028\\u2029"'),
        ("/", '"/"'),
        ("\x7f", '"\x7f"'),
        ("\ufeff", '"\ufeff"'),
        ("\x85\xa0", '"\x85\xa0"'),
        ("🎉 完了 é", '"🎉 完了 é"'),
        ("", '""'),
    ],
)
def test_string_escape_table(text: str, encoded: str) -> None:
    assert encode_string(text) == encoded
    assert marshal(text) == encoded.encode("utf-8")


def test_invalid_utf8_becomes_one_replacement_escape_per_byte() -> None:
    assert encode_string("a" + invalid(b"\xff") + "b") == '"a\\ufffdb"'
    # a truncated 3-byte sequence is two bad bytes: two escapes
    assert encode_string(invalid(b"\xe2\x82")) == '"\\ufffd\\ufffd"'
    # a real U+FFFD is valid UTF-8 and stays raw
    assert encode_string("\ufffd") == '"\ufffd"'


def test_lone_surrogate_is_replaced() -> None:
    assert encode_string("\ud800") == '"\\ufffd"'


# --- §12.3 numbers -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (1e-7, "1e-7"),
        (1.5e300, "1.5e+300"),
        (-1.5e-300, "-1.5e-300"),
        (-0.0, "-0"),
        (0.0, "0"),
        (0.000001, "0.000001"),
        (0.0000012, "0.0000012"),
        (2.0, "2"),
        (0.1, "0.1"),
        (-3.25, "-3.25"),
        (123456789.125, "123456789.125"),
        (5e-324, "5e-324"),
    ],
)
def test_float_spelling(value: float, text: str) -> None:
    assert format_go_float(value) == text
    assert marshal(value) == text.encode()


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_floats_cannot_be_encoded(value: float) -> None:
    with pytest.raises(ValueError, match="unsupported value"):
        marshal(value)


def test_scalars_and_containers() -> None:
    assert marshal(None) == b"null"
    assert marshal(True) == b"true"
    assert marshal(False) == b"false"
    assert marshal(-12) == b"-12"
    assert marshal(2**70) == str(2**70).encode()
    assert marshal([1, "a", None, [], {}]) == b'[1,"a",null,[],{}]'
    assert marshal((1, 2)) == b"[1,2]"
    assert marshal({"b": [{"d": 1, "c": 2}], "a": {}}) == b'{"a":{},"b":[{"c":2,"d":1}]}'


def test_unsupported_values_raise_type_error() -> None:
    with pytest.raises(TypeError):
        marshal(b"bytes")
    with pytest.raises(TypeError):
        marshal({"a": object()})


def test_non_string_map_key_raises_type_error() -> None:
    with pytest.raises(TypeError, match="unsupported map key type"):
        marshal({1: "x"})


# --- §12.2 map key order --------------------------------------------------------------------


def test_map_keys_sorted_by_utf8_bytes_before_escaping() -> None:
    payload = {"zeta": 1, "Zeta": 2, "_x": 3, "é": 4, "<tag>": 5, "a&b": 6, "10": 7, "9": 8, "": 9}
    assert (
        marshal(payload)
        == (
            '{"":9,"10":7,"9":8,"\\u003ctag\\u003e":5,"Zeta":2,"_x":3,"a\\u0026b":6,"zeta":1,"é":4}'
        ).encode()
    )


def test_invalid_byte_key_sorts_by_its_raw_byte() -> None:
    # By code point the surrogate U+DCFF would sort before U+E000; by UTF-8 bytes the raw
    # 0xFF sorts after EE 80 80, as in Go.
    bad = invalid(b"\xff")
    encoded = marshal({"\ue000": 1, bad: 2, "z": 3})
    assert encoded == '{"z":3,"\ue000":1,"\\ufffd":2}'.encode()


def test_astral_keys_sort_after_bmp_keys() -> None:
    assert marshal({"😀": 1, "\uffff": 2, "~": 3}) == '{"~":3,"\uffff":2,"😀":1}'.encode()


# --- raw JSON (json.RawMessage) -------------------------------------------------------------


def test_compact_raw_keeps_order_escapes_and_number_spellings() -> None:
    raw = (
        b'{ "z" : 1.50,\n\t"a" : [ 1e3 , -0 , 1E+2, 0.0 ],\r\n'
        b'  "s" : "caf\\u00e9 \\/ \\" x  y" , "n" : null }'
    )
    assert compact_raw(raw) == (
        b'{"z":1.50,"a":[1e3,-0,1E+2,0.0],"s":"caf\\u00e9 \\/ \\" x  y","n":null}'
    )


def test_compact_raw_escapes_html_and_line_separators_inside_strings() -> None:
    raw = '{"t" : "<b>a & b</b> \u2028\u2029"}'.encode()
    assert compact_raw(raw) == b'{"t":"\\u003cb\\u003ea \\u0026 b\\u003c/b\\u003e \\u2028\\u2029"}'


def test_compact_raw_keeps_whitespace_inside_strings_with_escaped_backslashes() -> None:
    raw = b'[ "a\\\\" , "  b  " ,"\\\\\\" c " ]'
    assert compact_raw(raw) == b'["a\\\\","  b  ","\\\\\\" c "]'


def test_raw_json_inside_a_marshalled_value_is_compacted() -> None:
    assert marshal({"p": RawJSON(b' { "b" : 1 , "a" : "<" } ')}) == b'{"p":{"b":1,"a":"\\u003c"}}'


# --- decoding helpers -----------------------------------------------------------------------


def test_decode_utf8_replaces_each_bad_byte() -> None:
    assert decode_utf8(b"a\xe2\x82b") == "a\ufffd\ufffdb"
    assert decode_utf8(b"\xff\xfe") == "\ufffd\ufffd"
    assert decode_utf8("é".encode()) == "é"


def test_surrogate_pair_escapes_decode_to_one_character() -> None:
    assert loads('"\\ud83d\\ude00"') == "\U0001f600"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('"\\ud83d"', "\ufffd"),
        ('"\\ude00\\ud83d"', "\ufffd\ufffd"),
        ('"\\ud83d\\u0041"', "\ufffdA"),
        ('"\\udc80"', "\ufffd"),
    ],
)
def test_lone_surrogate_escapes_decode_to_replacement(text: str, value: str) -> None:
    assert loads(text) == value


def test_lone_surrogate_map_key_is_escaped() -> None:
    assert marshal({"\ud800": 1}) == b'{"\\ufffd":1}'


@pytest.mark.parametrize("text", ["NaN", "Infinity", "-Infinity", "[1, NaN]"])
def test_loads_rejects_non_json_constants(text: str) -> None:
    with pytest.raises(GoJSONError):
        loads(text)


def test_fold_key_matches_go_special_folds() -> None:
    assert fold_key("EventCount") == "eventcount"
    assert fold_key("\u017fessionId") == "sessionid"  # long s folds to s
    assert fold_key("\u212aey") == "key"  # Kelvin sign folds to k
    assert fold_key("é") is None


def test_go_int_fields() -> None:
    assert as_go_int(3, "X.n", 0) == 3
    assert as_go_int(None, "X.n", 7) == 7
    for bad in (1.5, True, "3", 2**63, -(2**63) - 1):
        with pytest.raises(GoJSONError, match=r"X\.n"):
            as_go_int(bad, "X.n", 0)


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (b'{"title": 3}', "number into Go struct field Metadata.title of type string"),
        (b'{"depth": 1.5}', "number 1.5 into Go struct field Metadata.depth of type int"),
        (b'{"depth": true}', "bool into Go struct field Metadata.depth of type int"),
        (
            b'{"depth": 99999999999999999999}',
            "number 99999999999999999999 into Go struct field Metadata.depth of type int",
        ),
        (b'{"goal": 5}', "number into Go struct field Metadata.goal of type sessions.Goal"),
    ],
)
def test_a_wrong_field_type_is_reported_as_go_does(document: bytes, message: str) -> None:
    with pytest.raises(GoJSONError) as caught:
        Metadata.from_json(document)
    assert str(caught.value) == f"cannot unmarshal {message}"


def test_metadata_keys_fold_and_the_last_duplicate_wins() -> None:
    meta = Metadata.from_json(b'{"SESSIONID":"a","eventcount":3,"eventCount":4,"unknown":[1]}')
    assert (meta.session_id, meta.event_count) == ("a", 4)
    meta = Metadata.from_json(b'{"eventCount":4,"EVENTCOUNT":5}')
    assert meta.event_count == 5


# --- metadata read exactly as Zero's json.Unmarshal reads it (issue 18) ---------------------
#
# Every row's expectation is what Zero 0.8.0's own Get returned for the same bytes
# (checked by hand with its store code); the errors lose only Go's "json: " prefix.

GO_READS_METADATA = [
    # a later null leaves a string or an int as it was: the title and the count survive
    (
        b'{"sessionId":"s","title":"My important title","title":null}',
        {"title": "My important title"},
    ),
    (b'{"sessionId":"s","eventCount":3,"eventCount":null}', {"event_count": 3}),
    (b'{"depth":2,"DEPTH":null,"cwd":"/w","Cwd":null}', {"depth": 2, "cwd": "/w"}),
    # the last non-null occurrence wins, whatever its case
    (b'{"Title":"a","title":null,"TITLE":"b"}', {"title": "b"}),
    (b'{"title":"a","title":"b"}', {"title": "b"}),
    # a repeated goal fills in the same struct; a null goal clears it
    (
        b'{"goal":{"objective":"a","status":"paused"},"goal":{"objective":"b"}}',
        {"goal": Goal(objective="b", status="paused")},
    ),
    (b'{"goal":{"objective":"a"},"goal":null}', {"goal": None}),
    (b'{"goal":{"objective":"a"},"goal":{"objective":null}}', {"goal": Goal(objective="a")}),
    (b'{"goal":{}}', {"goal": Goal()}),
    (b'{"depth":-0}', {"depth": 0}),
    (b"null", {}),
    # a wrong type is an error even when a later duplicate would fit, and the first wins
    (
        b'{"title":5,"title":"x"}',
        "number into Go struct field Metadata.title of type string",
    ),
    (
        b'{"title":"x","title":5}',
        "number into Go struct field Metadata.title of type string",
    ),
    (
        b'{"title":5,"depth":"x"}',
        "number into Go struct field Metadata.title of type string",
    ),
    (
        b'{"eventCount":"3","eventCount":3}',
        "string into Go struct field Metadata.eventCount of type int",
    ),
    # Go's names: the named string types, the nested path, the number as written
    (
        b'{"sessionKind":5}',
        "number into Go struct field Metadata.sessionKind of type sessions.SessionKind",
    ),
    (
        b'{"lastEventType":true}',
        "bool into Go struct field Metadata.lastEventType of type sessions.EventType",
    ),
    (
        b'{"goal":{"status":5}}',
        "number into Go struct field Goal.goal.status of type sessions.GoalStatus",
    ),
    (
        b'{"goal":{"objective":[1]},"title":{}}',
        "array into Go struct field Goal.goal.objective of type string",
    ),
    (
        b'{"goal":{"tokenBudget":"5"}}',
        "string into Go struct field Goal.goal.tokenBudget of type int",
    ),
    (b'{"depth":1e2}', "number 1e2 into Go struct field Metadata.depth of type int"),
    (b'{"depth":1.0}', "number 1.0 into Go struct field Metadata.depth of type int"),
    (b'{"eventCount":1e400}', "number 1e400 into Go struct field Metadata.eventCount of type int"),
    (b'{"goal":"x"}', "string into Go struct field Metadata.goal of type sessions.Goal"),
    (b'{"goal":[]}', "array into Go struct field Metadata.goal of type sessions.Goal"),
    (b"[]", "array into Go value of type sessions.Metadata"),
    (b'"x"', "string into Go value of type sessions.Metadata"),
]


@pytest.mark.parametrize(("document", "expected"), GO_READS_METADATA)
def test_metadata_is_read_as_zero_reads_it(
    document: bytes, expected: dict[str, object] | str
) -> None:
    if isinstance(expected, str):
        with pytest.raises(GoJSONError) as caught:
            Metadata.from_json(document)
        assert str(caught.value) == f"cannot unmarshal {expected}"
    else:
        meta = Metadata.from_json(document)
        assert {name: getattr(meta, name) for name in expected} == expected


# The flat fields of the property below: JSON name -> (Python name, Go type in errors)
_FLAT_FIELDS = {
    "title": ("title", "string"),
    "cwd": ("cwd", "string"),
    "sessionKind": ("session_kind", "sessions.SessionKind"),
    "depth": ("depth", "int"),
    "eventCount": ("event_count", "int"),
}
_KEYS = [*_FLAT_FIELDS, "TITLE", "EventCount", "sessionkind", "unknown"]
_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.text(max_size=4),
    st.integers(min_value=-(2**64), max_value=2**64),
    st.sampled_from([b"1.5", b"1e2", b"-0.0", b"[]", b"{}", b'[""]', b'{"a":null}']).map(RawJSON),
)


JSONValue = None | bool | int | str | RawJSON


def _go_unmarshal_flat(pairs: list[tuple[str, JSONValue]]) -> dict[str, object] | str:
    """Go's rules for these fields, said plainly: each occurrence in turn; null changes
    nothing; a value of the wrong type is an error, the first one is reported."""
    values: dict[str, object] = {attribute: "" for attribute, _ in _FLAT_FIELDS.values()}
    values.update(depth=0, event_count=0)
    error: str | None = None
    for key, value in pairs:
        name = next((n for n in _FLAT_FIELDS if n.lower() == key.lower()), None)
        if name is None or value is None:
            continue
        attribute, go_type = _FLAT_FIELDS[name]
        wanted = int if go_type == "int" else str
        if isinstance(value, RawJSON):
            text = bytes(value).decode()
            shown = {"[": "array", "{": "object"}.get(text[0], f"number {text}")
        elif isinstance(value, bool):
            shown = "bool"
        elif isinstance(value, str):
            shown = "" if wanted is str else "string"
        else:
            in_range = -(2**63) <= value < 2**63
            shown = "" if wanted is int and in_range else f"number {value}"
        if wanted is str and shown.startswith("number"):
            shown = "number"  # Go names the literal only when it is refused by an int
        if not shown:
            values[attribute] = value
        elif error is None:
            error = (
                f"cannot unmarshal {shown} into Go struct field Metadata.{name} of type {go_type}"
            )
    return error if error is not None else values


@given(st.lists(st.tuples(st.sampled_from(_KEYS), _VALUES), max_size=8))
def test_generated_metadata_is_read_by_go_rules(pairs: list[tuple[str, JSONValue]]) -> None:
    document = b"{" + b",".join(marshal(key) + b":" + marshal(value) for key, value in pairs) + b"}"
    expected = _go_unmarshal_flat(pairs)
    if isinstance(expected, str):
        with pytest.raises(GoJSONError) as caught:
            Metadata.from_json(document)
        assert str(caught.value) == expected
    else:
        meta = Metadata.from_json(document)
        assert {name: getattr(meta, name) for name in expected} == expected


# --- Unmarshal returns what it filled and its first error -----------------------------------

_ITEM = GoType(
    "struct", "pkg.Item", fields=(("name", "name", GO_STRING), ("mode", "mode", GO_UINT32))
)
_ITEMS = GoType(
    "struct",
    "pkg.Items",
    fields=(
        ("count", "count", GO_INT),
        ("items", "items", GoType("slice", "[]pkg.Item", elem=_ITEM)),
    ),
)


def test_unmarshal_with_error_returns_the_value_as_far_as_go_filled_it() -> None:
    document = loads_pairs(b'{"count":"2","items":[{"name":"a","mode":-1},{"name":"b"}],"count":3}')
    value, error = unmarshal_with_error(document, _ITEMS)
    assert value == {
        "count": 3,
        "items": [{"name": "a", "mode": 0}, {"name": "b", "mode": 0}],
    }
    assert str(error) == "cannot unmarshal string into Go struct field Items.count of type int"
    with pytest.raises(GoJSONError, match=r"Items\.count of type int"):
        unmarshal(document, _ITEMS)
    assert unmarshal_with_error(loads_pairs(b'{"count":1}'), _ITEMS) == (
        {"count": 1, "items": None},
        None,
    )


@pytest.mark.parametrize(
    ("mode", "shown"),
    [(b"-1", "-1"), (b"4294967296", "4294967296"), (b"1e2", "1e2"), (b"2.0", "2.0")],
)
def test_an_unsigned_field_takes_only_whole_numbers_in_its_range(mode: bytes, shown: str) -> None:
    value, error = unmarshal_with_error(loads_pairs(b'{"mode":' + mode + b"}"), _ITEM)
    assert value == {"name": "", "mode": 0}
    assert (
        str(error)
        == f"cannot unmarshal number {shown} into Go struct field Item.mode of type uint32"
    )
    assert unmarshal(loads_pairs(b'{"mode":4294967295}'), _ITEM)["mode"] == 2**32 - 1


# --- go_sprint (fmt.Sprint of decoded JSON values) ------------------------------------------


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (3, "3"),
        (3.0, "3"),
        (1.5, "1.5"),
        (True, "true"),
        (False, "false"),
        (1000000, "1e+06"),
        (999999, "999999"),
        (123456.5, "123456.5"),
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (-2.5e-7, "-2.5e-07"),
        (1e21, "1e+21"),
        (None, ""),
        ("text", "text"),
        ({"b": 1, "a": "<"}, '{"a":"\\u003c","b":1}'),
        ([1, "x", None], '[1,"x",null]'),
    ],
)
def test_go_sprint(value: object, text: str) -> None:
    assert go_sprint(value) == text


# --- TrimSpace --------------------------------------------------------------------------------


def test_trim_space_differs_from_str_strip() -> None:
    assert trim_space("\x1c abc \x1f") == "\x1c abc \x1f"
    assert "\x1c abc \x1f".strip() == "abc"  # Python's view, for contrast
    assert trim_space("\u00a0 abc \u00a0") == "abc"
    assert trim_space("\u3000\u2028\x85abc\u205f\u202f\u1680\u2000\u200a") == "abc"
    assert trim_space("\u200babc\ufeff") == "\u200babc\ufeff"
    assert trim_space(" \t\n\v\f\r") == ""


def test_trim_space_bytes() -> None:
    assert trim_space_bytes(b"\xc2\xa0 abc \xe3\x80\x80") == b"abc"
    assert trim_space_bytes(b"\xe2\x80\xa8\xc2\x85x\r\n") == b"x"
    assert trim_space_bytes(b"\x1cabc\x1f") == b"\x1cabc\x1f"
    assert trim_space_bytes(b"\xe2\x80\x8babc") == b"\xe2\x80\x8babc"
    assert trim_space_bytes(b"   ") == b""


# --- filepath.Clean ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "cleaned"),
    [
        ("//home//u/", "/home/u"),
        ("//", "/"),
        ("/..", "/"),
        ("/../a", "/a"),
        ("/home/u/x/../proj", "/home/u/proj"),
        ("/home/u//proj/./", "/home/u/proj"),
        ("", "."),
        ("./", "."),
        ("a/..", "."),
        ("a/../../b", "../b"),
        ("../../x/./y/", "../../x/y"),
        ("repo", "repo"),
    ],
)
def test_clean_path_posix(path: str, cleaned: str) -> None:
    assert clean_path(path) == cleaned


def test_clean_path_windows() -> None:
    assert clean_path("C:/Proj/", windows=True) == "C:\\Proj"
    assert clean_path("c:\\proj\\.\\a\\..", windows=True) == "c:\\proj"
    assert clean_path("C:", windows=True) == "C:."


# --- strconv.Atoi -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("3", 3),
        ("+3", 3),
        ("-3", -3),
        ("007", 7),
        ("9223372036854775807", 2**63 - 1),
        ("-9223372036854775808", -(2**63)),
        ("9223372036854775808", None),
        ("3_0", None),
        (" 3", None),
        ("3 ", None),
        ("", None),
        ("+", None),
        ("several", None),
        ("3.0", None),
        ("\u0663", None),  # Arabic-Indic digit: Python int() accepts it, Go does not
    ],
)
def test_atoi(text: str, value: int | None) -> None:
    assert atoi(text) == value


# --- truncate_utf8 ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "limit", "result"),
    [
        ("abc", 3, "abc"),
        ("abc", 2, "ab"),
        ("aé", 3, "aé"),
        ("aé", 2, "a"),
        ("完了", 5, "完"),
        ("完了", 6, "完了"),
        ("🎉x", 3, ""),
        ("🎉x", 4, "🎉"),
        ("abc", 0, ""),
        ("", 0, ""),
    ],
)
def test_truncate_utf8_never_splits_a_code_point(text: str, limit: int, result: str) -> None:
    cut = truncate_utf8(text, limit)
    assert cut == result
    assert len(cut.encode()) <= limit
