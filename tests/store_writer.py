"""A second process that changes a store as an agent elsewhere would, for the live picker's
end-to-end tests: Zero's format through the store layer, one locked append per event.

    python tests/store_writer.py STORE OPERATION...

Each operation is one argument, its parts separated by `::`:

    continue::ID::N           N more events (a prompt, then answers), one append each
    create::ID::CWD::TITLE    a new session with a prompt and an answer
    rename::ID::TITLE         the title, as /rename writes it
    remove::ID                the session's folder, as `rm -rf` would
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from zero_tui.store import SessionStore


def append_one_by_one(store: SessionStore, session_id: str, texts: list[tuple[str, str]]) -> None:
    for role, text in texts:
        store.append_events(session_id, [("message", {"role": role, "content": text})])


def run(store: SessionStore, operation: str) -> None:
    kind, *parts = operation.split("::")
    if kind == "continue":
        session_id, count = parts[0], int(parts[1])
        texts = [("user", "continued by the writer")]
        texts += [("assistant", f"answer {number} of the writer") for number in range(1, count)]
        append_one_by_one(store, session_id, texts)
    elif kind == "create":
        session_id, cwd, title = parts
        store.create(session_id, cwd=cwd, title=title, model_id="gpt-5", provider="openai")
        append_one_by_one(
            store, session_id, [("user", "made by the writer"), ("assistant", "hello there")]
        )
    elif kind == "rename":
        store.update_title(parts[0], parts[1])
    elif kind == "remove":
        shutil.rmtree(store.session_dir(parts[0]))
    else:
        raise SystemExit(f"unknown operation: {operation}")


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        raise SystemExit(__doc__)
    store = SessionStore(Path(argv[0]))
    for operation in argv[1:]:
        run(store, operation)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
