"""Labels every layer shows: Go's time column, titles and text on one line, sizes, paths,
keys.

The time column follows Zero's Go picker (spec tui-behaviour §1.3): local time,
`HH:MM:SS` today, `Mon DD HH:MM` this year, `YYYY-MM-DD` before, padded to 12 columns.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone, tzinfo

from zero_tui.text.sanitize import BIDI_CONTROLS, visible_codepoint

TIME_COLUMN_WIDTH = 12  # len("Jan 02 15:04")
UNTITLED = "untitled"

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
"""English names whatever the locale, as Go's time package writes them."""

# Go's time.Parse(time.RFC3339, ...): optional fractional seconds, `Z` or a numeric offset.
_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:(Z)|([+-])(\d{2}):(\d{2}))"
)


def parse_rfc3339(text: str) -> datetime | None:
    """Parse like Go's `time.Parse(time.RFC3339, text)`; None when Go would fail."""
    match = _RFC3339.fullmatch(text)
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(part) for part in match.groups()[:6])
    fraction = match.group(7) or ""
    microsecond = int((fraction + "000000")[:6]) if fraction else 0
    if match.group(8):
        zone: tzinfo = UTC
    else:
        sign = -1 if match.group(9) == "-" else 1
        hours, minutes = int(match.group(10)), int(match.group(11))
        if hours > 23 or minutes > 59:
            return None
        zone = timezone(sign * timedelta(hours=hours, minutes=minutes))
    if hour > 23 or minute > 59 or second > 59:
        return None
    try:
        return datetime(year, month, day, hour, minute, second, microsecond, tzinfo=zone)
    except ValueError:
        return None


def to_local(moment: datetime, tz: tzinfo | None) -> datetime:
    """Convert to `tz`, or to the system's local zone (with its DST rules) when None."""
    return moment.astimezone(tz) if tz is not None else moment.astimezone()


def time_label(updated_at: str, now: datetime, tz: tzinfo | None = None) -> str | None:
    """The picker's time column, unpadded; None when `updated_at` is not RFC3339."""
    moment = parse_rfc3339(updated_at)
    if moment is None:
        return None
    local = to_local(moment, tz)
    local_now = to_local(now, tz)
    if local.year == local_now.year and local.timetuple().tm_yday == local_now.timetuple().tm_yday:
        return f"{local.hour:02d}:{local.minute:02d}:{local.second:02d}"
    if local.year == local_now.year:
        return f"{MONTHS[local.month - 1]} {local.day:2d} {local.hour:02d}:{local.minute:02d}"
    return f"{local.year:04d}-{local.month:02d}-{local.day:02d}"


def display_title(title: str) -> str:
    """The title on one line: control characters become spaces; empty -> `untitled`."""
    flat = one_line(title)
    return flat if flat.strip() else UNTITLED


def one_line(text: str) -> str:
    """Replace every non-printable character (newlines, tabs, escapes) with a space; a bidi
    control is shown as `⟨U+202E⟩` (the sanitiser's rule)."""
    if text.isprintable():
        return text
    return "".join(
        char if char.isprintable() else visible_codepoint(char) if char in BIDI_CONTROLS else " "
        for char in text
    )


