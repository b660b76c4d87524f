"""The live turn: a pure fold of one run's events into display blocks (zero-exec §2.4, §6.8).

Text deltas accumulate into the live text block; a `tool_call` closes it, so the next
text starts a new block; `final` replaces the live block (the answer Zero stored), or is
appended when nothing was streamed since the last tool call. Reasoning stays in its own
blocks and never merges into text. Presentation is the UI's business.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from zero_tui.agent.stream import (
    AgentError,
    AgentEvent,
    AgentWarning,
    CheckpointSaved,
    FinalAnswer,
    PermissionEvent,
    ReasoningDelta,
    RunEnd,
    RunStart,
    TextDelta,
    ToolCall,
    ToolResult,
    Unreadable,
    Usage,
)


class _Streamed:
    """Text that grows by deltas: kept as parts and joined only when read, so a long
    answer streamed in thousands of deltas costs linear time, not quadratic.

    A drawer takes what is new with `read_new` (each part once); `generation` changes
    when the text is replaced rather than grown (then `read_new` starts over)."""

    __slots__ = ("_parts", "_read", "generation")

    def __init__(self, text: str = "") -> None:
        self._parts = [text] if text else []
        self._read = 0  # parts read_new has handed out
        self.generation = 0

    @property
    def text(self) -> str:
        if self._read > 1:  # what was read is joined once, not again on every read
            self._parts[: self._read] = ["".join(self._parts[: self._read])]
            self._read = 1
        if len(self._parts) > 1 and self._read == 0:
            self._parts[:] = ["".join(self._parts)]
        return "".join(self._parts)

    @text.setter
    def text(self, value: str) -> None:
        self._parts = [value] if value else []
        self._read = 0
        self.generation += 1

    def append(self, delta: str) -> None:
        self._parts.append(delta)

    def read_new(self) -> str:
        """The text appended since the last call (all of it, the first time)."""
        new = "".join(self._parts[self._read :])
        self._read = len(self._parts)
        return new

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Streamed) or type(other) is not type(self):
            return NotImplemented
        return self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]  # mutable: not hashable

    def _key(self) -> tuple[object, ...]:
        return (self.text,)

    def __repr__(self) -> str:
        fields = ", ".join(repr(value) for value in self._key())
        return f"{type(self).__name__}({fields})"


class TextBlock(_Streamed):
    __slots__ = ("final",)

    def __init__(self, text: str = "", final: bool = False) -> None:
        super().__init__(text)
        self.final = final  # True once `final` replaced the streamed text

    def _key(self) -> tuple[object, ...]:
        return (self.text, self.final)


class ReasoningBlock(_Streamed):
    __slots__ = ()


@dataclass(slots=True)
class ToolBlock:
    call: ToolCall
    result: ToolResult | None = None
    permission: PermissionEvent | None = None
    checkpoint: CheckpointSaved | None = None


Severity = Literal["warning", "error"]

# Zero's notices of its own retries, sent as reasoning (internal/agent/reconnect.go): the
# only retries a run reports as they happen (a 429 or 503 is retried in silence).
_RETRY_NOTICES = (
    (
        re.compile(r"\[connection lost — reconnecting (\d+)/(\d+)…\]"),
        "connection lost, reconnecting",
    ),
    (
        re.compile(r"\[no output — model stalled; retrying (\d+)/(\d+)…\]"),
        "model stalled, retrying",
    ),
)


def retry_notice(delta: str) -> str | None:
    """`connection lost, reconnecting (2/4)` for Zero's retry notice in `delta`, or None."""
    for pattern, words in _RETRY_NOTICES:
        if (found := pattern.search(delta)) is not None:
            return f"{words} ({found.group(1)}/{found.group(2)})"
    return None


@dataclass(slots=True)
class NoticeBlock:
    severity: Severity
    text: str


Block = TextBlock | ReasoningBlock | ToolBlock | NoticeBlock


