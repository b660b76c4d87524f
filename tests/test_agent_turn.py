"""The live turn fold (zero-exec.md §2.4, §6.8): text blocks, final, tools, reasoning."""

from __future__ import annotations

from pathlib import Path

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
    parse_line,
)
from zero_tui.agent.turn import NoticeBlock, ReasoningBlock, TextBlock, ToolBlock, TurnModel

GOLDEN = Path(__file__).resolve().parent / "golden"


def fold(*events: AgentEvent, prompt: str = "hi") -> TurnModel:
    turn = TurnModel(prompt)
    for event in events:
        turn.apply(event)
    return turn


def call(call_id: str, name: str = "read_file") -> ToolCall:
    return ToolCall(call_id, name, {"path": "a"}, "read")


def result(call_id: str, name: str = "read_file", output: str = "ok") -> ToolResult:
    return ToolResult(call_id, name, "ok", output, False, "")


def test_deltas_accumulate_and_final_replaces_them() -> None:
    turn = fold(TextDelta("Hel"), TextDelta("lo"))
    assert turn.blocks == [TextBlock("Hello")]
    turn.apply(FinalAnswer("Hello!"))  # redaction or a nudge can make final differ
    assert turn.blocks == [TextBlock("Hello!", final=True)]
    assert turn.answer == "Hello!"


def test_example_b_interim_text_a_tool_and_the_answer() -> None:
    turn = TurnModel("Summarize")
    for line in (GOLDEN / "stream-json-b.jsonl").read_bytes().splitlines():
        event = parse_line(line)
        assert event is not None
        turn.apply(event)
    assert [type(block) for block in turn.blocks] == [TextBlock, ToolBlock, TextBlock]
    interim, tool, answer = turn.blocks
    assert interim == TextBlock("Writing the summary file.")
    assert isinstance(tool, ToolBlock)
    assert tool.call.name == "write_file"
    assert tool.result is not None
    assert tool.result.summary == "Created SUMMARY.md (1 lines)."
    assert tool.permission is not None
    assert tool.permission.action == "allow"
    assert tool.checkpoint == CheckpointSaved(10, "write_file", ("SUMMARY.md",))
    assert answer == TextBlock("Done: SUMMARY.md created.", final=True)
    assert turn.session_id == "zero_20260604113000_1780572600000000000_10"
    assert turn.run_id == "run_20260604120500_0b7e22"
    assert turn.usage == Usage(2600, 8, 2608)
    assert turn.total_tokens == 2551 + 2608
    assert turn.run_end == RunEnd("success", 0)
    assert turn.error is None


def test_final_without_streamed_text_since_the_tool_is_appended() -> None:
    turn = fold(TextDelta("Let me look."), call("c1"), result("c1"), FinalAnswer("Found it."))
    assert turn.blocks[0] == TextBlock("Let me look.")
    assert turn.blocks[-1] == TextBlock("Found it.", final=True)
    assert len(turn.blocks) == 3


def test_empty_final_adds_nothing_and_clears_an_empty_live_block() -> None:
    assert fold(FinalAnswer("")).blocks == []
    turn = fold(call("c1"), result("c1"), FinalAnswer(""))
    assert [type(block) for block in turn.blocks] == [ToolBlock]
    assert fold(TextDelta("draft"), FinalAnswer("")).blocks == []
    assert fold(FinalAnswer("")).answer == ""


def test_a_new_text_block_after_each_tool_call() -> None:
    turn = fold(TextDelta("one"), call("c1"), TextDelta("two"), call("c2"), TextDelta("three"))
    texts = [block.text for block in turn.blocks if isinstance(block, TextBlock)]
    assert texts == ["one", "two", "three"]
    turn.apply(FinalAnswer("3"))
    assert turn.blocks[-1] == TextBlock("3", final=True)
    assert turn.blocks[0] == TextBlock("one")


def test_reasoning_stays_apart_and_restarts_after_text_or_tools() -> None:
    turn = fold(
        ReasoningDelta("Think"),
        ReasoningDelta("ing. "),
        TextDelta("A"),
        ReasoningDelta("More. "),
        TextDelta("B"),
        call("c1"),
        ReasoningDelta("After."),
    )
    assert turn.blocks == [
        ReasoningBlock("Thinking. "),
        TextBlock("AB"),
        ReasoningBlock("More. "),
        ToolBlock(call("c1")),
        ReasoningBlock("After."),
    ]
    turn.apply(FinalAnswer("done"))
    assert turn.blocks[-1] == TextBlock("done", final=True)
    assert turn.blocks[1] == TextBlock("AB")  # the text before the tool call is interim


def test_results_pair_with_their_calls_by_id() -> None:
    turn = fold(call("c1"), call("c2"), result("c2", output="two"), result("c1", output="one"))
    first, second = turn.blocks
    assert isinstance(first, ToolBlock)
    assert isinstance(second, ToolBlock)
    assert first.result is not None
    assert first.result.output == "one"
    assert second.result is not None
    assert second.result.output == "two"


