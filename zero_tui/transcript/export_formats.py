"""The export formats and how one is named: the one list the exporter, /export and the CLI use.

Kept apart from `zero_tui.transcript.export` so that the command line and the command
registry can offer the formats without loading the exporters. No Textual or Rich import.
"""

from __future__ import annotations

import os
from enum import StrEnum


class ExportFormat(StrEnum):
    TXT = "txt"
    MD = "md"
    JSON = "json"
    HTML = "html"


EXPORT_FORMATS: tuple[str, ...] = tuple(member.value for member in ExportFormat)
FORMAT_CHOICES = "|".join(EXPORT_FORMATS)
"""`txt|md|json|html`, as usage lines write the choice."""
FORMAT_CONTENTS = (
    "txt: Zero's own format, without the tool calls · md, html: with the tool calls and "
    "their output · json: the events"
)
"""What each format holds, as the export dialog says it."""
_FORMAT_BY_EXTENSION = {
    ".txt": ExportFormat.TXT,
    ".md": ExportFormat.MD,
    ".markdown": ExportFormat.MD,
    ".json": ExportFormat.JSON,
    ".html": ExportFormat.HTML,
    ".htm": ExportFormat.HTML,
}


def parse_format(value: ExportFormat | str) -> ExportFormat:
    """`txt`, `md`, `json` or `html` (any case); ExportFormatError otherwise."""
    try:
        return ExportFormat(str(value).strip().lower())
    except ValueError:
        raise ExportFormatError(unknown_format_message(value)) from None


class ExportFormatError(ValueError):
    """The format cannot be told: an unknown `--format`, or an unknown extension without one."""


def format_for_path(path: str) -> ExportFormat:
    """The format a file name asks for by its extension; no extension means txt (Zero's).

    ExportFormatError for any other extension (`x.pdf`): writing text into a file named as
    something else is never what was meant.
    """
    extension = os.path.splitext(path)[1]
    if not extension:
        return ExportFormat.TXT
    found = _FORMAT_BY_EXTENSION.get(extension.lower())
    if found is None:
        raise ExportFormatError(
            f"cannot tell the export format from the extension {extension!r}: use .txt, .md,"
            f" .json or .html, or choose the format ({FORMAT_CHOICES})"
        )
    return found


def unknown_format_message(value: object) -> str:
    return f"unknown export format {value!r} (choose from {', '.join(EXPORT_FORMATS)})"
