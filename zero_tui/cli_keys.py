"""The `keys` subcommand: every command's binding id, its keys and where they work.

Imported by `zero_tui.cli` only when it runs (see its `implemented_in`): the registry and
the user's config.toml are read here, not by `sessions` or `search`.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from zero_tui.cli import EXIT_OK, PROG, _table
from zero_tui.json_output import write_json_array
from zero_tui.preferences import binding_rows, config_path, load_preferences
from zero_tui.text.sanitize import sanitize_line


def cmd_keys(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    preferences = load_preferences()
    for problem in preferences.problems:
        err.write(f"{PROG}: {sanitize_line(problem)}\n")
    rows = binding_rows(preferences.keymap)
    if args.json:
        write_json_array(
            [
                {
                    "id": row.binding_id,
                    "where": row.context,
                    "keys": list(row.keys),
                    "defaultKeys": list(row.default_keys),
                    "rebound": row.keys != row.default_keys,
                    "runs": list(row.titles),
                }
                for row in rows
            ],
            out,
        )
        return EXIT_OK
    table = [
        [
            row.binding_id,
            ", ".join(row.keys) + (" *" if row.keys != row.default_keys else "") or "-",
            row.context,
            " / ".join(row.titles),
        ]
        for row in rows
    ]
    lines = _table(["ID", "KEYS", "WHERE", "RUNS"], table)
    out.writelines(line + "\n" for line in lines)
    rebound = any(row.keys != row.default_keys for row in rows)
    note = f"* your key, from {config_path()}" if rebound else f"rebind in {config_path()}"
    out.write(f'\n{sanitize_line(note)}: [keys] ID = "KEY"\n')
    return EXIT_OK
