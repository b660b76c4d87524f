"""Numbers and nesting exactly as Go's decoder takes them (issue 9, faults 1, 6 and 7).

Go keeps a payload as raw bytes, so any valid number literal (5,000 digits, `1e400`) is a
readable session; Python's json stops at 4,300 digits and turns `1e400` into `inf`. Go nests
10,000 levels deep; json's decoder recurses, so zero-tui reads 500 levels on every Python:
deeper is an unreadable session with a one-line reason, never a crash.
"""

from __future__ import annotations

import inspect
import json
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zero_tui.cli import main
from zero_tui.store import Event, SessionStore, StoreError, gojson
from zero_tui.transcript.export import export_session

UPDATED = "2026-07-04T10:00:00Z"
HUGE = "9" * 5000  # past Python's 4,300-digit int-conversion limit


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZERO_TUI_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    store = SessionStore(tmp_path / "sessions")
    store.create("healthy", title="Healthy")
    store.append_events("healthy", [("message", {"role": "assistant", "content": "fine"})])
    return store


def write_metadata(store: SessionStore, sid: str, extra: str) -> None:
    store.session_dir(sid).mkdir()
    store.metadata_path(sid).write_text(
        f'{{"sessionId": "{sid}", {extra} "createdAt": "{UPDATED}", "updatedAt": "{UPDATED}"}}'
    )
    store.events_path(sid).write_bytes(b"")


def write_log(store: SessionStore, sid: str, payload: bytes) -> None:
    write_metadata(store, sid, '"eventCount": 1,')
    line = Event(f"{sid}:1", sid, 1, "message", UPDATED, payload).to_json_line()
    store.events_path(sid).write_bytes(line)


# --- fault 1: more than 4,300 digits ------------------------------------------------------------


def test_a_huge_number_in_an_unknown_metadata_key_is_ignored_as_go_does(
    store: SessionStore,
) -> None:
    write_metadata(store, "big", f'"futureField": {HUGE},')
    meta = store.get("big")
    assert meta is not None
    assert meta.session_id == "big"
    assert {m.session_id for m in store.list()} == {"big", "healthy"}


def test_a_huge_number_in_a_metadata_int_field_is_a_store_error(store: SessionStore) -> None:
    write_metadata(store, "big", f'"eventCount": {HUGE},')
    with pytest.raises(StoreError, match=r"cannot unmarshal number 9+ into Go struct field"):
        store.get("big")
    assert [m.session_id for m in store.list()] == ["healthy"]


