"""The usage screen's bar chart: tokens per day, laid out by `transcript.usage_chart` and
painted here with the theme's colours. A click picks the day under the mouse."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import ClassVar

from textual import events
from textual.content import Content
from textual.message import Message
from textual.widget import Widget

from zero_tui.transcript.usage_chart import ChartGeometry, Role, day_chart


class DayChart(Widget):
    """A column a day, the highlighted day in the accent colour."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {f"day-chart--{role.value}" for role in Role}

    @dataclass
    class Picked(Message):
        """A day was clicked (its index in the days shown)."""

        index: int

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._days: tuple[date, ...] = ()
        self._values: tuple[int, ...] = ()
        self._highlight: int | None = None
        self._geometry: ChartGeometry | None = None

    def show(self, days: Sequence[date], values: Sequence[int], highlight: int | None) -> None:
        self._days = tuple(days)
        self._values = tuple(values)
        self._highlight = highlight
        self.refresh()

    @property
    def geometry(self) -> ChartGeometry | None:
        """Where the days were drawn last (None before the first frame)."""
        return self._geometry

    def render(self) -> Content:
        size = self.content_size
        geometry, lines = day_chart(
            self._days, self._values, size.width, size.height, self._highlight
        )
        self._geometry = geometry
        styles = {role: self.get_visual_style(f"day-chart--{role.value}") for role in Role}
        return Content("\n").join(
            Content.assemble(*((text, styles[role]) for text, role in line)) for line in lines
        )

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or self._geometry is None:
            return
        index = self._geometry.day_at(offset.x)
        if index is not None:
            self.post_message(self.Picked(index))
