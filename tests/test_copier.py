"""The copier reaches the tty through Textual's driver (zero_tui/copier.app_driver)."""

from __future__ import annotations

from textual.app import App
from textual.driver import Driver

from zero_tui.ui.copier import app_driver, terminal_copier


async def test_the_private_driver_attribute_is_still_there() -> None:
    app: App[None] = App()
    async with app.run_test():
        assert isinstance(app_driver(app), Driver)
        # headless: nothing is written to a terminal, and the copy says where it went
        result = terminal_copier(app)("text")
        assert result.message
