"""Continuing a session through the real agent: `zero exec` stream-json (no Textual import).

Its modules are imported by name (`zero_tui.agent.engine`, `.stream`, `.turn`, ...): the
package imports none of them, so that a screen that only needs `zero_tui.agent.settings`
does not load the engine.
"""
