"""Continuing a session through the real agent: `zero exec` stream-json (no Textual import).

The names below are imported from their modules when first asked for: a screen that only
needs `zero_tui.agent.settings` does not load the engine and the stream decoders.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zero_tui.lazy_names import lazy_names

if TYPE_CHECKING:
    from zero_tui.agent.engine import (
        AgentUnavailable,
        ExecEngine,
        ExecRun,
        RunRequest,
        agent_environment,
        autonomy_warning,
        build_command,
        check_request,
        choose_cwd,
        find_agent,
        live_runs,
        terminate_all,
    )
    from zero_tui.agent.outcome import RunOutcome, describe_outcome, provider_hint
    from zero_tui.agent.stream import AgentEvent, parse_line
    from zero_tui.agent.turn import (
        Block,
        NoticeBlock,
        ReasoningBlock,
        TextBlock,
        ToolBlock,
        TurnModel,
    )

_HOMES = {
    "AgentEvent": "zero_tui.agent.stream",
    "AgentUnavailable": "zero_tui.agent.engine",
    "Block": "zero_tui.agent.turn",
    "ExecEngine": "zero_tui.agent.engine",
    "ExecRun": "zero_tui.agent.engine",
    "NoticeBlock": "zero_tui.agent.turn",
    "ReasoningBlock": "zero_tui.agent.turn",
    "RunOutcome": "zero_tui.agent.outcome",
    "RunRequest": "zero_tui.agent.engine",
    "TextBlock": "zero_tui.agent.turn",
    "ToolBlock": "zero_tui.agent.turn",
    "TurnModel": "zero_tui.agent.turn",
    "agent_environment": "zero_tui.agent.engine",
    "autonomy_warning": "zero_tui.agent.engine",
    "build_command": "zero_tui.agent.engine",
    "check_request": "zero_tui.agent.engine",
    "choose_cwd": "zero_tui.agent.engine",
    "describe_outcome": "zero_tui.agent.outcome",
    "find_agent": "zero_tui.agent.engine",
    "live_runs": "zero_tui.agent.engine",
    "parse_line": "zero_tui.agent.stream",
    "provider_hint": "zero_tui.agent.outcome",
    "terminate_all": "zero_tui.agent.engine",
}

__all__ = [
    "AgentEvent",
    "AgentUnavailable",
    "Block",
    "ExecEngine",
    "ExecRun",
    "NoticeBlock",
    "ReasoningBlock",
    "RunOutcome",
    "RunRequest",
    "TextBlock",
    "ToolBlock",
    "TurnModel",
    "agent_environment",
    "autonomy_warning",
    "build_command",
    "check_request",
    "choose_cwd",
    "describe_outcome",
    "find_agent",
    "live_runs",
    "parse_line",
    "provider_hint",
    "terminate_all",
]

__getattr__ = lazy_names(__name__, _HOMES, globals())