def counted(count: int, noun: str, plural: str = "") -> str:
    """`1 session`, `2 sessions`, `1,200 lines`: the one place a count gets its noun
    (`plural` when adding an s is not the plural)."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


def event_count_label(shown: int | None, in_log: int) -> str:
    """The one wording of a session's size, wherever it is shown (preview, header, exports).

    `shown`: the events of the compaction-aware view; `in_log`: the metadata's count of
    every event ever appended. `24 events` when they agree, `14 shown · 24 in the log` when
    a compaction folded some away, `24 in the log` when the view is not known (yet).
    """
    if shown is None:
        return f"{in_log:,} in the log"
    if shown == in_log:
        return counted(in_log, "event")
    return f"{shown:,} shown · {in_log:,} in the log"


def middle_cut(text: str, width: int) -> str:
    """`text` in `width` characters, its middle replaced by `…` when it does not fit."""
    if len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    head = (width - 1) // 2
    tail = width - 1 - head
    return text[:head] + "…" + (text[-tail:] if tail else "")


def shorten_path(path: str, home: str, width: int) -> str:
    """`~` for the home directory; too long, the last folders kept whole: `…/src/project`.

    A last folder longer than the room is cut in its middle (`…/very-l…name` keeps both
    ends of a name, where its differences usually are).
    """
    if home and (path == home or path.startswith(home.rstrip("/") + "/")):
        path = "~" + path[len(home.rstrip("/")) :]
    if len(path) <= width:
        return path
    parts = [part for part in path.split("/") if part]
    if not parts:
        return middle_cut(path, width)
    kept = parts[-1]
    for part in reversed(parts[:-1]):
        if len(part) + 1 + len(kept) + 2 > width:
            break
        kept = part + "/" + kept
    if len(kept) + 2 <= width:
        return "…/" + kept
    return middle_cut(parts[-1], width)


def clean_text(text: str) -> str:
    """Multi-line text with control characters removed (tabs become spaces)."""
    text = text.replace("\r\n", "\n").replace("\t", "    ")
    if all(char.isprintable() or char == "\n" for char in text):
        return text
    return "".join(
        char if char.isprintable() or char == "\n" else visible_codepoint(char)
        for char in text
        if char.isprintable() or char == "\n" or char in BIDI_CONTROLS
    )


def format_timestamp(value: str, tz: tzinfo | None = None) -> str:
    """`2026-07-04 12:00:00` in local time, or the raw value when it does not parse."""
    moment = parse_rfc3339(value)
    if moment is None:
        return one_line(value)
    return to_local(moment, tz).strftime("%Y-%m-%d %H:%M:%S")


_COUNT_UNITS = ((1_000_000_000, "B"), (1_000_000, "M"), (1_000, "k"))


def compact_count(count: int) -> str:
    """A count in at most four characters, for a chart's labels: `950`, `1.2k`, `34k`,
    `1.5M`; rounded to the nearest, never up into the next unit's `1000k`."""
    if count < 0:
        return "-" + compact_count(-count)
    if count < 1000:
        return str(count)
    for index, (size, unit) in enumerate(_COUNT_UNITS):
        if count < size:
            continue
        value = count / size
        if value < 9.95:
            return f"{value:.1f}".removesuffix(".0") + unit
        if round(value) < 1000 or index == 0:
            return f"{round(value)}{unit}"
        bigger_size, bigger_unit = _COUNT_UNITS[index - 1]  # 999.6k: 1M, not 1000k
        return f"{count / bigger_size:.1f}".removesuffix(".0") + bigger_unit
    return str(count)  # not reached: a count of 1000 or more meets the last unit


def cost_label(dollars: float) -> str:
    """An amount in USD as Zero's FormatCostUSD writes it: `$1.2580`, `$0.004200` under a
    cent, so the figure reads the same here as in `zero usage report`."""
    if 0 < dollars < 0.01:
        return f"${dollars:.6f}"
    return f"${dollars:.4f}"


KEY_NAMES = {
    "tab": "Tab",
    "shift+tab": "shift+Tab",
    "escape": "Esc",
    "enter": "Enter",
    "pageup": "PgUp",
    "pagedown": "PgDn",
    "home": "Home",
    "end": "End",
    "up/down": "↑ ↓",
}
_FUNCTION_KEY = re.compile(r"f\d{1,2}", re.IGNORECASE)


def key_name(key: str) -> str:
    """A key as the user guide and the footer spell it (`Tab`, `Esc`, `F2`, `ctrl+e`)."""
    if _FUNCTION_KEY.fullmatch(key):
        return key.upper()
    return KEY_NAMES.get(key, key)
