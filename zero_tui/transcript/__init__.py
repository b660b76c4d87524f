"""Rehydrated session events -> transcript rows, and their text forms (no Textual import).

Import the modules themselves (`transcript.rows`, `transcript.export`, ...): this package
imports nothing, so a command that needs one of them does not pay for the others.
"""