def test_a_result_without_its_call_gets_its_own_block() -> None:
    turn = fold(result("ghost", name="bash", output="x"))
    (block,) = turn.blocks
    assert isinstance(block, ToolBlock)
    assert block.call == ToolCall("ghost", "bash", None, "")
    assert block.result == result("ghost", name="bash", output="x")
    # a second result for an already answered call is not lost either
    turn = fold(call("c1"), result("c1"), result("c1", output="again"))
    assert len(turn.blocks) == 2


def test_permissions_pair_also_when_they_come_before_the_call() -> None:
    early = PermissionEvent("request", "c2", "bash", "prompt", "needs approval", False)
    late = PermissionEvent("decision", "c1", "write_file", "allow", "workspace write", False)
    turn = fold(early, call("c1", "write_file"), late, call("c2", "bash"))
    first, second = turn.blocks
    assert isinstance(first, ToolBlock)
    assert first.permission == late
    assert isinstance(second, ToolBlock)
    assert second.permission == early


def test_warnings_errors_and_unreadable_lines_become_notices() -> None:
    turn = fold(
        AgentWarning("Unsafe permissions are active"),
        Unreadable("this is not json", "not JSON: Expecting value (column 1)"),
        AgentError("provider_error", "rate limit error: slow down"),
    )
    assert turn.blocks == [
        NoticeBlock("warning", "Unsafe permissions are active"),
        NoticeBlock(
            "warning",
            "unreadable agent output (not JSON: Expecting value (column 1)): this is not json",
        ),
        NoticeBlock("error", "rate limit error: slow down"),
    ]
    assert turn.warnings == ["Unsafe permissions are active"]
    assert turn.error == AgentError("provider_error", "rate limit error: slow down")


def test_a_cancel_is_not_shown_as_an_error_block() -> None:
    turn = fold(
        TextDelta("partial"),
        AgentError("interrupted", "run cancelled by signal"),
        RunEnd("interrupted", 130),
    )
    assert turn.blocks == [TextBlock("partial")]
    assert turn.error == AgentError("interrupted", "run cancelled by signal")
    assert turn.run_end == RunEnd("interrupted", 130)


def test_version_grows_with_every_event_and_usage_is_summed() -> None:
    start = RunStart("run_20260604120000_3f9a1c", "zero_s", "/w", "openai", "gpt-5", "gpt-5")
    turn = TurnModel("hi")
    seen = [turn.version]
    for event in (start, TextDelta("a"), Usage(10, 2, 12), Usage(20, 3, 23)):
        turn.apply(event)
        seen.append(turn.version)
    assert seen == sorted(set(seen))
    assert turn.usage == Usage(20, 3, 23)
    assert turn.total_tokens == 35
    assert turn.prompt == "hi"
    assert TurnModel("x").run_id == ""
    assert TurnModel("x").session_id == ""


def test_many_small_deltas_join_in_order() -> None:
    turn = fold(*(TextDelta(f"{index % 10}") for index in range(50_000)))
    (block,) = turn.blocks
    assert isinstance(block, TextBlock)
    assert block.text == "0123456789" * 5_000
    block.append("!")
    assert block.text.endswith("9!")
    assert block == TextBlock("0123456789" * 5_000 + "!")
    assert block != ReasoningBlock(block.text)


def test_a_drawer_reads_each_delta_once_and_starts_over_when_final_differs() -> None:
    turn = fold(TextDelta("Hel"), TextDelta("lo"))
    (block,) = turn.blocks
    assert isinstance(block, TextBlock)
    assert block.read_new() == "Hello"
    assert block.read_new() == ""
    turn.apply(TextDelta(" world"))
    assert block.text == "Hello world"  # reading the whole keeps what read_new handed out
    assert block.read_new() == " world"
    generation = block.generation
    turn.apply(FinalAnswer("Hello world"))  # the same text: nothing to draw again
    assert (block.generation, block.final, block.read_new()) == (generation, True, "")


def test_a_redacted_final_makes_the_drawer_start_over() -> None:
    turn = fold(TextDelta("key sk-123"))
    (block,) = turn.blocks
    assert isinstance(block, TextBlock)
    block.read_new()
    generation = block.generation
    turn.apply(FinalAnswer("key [REDACTED]"))
    assert block.generation == generation + 1
    assert block.read_new() == "key [REDACTED]"


def test_zeros_retry_notices_are_read_from_its_reasoning() -> None:
    """Zero reports its reconnects and stall retries as reasoning (internal/agent/
    reconnect.go); nothing else of a retry reaches its stdout or stderr."""
    turn = fold(ReasoningDelta("\n[connection lost — reconnecting 2/4…]\n"))
    assert turn.retrying == "connection lost, reconnecting (2/4)"
    turn.apply(Usage(1, 1, 2))
    assert turn.retrying == "connection lost, reconnecting (2/4)"
    turn.apply(ReasoningDelta("\n[no output — model stalled; retrying 1/1…]\n"))
    assert turn.retrying == "model stalled, retrying (1/1)"
    turn.apply(TextDelta("back"))
    assert turn.retrying is None
    assert fold(ReasoningDelta("thinking about retrying 2/4")).retrying is None
