"""Screens of the Textual UI."""
