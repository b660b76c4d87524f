"""Which of the UI's messages bubble: only those a screen handles from a widget below it.
A `bubble = False` in a message's class body is overridden by `Message.__init_subclass__`,
so a message meant to stay put went up through every ancestor to the app (issue 26)."""

from __future__ import annotations

import inspect

from textual.message import Message

from zero_tui.ui import messages

# posted by a widget (or a worker of one) for the screen or app above it
BUBBLING = {
    "ScanStage",  # StoreFeed → PickerScreen
    "StoreChanges",
    "WatchMode",
    "IndexProgress",
    "HostSynced",
    "OpenSession",  # screens → the app
    "NewConversation",
    "ResumeResolved",
    "ResumeRequest",
    "TrashCounted",  # SessionTrash → PickerScreen
    "FlagsRead",
    "BulkDeleted",
    "SessionDeleted",
    "MatchesFound",  # TranscriptLog → TranscriptScreen
    "PromptRecalled",
}


def message_classes() -> dict[str, type[Message]]:
    return {
        name: value
        for name, value in vars(messages).items()
        if inspect.isclass(value)
        and issubclass(value, Message)
        and value.__module__ == messages.__name__
    }


def test_only_messages_for_an_ancestor_bubble() -> None:
    classes = message_classes()
    assert classes.keys() >= BUBBLING
    bubbling = {name for name, cls in classes.items() if cls.bubble}
    assert bubbling == BUBBLING


def test_no_message_sets_bubble_in_its_class_body() -> None:
    for name, cls in message_classes().items():
        assert "bubble = " not in inspect.getsource(cls), name
