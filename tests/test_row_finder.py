"""ctrl+f's steps through the matches, without an app (zero_tui/ui/widgets/find_bar.py)."""

from __future__ import annotations

from zero_tui.transcript.geometry import PRELUDE_POSITION
from zero_tui.ui.widgets.find_bar import FindStep, RowFinder


def test_the_first_step_goes_from_the_top_or_the_bottom() -> None:
    finder = RowFinder()
    assert finder.step("q", [3, 7], None, 10, backwards=False) == FindStep(3, "1/2")
    assert finder.step("q", [3, 7], None, 10, backwards=True) == FindStep(7, "2/2")
    assert finder.step("q", [3, 7], PRELUDE_POSITION, 10, backwards=False) == FindStep(3, "1/2")


def test_steps_wrap_around_and_say_so() -> None:
    finder = RowFinder()
    assert finder.step("q", [3, 7], 7, 10, backwards=False) == FindStep(
        3, "1/2 · wrapped to the top"
    )
    assert finder.step("q", [3, 7], 3, 10, backwards=True) == FindStep(
        7, "2/2 · wrapped to the bottom"
    )
    assert finder.step("q", [3], 3, 10, backwards=False) == FindStep(3, "1/1")


def test_no_match() -> None:
    assert RowFinder().step("q", [], 4, 10, backwards=False) == FindStep(None, "no match")


def test_the_matches_are_kept_for_their_query_until_forgotten() -> None:
    finder = RowFinder()
    assert finder.known("q") is None
    finder.step("q", [3, 7], None, 10, backwards=False)
    assert finder.known("q") == [3, 7]
    assert finder.known("other") is None
    finder.forget()
    assert finder.known("q") is None