def test_sessions_survive_a_huge_number_in_metadata(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    write_metadata(store, "big", f'"eventCount": {HUGE},')
    assert main(["sessions", "--all", "--json", "--store", str(store.root)]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [item["sessionId"] for item in listed] == ["healthy"]


def test_a_huge_number_in_a_payload_reads_shows_and_exports(
    store: SessionStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    payload = f'{{"role":"assistant","content":"x","n":{HUGE}}}'.encode()
    write_log(store, "big", payload)
    assert [event.payload_raw for event in store.read_events("big")] == [payload]
    assert main(["show", "big", "--json", "--store", str(store.root)]) == 0
    out = capsys.readouterr().out
    assert HUGE in out
    shown = strict_json(out)
    assert isinstance(shown, list)
    assert shown[0]["payload"]["role"] == "assistant"  # still valid JSON
    assert main(["show", "big", "--store", str(store.root)]) == 0
    target = tmp_path / "out.json"
    export_session(store, "big", path=str(target), workspace=str(tmp_path), now=_now())
    assert HUGE in target.read_text()


def test_a_huge_sequence_is_a_line_error(store: SessionStore) -> None:
    write_metadata(store, "big", '"eventCount": 1,')
    line = f'{{"id":"big:1","sessionId":"big","sequence":{HUGE},"type":"message"}}\n'
    store.events_path("big").write_text(line)
    with pytest.raises(StoreError, match="at line 1: cannot unmarshal number"):
        store.read_events("big")


def test_append_takes_a_raw_huge_number_as_go_does(store: SessionStore) -> None:
    raw = f'{{"n": {HUGE}}}'.encode()
    (event,) = store.append_events("healthy", [("tool_result", raw)])
    assert event.payload_raw == f'{{"n":{HUGE}}}'.encode()
    assert store.read_events("healthy")[-1].payload_raw == event.payload_raw


def test_append_of_invalid_raw_bytes_is_a_store_error_never_a_value_error(
    store: SessionStore,
) -> None:
    for raw in (f"[{HUGE}.]".encode(), b"[1e]", b"[" * 20_000, b"\xff"):
        with pytest.raises(StoreError, match="invalid raw JSON payload"):
            store.append_events("healthy", [("tool_result", raw)])


# --- fault 7: 1e400 keeps its spelling ----------------------------------------------------------


def test_show_json_keeps_an_out_of_range_float_as_spelled(
    store: SessionStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    payload = b'{"role":"assistant","content":"x","big":1e400,"list":[-1E+999,{"f":2.5}]}'
    write_log(store, "inf", payload)
    assert main(["show", "inf", "--json", "--store", str(store.root)]) == 0
    out = capsys.readouterr().out
    assert "Infinity" not in out
    assert '"big": 1e400' in out
    assert "-1E+999" in out
    strict_json(out)
    target = tmp_path / "out.json"
    export_session(store, "inf", path=str(target), workspace=str(tmp_path), now=_now())
    text = target.read_text()
    assert "1e400" in text
    assert "Infinity" not in text
    strict_json(text)


def test_show_json_indents_as_json_dumps_does(store: SessionStore) -> None:
    from zero_tui.transcript.export import json_indented

    value = {"a": [1, {"b": None, "c": [], "d": {}}], "é": "x\u2028", "t": True, "f": 1.5}
    assert json_indented(value) == json.dumps(value, indent=2, ensure_ascii=False)
    assert json_indented(value, 2) == json.dumps(value, indent=2, ensure_ascii=False).replace(
        "\n", "\n    "
    )


# --- fault 6: nesting: Go reads 10,000 levels, zero-tui 500 --------------------------------------

DEEPER_THAN_READ = 9_999  # Go reads it; zero-tui reads 500 levels (gojson.READ_DEPTH)
SHALLOW_ENOUGH = 400


def nested(depth: int) -> bytes:
    return b'{"k":' * (depth - 1) + b"[1]" + b"}" * (depth - 1)


def test_a_nested_payload_json_reads_shows_and_exports(
    store: SessionStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    payload = nested(SHALLOW_ENOUGH)
    write_log(store, "deep", payload)
    (event,) = store.read_events("deep")
    assert event.payload_raw == payload
    target = tmp_path / "deep.html"
    export_session(store, "deep", path=str(target), workspace=str(tmp_path), now=_now())
    assert target.stat().st_size > 0
    assert main(["show", "deep", "--json", "--store", str(store.root)]) == 0
    value = gojson.loads(capsys.readouterr().out)[0]["payload"]
    for _ in range(SHALLOW_ENOUGH - 2):
        value = value["k"]
    assert value == {"k": [1]}


def test_a_payload_deeper_than_zero_tui_reads_is_an_unreadable_session_in_one_line(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    write_log(store, "deep", nested(DEEPER_THAN_READ))
    with pytest.raises(StoreError, match=f"at line 1: {gojson.TOO_DEEP}$"):
        store.read_events("deep")
    assert main(["show", "deep", "--store", str(store.root)]) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line.endswith(gojson.TOO_DEEP)
    assert main(["sessions", "--all", "--json", "--store", str(store.root)]) == 0
    assert "healthy" in capsys.readouterr().out


def test_metadata_deeper_than_zero_tui_reads_is_an_unreadable_session(store: SessionStore) -> None:
    write_metadata(store, "deep", f'"futureField": {nested(DEEPER_THAN_READ).decode()},')
    scan = store.scan()
    assert [meta.session_id for meta in scan.sessions] == ["healthy"]
    assert len(scan.unreadable) == 1
    for decode in (gojson.loads, gojson.loads_pairs, gojson.check_decodes):
        with pytest.raises(gojson.GoJSONError, match=gojson.TOO_DEEP):
            decode(nested(DEEPER_THAN_READ))


def test_the_decoder_uses_json_s_public_api_only() -> None:
    source = inspect.getsource(gojson)
    for private in ("scanstring", "scan_once", "make_scanner", "json.decoder", "json.scanner"):
        assert private not in source


def test_the_read_limit_is_the_same_on_every_python(store: SessionStore) -> None:
    write_log(store, "fits", nested(gojson.READ_DEPTH - 1))  # the line's object makes it 500
    assert store.read_events("fits")[0].payload_raw == nested(gojson.READ_DEPTH - 1)
    write_log(store, "deep", nested(gojson.READ_DEPTH))
    with pytest.raises(StoreError, match=f"at line 1: {gojson.TOO_DEEP}$"):
        store.read_events("deep")
    at_limit = "[" * gojson.READ_DEPTH + "]" * gojson.READ_DEPTH
    assert gojson.loads(at_limit) is not None
    for decode in (gojson.loads, gojson.loads_pairs):
        with pytest.raises(gojson.GoJSONError, match=gojson.TOO_DEEP):
            decode("[" + at_limit + "]")
    assert gojson.all_decode([b"1", at_limit[1:-1].encode()])
    assert not gojson.all_decode([b"1", at_limit.encode()])


def test_append_writes_a_value_as_deep_as_go_reads(store: SessionStore) -> None:
    value: object = "leaf"
    for _ in range(9_998):
        value = {"k": value}
    payload = {"wrap": value}
    (event,) = store.append_events("healthy", [("tool_result", payload)])
    assert event.payload_raw == gojson.marshal(payload)
    (raw,) = store.append_events("healthy", [("tool_result", nested(9_999))])
    assert raw.payload_raw == nested(9_999)
    with pytest.raises(StoreError, match=gojson.TOO_DEEP):
        store.read_events("healthy")  # Zero reads them; zero-tui says why it cannot


def test_append_refuses_what_go_could_not_read_back(store: SessionStore) -> None:
    value: object = 1
    for _ in range(10_000):
        value = [value]
    with pytest.raises(StoreError, match="exceeded max depth"):
        store.append_events("healthy", [("tool_result", value)])
    with pytest.raises(StoreError, match="invalid raw JSON payload"):
        store.append_events("healthy", [("tool_result", nested(10_000))])
    assert len(store.read_events("healthy")) == 1


@pytest.mark.parametrize("bad", ["[1,]", '{"a" 1}', "[1 2]", "[", '{"a":1,}', "01", "[NaN]"])
def test_the_decoder_rejects_what_go_rejects(bad: str) -> None:
    with pytest.raises(gojson.GoJSONError):
        gojson.loads(bad)
    with pytest.raises(gojson.GoJSONError):
        gojson.loads("[" * 100 + bad + "]" * 100)


def _refuse(name: str) -> None:
    raise AssertionError(f"invalid JSON constant {name}")


def strict_json(text: str) -> object:
    """Parse as standard JSON (no Infinity/NaN), numbers kept as text."""
    return json.loads(text, parse_int=str, parse_float=str, parse_constant=_refuse)


def _now() -> datetime:
    return datetime(2026, 7, 4, 12, 0, 0).astimezone()


# --- fault 11: what one huge line may cost ------------------------------------------------------

_JSONISH = st.text(st.sampled_from(list('{}[],:"\\ \n0123456789-+.eEtrufalsn\x01é')), max_size=40)


@given(text=_JSONISH | st.recursive(st.none(), lambda c: st.lists(c, max_size=3)).map(json.dumps))
def test_the_token_validator_accepts_exactly_what_the_decoder_accepts(text: str) -> None:
    try:
        gojson.loads(text)
        decoded = True
    except gojson.GoJSONError:
        decoded = False
    try:
        gojson.check_valid(text)
        validated = True
    except gojson.GoJSONError:
        validated = False
    assert decoded == validated


def test_a_huge_payload_is_validated_not_decoded_and_shown_from_its_bytes(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    payload = b'{"role":"tool","list":[' + b",".join(b"%d" % n for n in range(300)) + b'],"e":{}}'
    write_log(store, "huge", payload)
    assert main(["show", "huge", "--json", "--store", str(store.root)]) == 0
    decoded_output = capsys.readouterr().out
    monkeypatch.setattr(gojson, "HUGE_VALUE", 100)
    (event,) = store.read_events("huge")
    assert not event._payload_decoded  # validated only
    assert main(["show", "huge", "--json", "--store", str(store.root)]) == 0
    assert capsys.readouterr().out == decoded_output
    write_log(store, "bad", payload[:-1] + b",}")
    with pytest.raises(StoreError, match="at line 1"):
        store.read_events("bad")
