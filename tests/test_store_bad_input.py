"""Bad input never crashes the store: clear one-line StoreErrors, the rest stays browsable.

design §5: corrupt lines, bad metadata, missing files, non-UTF-8, huge lines and hostile
ids get a clear message, and never stop the rest of the store from being listed and read.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from zero_tui.store import Event, SessionStore, StoreError, gojson
from zero_tui.store.resumable import filter_resumable, resolve_resume_target
from zero_tui.store.store import go_quote, valid_session_id

UPDATED = "2026-07-04T10:00:00Z"


def metadata_text(sid: str, extra: str = "") -> str:
    return (
        "{\n"
        f'  "sessionId": "{sid}",\n{extra}'
        f'  "createdAt": "{UPDATED}",\n'
        f'  "updatedAt": "{UPDATED}",\n'
        '  "eventCount": 1\n'
        "}\n"
    )


def answer_line(sid: str, sequence: int = 1, content: str = "answer") -> bytes:
    payload = ('{"content":"' + content + '","role":"assistant"}').encode()
    return Event(f"{sid}:{sequence}", sid, sequence, "message", UPDATED, payload).to_json_line()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    path = tmp_path / "sessions"
    path.mkdir()
    return path


@pytest.fixture
def store(root: Path) -> SessionStore:
    store = SessionStore(root)
    store.create("healthy", title="Healthy")
    store.append_events("healthy", [("message", {"role": "assistant", "content": "fine"})])
    return store


def assert_rest_of_store_works(store: SessionStore) -> None:
    assert "healthy" in [meta.session_id for meta in store.list()]
    assert [e.sequence for e in store.read_events("healthy")] == [1]
    assert "healthy" in [m.session_id for m in filter_resumable(store, "").sessions]


def one_line(error: BaseException) -> str:
    message = str(error)
    assert message
    assert "\n" not in message
    assert "Traceback" not in message
    return message


# --- metadata -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"{",
        b'{"sessionId": "bad",',
        b"[1, 2]",
        b'"a string"',
        b'{"sessionId": "bad"} trailing',
        b"\xff\xfe{}",
        b"NaN",
        b"[" * 100_000 + b"]" * 100_000,
    ],
    ids=["empty", "brace", "cut", "array", "string", "trailing", "bom-ish", "nan", "deep"],
)
def test_corrupt_metadata(store: SessionStore, root: Path, content: bytes) -> None:
    (root / "bad").mkdir()
    (root / "bad" / "metadata.json").write_bytes(content)
    (root / "bad" / "events.jsonl").write_bytes(answer_line("bad"))
    with pytest.raises(StoreError) as caught:
        store.get("bad")
    assert one_line(caught.value).startswith("invalid zero session metadata bad: ")
    assert "bad" not in [meta.session_id for meta in store.list()]
    assert_rest_of_store_works(store)
    meta, message = resolve_resume_target(store, "bad", "")
    assert meta is None
    assert message is not None
    assert message.startswith("invalid zero session metadata bad: ")


@pytest.mark.parametrize(
    "extra",
    [
        '  "eventCount": "3",\n',
        '  "eventCount": 1.5,\n',
        '  "eventCount": true,\n',
        '  "eventCount": 99999999999999999999,\n',
        '  "depth": 1e2,\n',
        '  "title": 5,\n',
        '  "cwd": ["/x"],\n',
        '  "goal": "ship it",\n',
        '  "goal": {"objective": "x", "tokenBudget": "lots"},\n',
        '  "sessionKind": {},\n',
    ],
)
def test_wrong_typed_metadata_fields(store: SessionStore, root: Path, extra: str) -> None:
    (root / "typed").mkdir()
    text = metadata_text("typed", extra).replace('  "eventCount": 1\n', '  "lastEventType": "x"\n')
    if '"eventCount"' not in extra:
        text = text.replace('"lastEventType": "x"', '"eventCount": 1')
    (root / "typed" / "metadata.json").write_text(text, encoding="utf-8")
    with pytest.raises(StoreError, match="cannot unmarshal") as caught:
        store.get("typed")
    assert one_line(caught.value).startswith("invalid zero session metadata typed: ")
    assert_rest_of_store_works(store)


def test_null_and_unknown_metadata_fields_are_accepted(store: SessionStore, root: Path) -> None:
    (root / "lenient").mkdir()
    extra = '  "title": null,\n  "futureField": {"nested": [1, 2]},\n  "MODELID": "m",\n'
    (root / "lenient" / "metadata.json").write_text(metadata_text("lenient", extra))
    meta = store.get("lenient")
    assert meta is not None
    assert (meta.title, meta.model_id, meta.event_count) == ("", "m", 1)


def test_metadata_that_is_a_directory(store: SessionStore, root: Path) -> None:
    (root / "weird" / "metadata.json").mkdir(parents=True)
    with pytest.raises(StoreError, match="read zero session metadata weird"):
        store.get("weird")
    assert_rest_of_store_works(store)


def test_store_root_that_is_a_file(tmp_path: Path) -> None:
    path = tmp_path / "not-a-dir"
    path.write_bytes(b"x")
    with pytest.raises(StoreError, match="read zero session root") as caught:
        SessionStore(path).list()
    one_line(caught.value)


# --- the log ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "detail"),
    [
        (b"not json", None),
        (b'{"type": 5}', "cannot unmarshal number"),
        (b'{"sequence": "2"}', "cannot unmarshal string"),
        (b'{"sequence": 99999999999999999999}', "cannot unmarshal number"),
        (b'{"payload": {"a": }}', None),
        (b"[1]", "cannot unmarshal array"),
        (b'{"id": "x"} {"id": "y"}', None),
        (b'{"id": "\xff\xfe\x00"}', None),
        (b"\x00\x01\x02", None),
    ],
)
def test_corrupt_line_names_file_and_line(
    store: SessionStore, line: bytes, detail: str | None
) -> None:
    store.create("c")
    store.events_path("c").write_bytes(
        answer_line("c") + b"\n" + line + b"\n" + answer_line("c", 2)
    )
    with pytest.raises(StoreError) as caught:
        store.read_events("c")
    message = one_line(caught.value)
    assert message.startswith("invalid json in zero session c events.jsonl at line 3: ")
    if detail is not None:
        assert detail in message
    assert_rest_of_store_works(store)


@pytest.mark.parametrize(
    ("line", "detail"),
    [
        # the field's Go type, and the number as written
        (
            b'{"type":5}',
            "cannot unmarshal number into Go struct field Event.type of type sessions.EventType",
        ),
        (
            b'{"sequence":"x","type":5}',
            "cannot unmarshal string into Go struct field Event.sequence of type int",
        ),
        (
            b'{"sequence":1e2}',
            "cannot unmarshal number 1e2 into Go struct field Event.sequence of type int",
        ),
        # Go checks the whole line's syntax before it decodes a field
        (b'{"type":5,"id":}', "Expecting value (column 16)"),
    ],
)
def test_a_bad_line_is_reported_as_zero_reports_it(
    store: SessionStore, line: bytes, detail: str
) -> None:
    store.create("c")
    store.events_path("c").write_bytes(line + b"\n" + answer_line("c", 2))
    with pytest.raises(StoreError) as caught:
        store.read_events("c")
    assert str(caught.value) == f"invalid json in zero session c events.jsonl at line 1: {detail}"


def test_a_later_null_leaves_an_event_field_as_it_was(store: SessionStore) -> None:
    store.create("c")
    store.events_path("c").write_bytes(
        b'{"id":"c:1","type":"message","type":null,"sequence":1,"sequence":null}\n'
    )
    (event,) = store.read_events("c")
    assert (event.id, event.type, event.sequence) == ("c:1", "message", 1)


def test_log_that_is_a_directory(store: SessionStore) -> None:
    store.create("d")
    store.append_events("d", [("message", {"role": "user", "content": "q"})])
    store.events_path("d").unlink()
    store.events_path("d").mkdir()
    with pytest.raises(StoreError, match="read zero session events") as caught:
        store.read_events("d")
    one_line(caught.value)
    assert "d" in [m.session_id for m in filter_resumable(store, "").sessions]  # fail open


def test_deeply_nested_payload_is_an_error_not_a_crash(store: SessionStore) -> None:
    store.create("deep")
    nested = b"[" * 100_000 + b"]" * 100_000
    line = Event("deep:1", "deep", 1, "message", UPDATED, nested).to_json_line()
    store.events_path("deep").write_bytes(line)
    with pytest.raises(StoreError, match="at line 1"):
        store.read_events("deep")
    with pytest.raises(StoreError, match="invalid raw JSON payload"):
        store.append_events("deep", [("message", nested)])


def test_payload_nested_within_what_zero_tui_reads_reads(store: SessionStore) -> None:
    store.create("deep")
    nested = b"[" * 400 + b"]" * 400
    line = Event("deep:1", "deep", 1, "message", UPDATED, nested).to_json_line()
    store.events_path("deep").write_bytes(line)
    assert [e.payload_raw for e in store.read_events("deep")] == [nested]


def test_payload_nested_deeper_than_zero_tui_reads_is_one_line_error(store: SessionStore) -> None:
    # Go reads it (10,000 levels); zero-tui reads 500: the session is unreadable
    store.create("deep")
    nested = b"[" * 9_000 + b"]" * 9_000
    line = Event("deep:1", "deep", 1, "message", UPDATED, nested).to_json_line()
    store.events_path("deep").write_bytes(line)
    with pytest.raises(StoreError, match=f"at line 1: {gojson.TOO_DEEP}$"):
        store.read_events("deep")


# --- non-UTF-8 ----------------------------------------------------------------------------------


def test_non_utf8_title_reads_as_replacement_characters(store: SessionStore, root: Path) -> None:
    (root / "latin").mkdir()
    data = metadata_text("latin", '  "title": "caf\\u00e9 TITLE",\n').encode()
    data = data.replace(b"TITLE", b"\xe9t\xc3\xa9 \xff\xfe")
    (root / "latin" / "metadata.json").write_bytes(data)
    (root / "latin" / "events.jsonl").write_bytes(answer_line("latin"))
    meta = store.get("latin")
    assert meta is not None
    assert meta.title == "café \ufffdt\u00e9 \ufffd\ufffd"
    assert "latin" in [m.session_id for m in filter_resumable(store, "").sessions]
    renamed = store.update_title("latin", meta.title + "!")
    written = store.metadata_path("latin").read_bytes()
    written.decode("utf-8")  # now valid UTF-8
    assert store.get("latin") == renamed
    assert_rest_of_store_works(store)


def test_invalid_utf8_in_a_created_title_is_escaped(store: SessionStore) -> None:
    title = "bad " + b"\xff".decode("utf-8", "surrogateescape") + " byte"
    store.create("esc", title=title)
    assert b'"title": "bad \\ufffd byte"' in store.metadata_path("esc").read_bytes()
    meta = store.get("esc")
    assert meta is not None
    assert meta.title == "bad \ufffd byte"


def test_non_utf8_payload_and_header_bytes(store: SessionStore) -> None:
    store.create("bytes")
    store.append_events("bytes", [("message", {"content": "replaced below"})])
    line = (
        b'{"id":"bytes:1","sessionId":"bytes","sequence":1,"type":"message",'
        b'"createdAt":"2026\xff","payload":{"content":"caf\xe9 \xf0\x9f","role":"assistant"}}\n'
    )
    store.events_path("bytes").write_bytes(line)
    [event] = store.read_events("bytes")
    assert event.created_at == "2026\ufffd"
    assert event.payload == {"content": "caf\ufffd \ufffd\ufffd", "role": "assistant"}
    assert event.payload_raw is not None
    assert b"caf\xe9 \xf0\x9f" in event.payload_raw  # the source bytes are kept
    assert event.to_json_line().endswith(
        b'"payload":{"content":"caf\xe9 \xf0\x9f","role":"assistant"}}\n'
    )
    assert b'"createdAt":"2026\xef\xbf\xbd"' in event.to_json_line()  # as Go: U+FFFD
    listed = {m.session_id for m in filter_resumable(store, "").sessions}
    assert listed == {"bytes", "healthy"}
    [added] = store.append_events("bytes", [("message", {"content": "next"})])
    assert added.sequence == 2


# --- session directories and ids ----------------------------------------------------------------


def test_symlinked_session_directory_is_not_listed(
    store: SessionStore, root: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere" / "linked"
    elsewhere.mkdir(parents=True)
    (elsewhere / "metadata.json").write_text(metadata_text("linked"))
    (elsewhere / "events.jsonl").write_bytes(answer_line("linked"))
    (root / "linked").symlink_to(elsewhere, target_is_directory=True)
    assert [meta.session_id for meta in store.list()] == ["healthy"]
    assert [m.session_id for m in filter_resumable(store, "").sessions] == ["healthy"]


def test_stray_entries_are_ignored(store: SessionStore, root: Path) -> None:
    (root / "file.txt").write_bytes(b"x")
    (root / "no-metadata").mkdir()
    (root / "dotted.name").mkdir()
    (root / "dotted.name" / "metadata.json").write_text(metadata_text("dotted.name"))
    (root / "healthy" / "metadata.json.tmp-1").write_bytes(b"{")
    assert [meta.session_id for meta in store.list()] == ["healthy"]


HOSTILE_IDS = [
    "..",
    "../escape",
    "a/b",
    "/abs",
    "a b",
    "x" * 129,
    "",
    "   ",
    "-leading-dash",
    "_leading_underscore",
    "tab\tinside",
    "nul\x00byte",
    "caf\u00e9",
    "dot.ted",
    "a:b",
]


@pytest.mark.parametrize("sid", HOSTILE_IDS)
def test_hostile_ids_are_rejected_everywhere(store: SessionStore, root: Path, sid: str) -> None:
    assert not valid_session_id(sid)
    expected = f"invalid zero session id {go_quote(sid)}"
    operations: list[Callable[[], object]] = [
        lambda: store.get(sid),
        lambda: store.read_events(sid),
        lambda: store.read_rehydrated_events(sid),
        lambda: store.append_events(sid, [("message", {"content": "x"})]),
        lambda: store.update_title(sid, "t"),
        lambda: store.update_model(sid, "m"),
        lambda: store.last_complete_sequence(sid),
    ]
    for operation in operations:
        with pytest.raises(StoreError) as caught:
            operation()
        assert one_line(caught.value) == expected
    if sid.strip():
        with pytest.raises(StoreError, match=re.escape(expected)):
            store.create(sid)
    entries = sorted(path.name for path in root.parent.rglob("*"))
    assert "escape" not in entries
    assert_rest_of_store_works(store)


def test_next_sequence_validates_the_id_first(store: SessionStore) -> None:
    with pytest.raises(StoreError, match=re.escape('invalid zero session id "../escape"')):
        store.next_sequence("../escape")


def test_longest_valid_id(store: SessionStore) -> None:
    sid = "a" + "-_9Z" * 31 + "xyz"
    assert len(sid) == 128
    store.create(sid)
    assert store.append_events(sid, [("message", {"content": "x"})])[0].id == f"{sid}:1"


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("a:b", '"a:b"'),
        ('q"b\\', '"q\\"b\\\\"'),
        ("tab\tnl\n", '"tab\\tnl\\n"'),
        ("nul\x00bel\x07", '"nul\\x00bel\\a"'),
        ("caf\u00e9 完", '"caf\u00e9 完"'),
        ("zw\u200bsp", '"zw\\u200bsp"'),
        ("bad" + b"\xff".decode("utf-8", "surrogateescape"), '"bad\\xff"'),
        ("\x7f", '"\\x7f"'),
    ],
)
def test_go_quote_matches_go_percent_q(text: str, quoted: str) -> None:
    assert go_quote(text) == quoted


def test_metadata_naming_an_invalid_id_fails_open(store: SessionStore, root: Path) -> None:
    (root / "dir1").mkdir()
    text = metadata_text("../outside")
    (root / "dir1" / "metadata.json").write_text(text)
    (root / "dir1" / "events.jsonl").write_bytes(answer_line("dir1"))
    assert "../outside" in [meta.session_id for meta in store.list()]  # Go lists it so
    listed = [m.session_id for m in filter_resumable(store, "").sessions]
    assert "../outside" in listed


def test_metadata_naming_another_valid_id_is_listed_under_that_id(
    store: SessionStore, root: Path
) -> None:
    (root / "dir-name-a").mkdir()
    (root / "dir-name-a" / "metadata.json").write_text(metadata_text("meta-name-b"))
    assert "meta-name-b" in [meta.session_id for meta in store.list()]


# --- append input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "payload",
    [object(), {"a": object()}, float("nan"), {"x": float("inf")}, b"\xff", b"{'single': 1}"],
    ids=["object", "nested-object", "nan", "inf", "bad-bytes", "python-repr"],
)
def test_unencodable_payload_is_a_store_error(store: SessionStore, payload: object) -> None:
    before = store.events_path("healthy").read_bytes()
    with pytest.raises(StoreError) as caught:
        store.append_events("healthy", [("message", payload)])
    one_line(caught.value)
    assert store.events_path("healthy").read_bytes() == before


def test_non_string_key_payload_is_a_store_error(store: SessionStore) -> None:
    with pytest.raises(StoreError):
        store.append_events("healthy", [("message", {1: "one"})])


# --- size -----------------------------------------------------------------------------------------


def test_ten_megabyte_line(store: SessionStore) -> None:
    store.create("huge")
    content = "y" * (10 * 1024 * 1024)
    store.append_events("huge", [("message", {"role": "assistant", "content": content})])
    [event] = store.read_events("huge")
    assert event.payload["content"] == content
    assert store.last_complete_sequence("huge") == 1
    assert store.next_sequence("huge") == 2
    assert "huge" in [m.session_id for m in filter_resumable(store, "").sessions]
    [added] = store.append_events("huge", [("message", {"content": "small"})])
    assert added.sequence == 2
    assert [e.sequence for e in store.read_events("huge")] == [1, 2]


# --- JSON \u escapes of lone surrogates (valid JSON; Go decodes them to U+FFFD) ---------------


def line_with(
    sid: str, header_type: bytes, payload: bytes = b'{"role":"assistant","content":"hi"}'
) -> bytes:
    return (
        b'{"id":"' + sid.encode() + b':1","sessionId":"' + sid.encode() + b'","sequence":1,'
        b'"type":"' + header_type + b'","createdAt":"' + UPDATED.encode() + b'",'
        b'"payload":' + payload + b"}\n"
    )


def test_lone_surrogate_escape_in_a_header_reads(store: SessionStore) -> None:
    store.create("sur")
    store.events_path("sur").write_bytes(line_with("sur", b"message\\ud83d"))
    [event] = store.read_events("sur")
    assert event.type == "message\ufffd"


def test_lone_surrogate_escape_does_not_break_the_list(store: SessionStore) -> None:
    store.create("sur")
    store.append_events("sur", [("message", {"role": "assistant", "content": "x"})])
    store.events_path("sur").write_bytes(line_with("sur", b"message\\ud83d"))
    listed = {m.session_id for m in filter_resumable(store, "").sessions}
    assert "healthy" in listed


def test_append_after_a_lone_surrogate_escape(store: SessionStore) -> None:
    store.create("sur")
    store.events_path("sur").write_bytes(line_with("sur", b"message\\ud83d"))
    assert store.last_complete_sequence("sur") == 1
    [event] = store.append_events("sur", [("message", {"content": "next"})])
    assert event.sequence == 2


def test_lone_surrogate_escape_in_a_payload_is_a_replacement_character(
    store: SessionStore,
) -> None:
    store.create("sur")
    payload = b'{"role":"assistant","content":"hi \\ud83d \\ud83d\\u0041 \\udc80"}'
    store.events_path("sur").write_bytes(line_with("sur", b"message", payload))
    [event] = store.read_events("sur")
    assert event.payload["content"] == "hi \ufffd \ufffdA \ufffd"


def test_lone_surrogate_escape_in_a_title(store: SessionStore, root: Path) -> None:
    (root / "sur").mkdir()
    (root / "sur" / "metadata.json").write_text(metadata_text("sur", '  "title": "a\\udc80b",\n'))
    meta = store.get("sur")
    assert meta is not None
    assert meta.title == "a\ufffdb"
