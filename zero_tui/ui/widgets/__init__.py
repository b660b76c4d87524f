"""Reusable widgets of the Textual UI."""