@dataclass(slots=True)
class TurnModel:
    """Folds one run's events; `version` grows on every change so a UI can coalesce."""

    prompt: str
    blocks: list[Block] = field(default_factory=list, init=False)
    run_start: RunStart | None = field(default=None, init=False)
    usage: Usage | None = field(default=None, init=False)  # the latest report
    total_tokens: int = field(default=0, init=False)  # summed over the run's responses
    run_end: RunEnd | None = field(default=None, init=False)
    error: AgentError | None = field(default=None, init=False)
    warnings: list[str] = field(default_factory=list, init=False)
    retrying: str | None = field(default=None, init=False)  # Zero's latest retry notice
    version: int = field(default=0, init=False)
    _live_text: TextBlock | None = field(default=None, init=False, repr=False)
    _live_reasoning: ReasoningBlock | None = field(default=None, init=False, repr=False)
    _tools: dict[str, ToolBlock] = field(default_factory=dict, init=False, repr=False)
    _early_permissions: dict[str, PermissionEvent] = field(
        default_factory=dict, init=False, repr=False
    )

    @property
    def run_id(self) -> str:
        return self.run_start.run_id if self.run_start else ""

    @property
    def session_id(self) -> str:
        return self.run_start.session_id if self.run_start else ""

    @property
    def answer(self) -> str:
        """The final answer when one arrived, else "" (interim text is not an answer)."""
        for block in reversed(self.blocks):
            if isinstance(block, TextBlock) and block.final:
                return block.text
        return ""

    def apply(self, event: AgentEvent) -> None:
        self.version += 1
        if self.retrying is not None and not isinstance(event, ReasoningDelta | Usage):
            self.retrying = None  # the retry got through
        if isinstance(event, TextDelta):
            self._text(event.delta)
        elif isinstance(event, ReasoningDelta):
            self._reasoning(event.delta)
        elif isinstance(event, ToolCall):
            self._tool_call(event)
        elif isinstance(event, ToolResult):
            self._tool_result(event)
        elif isinstance(event, PermissionEvent):
            self._permission(event)
        elif isinstance(event, CheckpointSaved):
            self._checkpoint(event)
        elif isinstance(event, FinalAnswer):
            self._final(event.text)
        elif isinstance(event, Usage):
            self.usage = event
            self.total_tokens += event.total_tokens
        elif isinstance(event, RunStart):
            self.run_start = event
        elif isinstance(event, AgentWarning):
            self.warnings.append(event.message)
            self._notice("warning", event.message)
        elif isinstance(event, AgentError):
            self.error = event
            # a cancel is told by the run's outcome ("Run cancelled."), not as an error
            if event.code != "interrupted":
                self._notice("error", event.message)
        elif isinstance(event, RunEnd):
            self.run_end = event
        elif isinstance(event, Unreadable):
            self._notice("warning", f"unreadable agent output ({event.reason}): {event.text}")

    def _notice(self, severity: Severity, text: str) -> None:
        self.blocks.append(NoticeBlock(severity, text))
        self._live_reasoning = None

    def _text(self, delta: str) -> None:
        if not delta:
            return
        if self._live_text is None:
            self._live_text = TextBlock()
            self.blocks.append(self._live_text)
        self._live_text.append(delta)
        self._live_reasoning = None

    def _reasoning(self, delta: str) -> None:
        if not delta:
            return
        if (notice := retry_notice(delta)) is not None:
            self.retrying = notice
        if self._live_reasoning is None:
            self._live_reasoning = ReasoningBlock()
            self.blocks.append(self._live_reasoning)
        self._live_reasoning.append(delta)

    def _tool_call(self, call: ToolCall) -> None:
        block = ToolBlock(call, permission=self._early_permissions.pop(call.call_id, None))
        self.blocks.append(block)
        if call.call_id:
            self._tools[call.call_id] = block
        self._live_text = None
        self._live_reasoning = None

    def _tool_result(self, result: ToolResult) -> None:
        block = self._tools.get(result.call_id) if result.call_id else None
        if block is None or block.result is not None:
            orphan = ToolBlock(ToolCall(result.call_id, result.name, None, ""), result)
            self.blocks.append(orphan)
            self._live_text = None
            self._live_reasoning = None
            return
        block.result = result

    def _permission(self, permission: PermissionEvent) -> None:
        block = self._tools.get(permission.call_id)
        if block is None:
            # parallel read-only calls report permissions before their tool_call (§9.1)
            self._early_permissions[permission.call_id] = permission
        else:
            block.permission = permission

    def _checkpoint(self, checkpoint: CheckpointSaved) -> None:
        for block in reversed(self.blocks):
            if isinstance(block, ToolBlock) and block.result is None:
                if block.call.name == checkpoint.tool:
                    block.checkpoint = checkpoint
                return

    def _final(self, text: str) -> None:
        live = self._live_text
        if live is not None:
            if text:
                if text != live.text:  # redacted, or never streamed as such
                    live.text = text
                live.final = True
            else:
                self.blocks.remove(live)
        elif text:
            self.blocks.append(TextBlock(text, final=True))
        self._live_text = None
        self._live_reasoning = None
