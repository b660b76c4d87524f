"""Row formatting of the resume picker (spec tui-behaviour §1.3, §10 cases 1, 21, 22)."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from zero_tui.picker.preview_data import build_preview
from zero_tui.picker.session_rows import picker_label, picker_row, scanning_text, status_text
from zero_tui.store.gojson import marshal
from zero_tui.store.models import Event, Metadata
from zero_tui.text.labels import parse_rfc3339, shorten_path, time_label

NOW = datetime(2026, 7, 4, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("updated_at", "label"),
    [
        ("2026-07-04T08:05:09Z", "08:05:09      T"),
        ("2026-03-07T09:30:00Z", "Mar  7 09:30  T"),
        ("2025-12-31T23:59:59Z", "2025-12-31    T"),
        ("garbage", "T"),
        ("2026-07-04T10:00:00.250Z", "10:00:00      T"),
        ("2026-07-04T10:00:00+02:00", "08:00:00      T"),
        ("2026-07-24T10:47:00Z", "Jul 24 10:47  T"),
        ("2026-07-04", "T"),
        ("2026-07-04 10:00:00Z", "T"),
    ],
)
def test_label_formats_in_utc(updated_at: str, label: str) -> None:
    assert picker_label(updated_at, "T", NOW, UTC) == label


def test_label_follows_the_local_zone() -> None:
    kolkata = ZoneInfo("Asia/Kolkata")
    assert picker_label("2026-07-04T08:05:09Z", "T", NOW, kolkata) == "13:35:09      T"


def test_day_boundary_is_the_local_calendar_day() -> None:
    # 20:00 UTC on July 3 is 01:30 on July 4 in Kolkata: "today" there.
    kolkata = ZoneInfo("Asia/Kolkata")
    assert time_label("2026-07-03T20:00:00Z", NOW, kolkata) == "01:30:00"
    assert time_label("2026-07-03T20:00:00Z", NOW, UTC) == "Jul  3 20:00"


def test_title_starts_at_column_14_in_every_format() -> None:
    for stamp in ("2026-07-04T08:05:09Z", "2026-03-07T09:30:00Z", "2025-12-31T23:59:59Z"):
        assert picker_label(stamp, "Fix parser", NOW, UTC).index("Fix parser") == 14


def test_empty_title_is_untitled() -> None:
    assert picker_label("2026-07-04T10:00:00Z", "", NOW, UTC) == "10:00:00      untitled"
    assert picker_label("2026-07-04T10:00:00Z", "  ", NOW, UTC).endswith("untitled")


def test_title_with_control_characters_stays_on_one_line() -> None:
    label = picker_label("garbage", "a\nb\x1b[31mc\td", NOW, UTC)
    assert label == "a b [31mc d"


def test_rejects_out_of_range_fields() -> None:
    assert parse_rfc3339("2026-02-30T10:00:00Z") is None
    assert parse_rfc3339("2026-07-04T24:00:00Z") is None


def session_meta(*, session_kind: str = "", updated_at: str = "2026-07-04T10:00:00Z") -> Metadata:
    return Metadata(
        session_id="s1",
        title="Fix parser",
        cwd="/home/u/proj",
        model_id="gpt-5",
        provider="openai",
        session_kind=session_kind,
        created_at="2026-07-04T09:00:00Z",
        updated_at=updated_at,
        event_count=2,
    )


def test_picker_row_fields() -> None:
    row = picker_row(session_meta(session_kind="fork"), NOW, UTC)
    assert row.label == "10:00:00      Fix parser"
    assert row.label[row.title_offset :] == "Fix parser"
    assert row.is_fork
    assert (row.model, row.event_count, row.workspace) == ("gpt-5", 2, "/home/u/proj")
    untimed = picker_row(session_meta(updated_at="x"), NOW, UTC)
    assert untimed.title_offset == 0
    assert untimed.label == "Fix parser"


def test_shorten_path() -> None:
    assert shorten_path("/home/u/proj", "/home/u", 30) == "~/proj"
    assert shorten_path("/home/user2/proj", "/home/u", 30) == "/home/user2/proj"
    assert shorten_path("/very/long/path/to/project", "", 10) == "…/project"
    assert shorten_path("/very/long/path/to/project", "", 14) == "…/to/project"
    assert shorten_path("/srv/other-service", "", 14) == "other-service"
    assert shorten_path("/srv/other-service", "", 15) == "…/other-service"
    assert shorten_path("/srv/other-service", "", 10) == "othe…rvice"
    assert shorten_path("/home/u/work/a-rather-long-project-name", "/home/u", 12) == "a-rat…t-name"
    assert len(shorten_path("/x/" + "y" * 40, "", 9)) == 9


def test_status_text_states_what_is_hidden() -> None:
    text = status_text(
        shown=12,
        total_in_scope=12,
        query="",
        all_workspaces=False,
        include_empty=False,
        other_workspace=340,
        empty_runs=8,
        not_resumable=0,
    )
    assert text == "12 shown · 340 in other workspaces (Tab: all) · 8 empty runs (ctrl+e: show)"
    filtered = status_text(
        shown=3,
        total_in_scope=352,
        query="fix",
        all_workspaces=True,
        include_empty=True,
        other_workspace=0,
        empty_runs=0,
        not_resumable=2,
    )
    assert filtered == (
        "3 of 352 match · all workspaces (Tab: this workspace) · "
        "empty runs shown (ctrl+e: hide) · 2 sub-sessions not resumable"
    )


def test_status_text_says_how_far_a_scan_has_read() -> None:
    def scanning(scanned: tuple[int, int] | None) -> str:
        return status_text(
            shown=60,
            total_in_scope=60,
            query="",
            all_workspaces=False,
            include_empty=False,
            other_workspace=7,
            empty_runs=0,
            not_resumable=0,
            loading=True,
            scanned=scanned,
        )

    assert scanning((2048, 10000)) == (
        "60 shown · 7 in other workspaces (Tab: all) · scanning 2,048/10,000…"
    )
    assert scanning(None) == "60 shown · 7 in other workspaces (Tab: all) · scanning…"
    assert scanning_text(None) == "scanning…"


def event(kind: str, payload: object) -> Event:
    return Event(type=kind, payload_raw=marshal(payload))


def test_preview_keeps_the_last_exchanges_as_plain_text() -> None:
    events = [
        event("message", {"role": "user", "content": "first"}),
        event("message", {"role": "assistant", "content": "[bold]answer[/bold]\x1b[2J"}),
        event("tool_call", {"id": "c1", "name": "bash", "arguments": "{}"}),
        event("provider_usage", {"totalTokens": 3}),
        event("message", {"role": "user", "content": "   "}),
        event("message", {"role": "user", "content": "second"}),
    ]
    preview = build_preview(session_meta(), events, tz=UTC, limit=3)
    assert [(item.role, item.text) for item in preview.exchanges] == [
        ("assistant", "[bold]answer[/bold][2J"),
        ("tool", "tool call: bash"),
        ("user", "second"),
    ]
    assert preview.created == "2026-07-04 09:00:00"
    assert preview.title == "Fix parser"
