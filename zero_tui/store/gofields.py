"""How Zero's Go code reads the fields of an event payload: the rules, in one place.

Zero reads a payload one of two ways, and a reader that wants to see what Zero sees must
read it the same way:

* As a map. The TUI (`sessionPayload` with `payloadString` & co.) and the resume filter
  decode into `map[string]any`: keys match exactly, a repeated key's last value wins (null
  included), and a value of another type is converted, never an error. A payload that is
  not an object reads as an empty map.
* Into a struct (`json.Unmarshal(payload, &record)`): rehydration, checkpoints, usage.
  Keys match case-insensitively (an exact match first); repeated keys apply in order; a
  null leaves a string, number, bool or struct field as it was and empties a slice; a value
  of the wrong type leaves its field as it was, decoding goes on, and the first such error
  is what Unmarshal returns.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from zero_tui.store import gojson
from zero_tui.store.gojson import INT64_MAX, INT64_MIN, JSONNumber, JSONObject, go_sprint
from zero_tui.store.gotext import trim_space

T = TypeVar("T")

# --- map reading (the TUI's payloadString & co.) -----------------------------------------


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


# --- struct reading (encoding/json's Unmarshal) -------------------------------------------


class Unmarshal:
    """One Unmarshal call: it keeps the first type error and goes on, as Go's does."""

    __slots__ = ("error",)

    def __init__(self) -> None:
        self.error = ""

    def mismatch(self, value: object, struct: str, path: str, go_type: str) -> None:
        """Go's UnmarshalTypeError, naming the innermost struct and the path of fields to
        the value (none: the value itself is of the wrong type)."""
        self.mismatch_shown(gojson.go_type_name(value), struct, path, go_type)

    def mismatch_shown(self, shown: str, struct: str, path: str, go_type: str) -> None:
        if self.error:
            return
        if not path:
            self.error = f"cannot unmarshal {shown} into Go value of type {go_type}"
        else:
            self.error = str(gojson.field_type_error(shown, f"{struct}.{path}", go_type))


class GoField(Generic[T]):
    """A struct field's Go type: how a JSON value is stored into it."""

    __slots__ = ("go_type", "zero")

    def __init__(self, go_type: str, zero: T) -> None:
        self.go_type = go_type
        self.zero = zero

    def store(self, value: object, current: T, run: Unmarshal, struct: str, path: str) -> T:
        """The field after `value` is stored into it (`current` when Go leaves it)."""
        raise NotImplementedError


class GoString(GoField[str]):
    __slots__ = ()

    def __init__(self) -> None:
        super().__init__("string", "")

    def store(self, value: object, current: str, run: Unmarshal, struct: str, path: str) -> str:
        if isinstance(value, str):
            return value
        if value is not None:
            run.mismatch(value, struct, path, self.go_type)
        return current


class GoBool(GoField[bool]):
    __slots__ = ()

    def __init__(self) -> None:
        super().__init__("bool", False)

    def store(self, value: object, current: bool, run: Unmarshal, struct: str, path: str) -> bool:
        if isinstance(value, bool):
            return value
        if value is not None:
            run.mismatch(value, struct, path, self.go_type)
        return current


class GoInt(GoField[int]):
    """A Go integer type: integer literals in its range only (`2.0` and `1e3` are errors)."""

    __slots__ = ("high", "low")

    def __init__(self, go_type: str = "int", low: int = INT64_MIN, high: int = INT64_MAX) -> None:
        super().__init__(go_type, 0)
        self.low, self.high = low, high

    def store(self, value: object, current: int, run: Unmarshal, struct: str, path: str) -> int:
        if isinstance(value, bool) or value is None:
            if value is not None:
                run.mismatch(value, struct, path, self.go_type)
            return current
        if isinstance(value, int) and self.low <= value <= self.high:
            return value
        if isinstance(value, int | float | JSONNumber):
            # Go names the number itself when it is out of range or not an integer
            literal = value.text if isinstance(value, JSONNumber) else repr(value)
            run.mismatch_shown(f"number {literal}", struct, path, self.go_type)
            return current
        run.mismatch(value, struct, path, self.go_type)
        return current


UINT32 = GoInt("uint32", 0, 2**32 - 1)


class GoSlice(GoField[tuple[T, ...]]):
    """`[]T`: null empties it; items are decoded into the elements already there, as Go's
    decoder reuses them."""

    __slots__ = ("item",)

    def __init__(self, item: GoField[T]) -> None:
        super().__init__("[]" + item.go_type, ())
        self.item = item

    def store(
        self, value: object, current: tuple[T, ...], run: Unmarshal, struct: str, path: str
    ) -> tuple[T, ...]:
        if value is None:
            return ()
        if not isinstance(value, list) or isinstance(value, JSONObject):
            run.mismatch(value, struct, path, self.go_type)
            return current
        item = self.item
        return tuple(
            item.store(element, current[at] if at < len(current) else item.zero, run, struct, path)
            for at, element in enumerate(value)
        )


class GoStruct(GoField[T]):
    """A Go struct type: its name (`sessions.EventRef`), its fields by JSON key (each with
    the Python attribute it fills), and the class built from them."""

    __slots__ = ("_folded", "_name", "build", "fields")

    def __init__(
        self, go_type: str, build: Callable[..., T], fields: Mapping[str, tuple[str, GoField[Any]]]
    ) -> None:
        super().__init__(go_type, build(**{attr: kind.zero for attr, kind in fields.values()}))
        self.fields = fields
        self.build = build
        self._folded = {gojson.fold_key(key) or key: key for key in fields}
        self._name = go_type.rpartition(".")[2]

    def store(self, value: object, current: T, run: Unmarshal, struct: str, path: str) -> T:
        if value is None:
            return current
        if not isinstance(value, JSONObject):
            run.mismatch(value, struct, path, self.go_type)
            return current
        return self._stored(value, current, run, path)

    def _stored(self, pairs: JSONObject, current: T, run: Unmarshal, prefix: str) -> T:
        if isinstance(current, dict):
            values = dict(current)
        else:
            values = {attr: getattr(current, attr) for attr, _kind in self.fields.values()}
        for key, item in pairs:
            name = key if key in self.fields else self._folded.get(gojson.fold_key(key) or "")
            if name is None:
                continue  # an unknown key: ignored
            attr, kind = self.fields[name]
            path = f"{prefix}.{name}" if prefix else name
            values[attr] = kind.store(item, values[attr], run, self._name, path)
        return self.build(**values)


def unmarshal(kind: GoField[T], value: object) -> tuple[T, str]:
    """json.Unmarshal of a JSON value (objects decoded by `gojson.loads_pairs`) into a zero
    value of `kind`: (the value, "" or the error Unmarshal returns)."""
    run = Unmarshal()
    return kind.store(value, kind.zero, run, "", ""), run.error
