"""The display collapse of tui-behaviour §6.3: which rows a transcript shows. Rendering
only; it never changes the rows themselves. No Textual or Rich import here.
"""

from __future__ import annotations

from collections.abc import Sequence

from zero_tui.transcript.row_model import Row, RowKind

_HIDDEN_PLUMBING_TOOLS = frozenset({"Task", "TaskOutput", "tool_search"})
_HIDDEN_CALL_TOOLS = _HIDDEN_PLUMBING_TOOLS | {"update_plan"}
_DECISION_ACTIONS = frozenset({"allow", "deny", "cancel"})


def visible_row_indices(rows: Sequence[Row]) -> list[int]:
    """Indices of the rows a transcript shows after §6.3's display collapse.

    Hidden: a tool call whose result row exists (the result card shows both; its
    `tool_info` carries the call's arguments); call cards of Task, TaskOutput, tool_search
    and update_plan; successful results of Task, TaskOutput and tool_search; a `prompt`
    permission row once a later allow/deny/cancel row exists for the call; an `allow` row
    with no prompt before it for the call.
    """
    resolved = {row.id for row in rows if row.kind is RowKind.TOOL_RESULT and row.id}
    hidden = [False] * len(rows)
    prompted: set[str] = set()
    for index, row in enumerate(rows):
        if row.kind is RowKind.TOOL_CALL:
            hidden[index] = row.tool in _HIDDEN_CALL_TOOLS or (bool(row.id) and row.id in resolved)
        elif row.kind is RowKind.TOOL_RESULT:
            hidden[index] = row.tool in _HIDDEN_PLUMBING_TOOLS and row.status != "error"
        elif row.kind is RowKind.PERMISSION and row.permission and row.permission.tool_call_id:
            call_id = row.permission.tool_call_id
            if row.permission.action == "prompt":
                prompted.add(call_id)
            elif row.permission.action == "allow":
                hidden[index] = call_id not in prompted
    decided_later: set[str] = set()
    for index in range(len(rows) - 1, -1, -1):
        row = rows[index]
        if row.kind is not RowKind.PERMISSION or not row.permission:
            continue
        call_id = row.permission.tool_call_id
        if not call_id:
            continue
        if row.permission.action == "prompt" and call_id in decided_later:
            hidden[index] = True
        elif row.permission.action in _DECISION_ACTIONS:
            decided_later.add(call_id)
    return [index for index, is_hidden in enumerate(hidden) if not is_hidden]


def collapse_for_display(rows: Sequence[Row]) -> list[Row]:
    return [rows[index] for index in visible_row_indices(rows)]
