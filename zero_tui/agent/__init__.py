"""Continuing a session through the real agent: `zero exec` stream-json (no Textual import)."""

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
from zero_tui.agent.turn import Block, NoticeBlock, ReasoningBlock, TextBlock, ToolBlock, TurnModel

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
