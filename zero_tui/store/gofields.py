"""How Zero's TUI reads the fields of an event payload decoded as a map.

Zero reads a payload one of two ways, and a reader that wants to see what Zero sees must
read it the same way:

* As a map, with these helpers. The TUI (`sessionPayload` with `payloadString` & co.) and
  the resume filter decode into `map[string]any`: keys match exactly, a repeated key's
  last value wins (null included), and a value of another type is converted, never an
  error. A payload that is not an object reads as an empty map.
* Into a struct (`json.Unmarshal(payload, &record)`): rehydration, checkpoints, usage.
  That is `gojson.unmarshal`, with Go's rules for case-insensitive keys, repeated keys,
  null and type errors.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from zero_tui.store.gojson import JSONObject, go_sprint
from zero_tui.store.gotext import trim_space

if TYPE_CHECKING:
    from zero_tui.store.models import Event


def payload_map(event: Event) -> dict[str, Any]:
    """The payload as Zero's TUI decodes it into a map: {} when absent, null, not an object
    or undecodable (a huge array is not even parsed)."""
    if event._payload_decoded:  # the usual case: the line's decoder decoded it too
        value = event._payload
        return value if isinstance(value, dict) else {}
    raw = event.payload_raw
    if raw is None or raw.lstrip(b" \t\n\r")[:1] != b"{":
        return {}
    try:
        value = event.payload
    except (ValueError, TypeError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def text(payload: Mapping[str, Any], key: str) -> str:
    """payloadString: a string as is, a number or bool as fmt.Sprint writes it, an object or
    array as compact JSON, null or missing as ""."""
    value = payload.get(key)
    if isinstance(value, str):
        return value
    return go_sprint(value)


def flag(payload: Mapping[str, Any], key: str) -> bool:
    """payloadBool: a JSON bool, or a string that trims to `true` in any case."""
    value = payload.get(key)
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return trim_space(value).lower() == "true"
    return False


def child_map(payload: Mapping[str, Any], key: str) -> Mapping[str, Any] | None:
    """payloadMap: the value when it is an object, else None."""
    value = payload.get(key)
    return value if isinstance(value, dict) else None


def first_non_blank(*values: str) -> str:
    """firstNonEmptyString: the first value that is not blank, trimmed."""
    for value in values:
        trimmed = trim_space(value)
        if trimmed:
            return trimmed
    return ""


def strings(payload: Mapping[str, Any], key: str) -> tuple[str, ...]:
    """payloadStringSlice: the non-empty strings of an array (other items skipped)."""
    value = payload.get(key)
    if not isinstance(value, list):
        return ()
    return tuple(item for item in value if isinstance(item, str) and item)


def string_map(payload: Mapping[str, Any], key: str) -> dict[str, str]:
    """payloadStringMap: the string values of an object (other values skipped)."""
    value = child_map(payload, key)
    if value is None:
        return {}
    return {name: item for name, item in value.items() if isinstance(item, str)}


def whole_number(payload: Mapping[str, Any], key: str) -> int:
    """A number that is whole, as Go's map holds every number as a float64 (0 otherwise)."""
    value = payload.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    if isinstance(value, float) and (not math.isfinite(value) or value != math.trunc(value)):
        return 0
    return int(value)


def remarshalled(value: object) -> object:
    """A map value as Go's json.Marshal writes it back: object keys sorted by their bytes,
    every number through a float64 (whole ones below 1e21 written as integers)."""
    if isinstance(value, dict):
        items = sorted(value.items(), key=lambda item: item[0].encode("utf-8", "surrogatepass"))
        return JSONObject((key, remarshalled(item)) for key, item in items)
    if isinstance(value, list):
        return [remarshalled(item) for item in value]
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    number = float(value)
    if math.isfinite(number) and number == math.trunc(number) and abs(number) < 1e21:
        return int(number)
    return number
