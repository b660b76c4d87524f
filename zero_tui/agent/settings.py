"""What the user chose for the next runs, for the whole zero-tui process."""

from __future__ import annotations

from dataclasses import dataclass

AUTONOMY_LEVELS = ("low", "medium", "high")


@dataclass(slots=True)
class RunSettings:
    """`/model`, `/auto`, and the prompt /retry and /edit fall back on (tui-behaviour §3.1:
    the last prompt sent in this process; process memory only)."""

    model: str | None = None  # None: Zero's configured model
    auto: str | None = None  # None: Zero's default (low)
    last_prompt: str | None = None

    def describe(self, run_auto: str | None = None) -> str:
        """`model: default · auto: low` for the status line; `run_auto`: the autonomy of
        the run in flight, when it is not the settings' (allow and retry)."""
        return f"model: {self.model or 'default'} · auto: {run_auto or self.auto or 'low'}"
