"""A tool call of the run in flight that Zero's sandbox stopped for want of an approval.

The live card reads the same `store.approvals.ApprovalAsk` as a stored card, from what
`zero exec` streams: the call's decoded arguments, the `permission_request` (risk level,
categories, reason) and the `tool_result` saying `Sandbox approval required for …`.
"""

from __future__ import annotations

from zero_tui.agent.turn import ToolBlock
from zero_tui.store.approvals import ApprovalAsk, approval_ask


def live_approval(block: ToolBlock) -> ApprovalAsk | None:
    """What the call of `block` asked, once its result says it was not approved."""
    result = block.result
    if result is None or result.status != "error":
        return None
    permission = block.permission
    if permission is None or permission.kind != "request":
        return approval_ask(block.call.name, block.call.args, result.output)
    return approval_ask(
        block.call.name,
        block.call.args,
        result.output,
        risk_level=permission.risk_level,
        categories=permission.risk_categories,
        reason=permission.reason,
    )
