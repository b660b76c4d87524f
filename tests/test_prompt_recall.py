"""What /retry and /edit work on (zero_tui/transcript/recall.py), without an app."""

from __future__ import annotations

from collections.abc import Callable

from conftest import StoreBuilder, assistant, user

from zero_tui.transcript.log_index import LogIndex
from zero_tui.transcript.recall import PromptRecall


def test_the_prompt_sent_in_this_process_comes_first() -> None:
    recall = PromptRecall("retry", "fix the parser")
    assert not recall.reads_log
    assert recall.sends
    assert recall.title == "Retry"


def test_with_nothing_sent_the_log_is_read(make_store: Callable[..., StoreBuilder]) -> None:
    builder = make_store()
    builder.add("s1", events=[user("first"), assistant("a"), user("second"), assistant("b")])
    recall = PromptRecall("edit", None)
    assert recall.reads_log
    assert not recall.sends
    assert recall.title == "Edit"
    with LogIndex.open(builder.store.events_path("s1"), "s1") as index:
        assert recall.from_log(index, range(len(index)), lambda: False) == "second"


def test_a_log_without_a_prompt_gives_none(make_store: Callable[..., StoreBuilder]) -> None:
    builder = make_store()
    builder.add("s1", events=[assistant("hello")])
    with LogIndex.open(builder.store.events_path("s1"), "s1") as index:
        assert PromptRecall("retry", "").from_log(index, range(len(index)), lambda: False) is None


def test_what_each_command_says_with_nothing_to_recall() -> None:
    assert PromptRecall("retry", None).nothing == "no previous prompt to resend."
    assert PromptRecall("edit", None).nothing == "no previous prompt to recall."
