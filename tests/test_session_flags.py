"""Pins, tags and the archive (issue 29): zero-tui's own file, keyed by the store's resolved
path and the session id, written atomically under a lock, carried by trash and restore."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import StoreBuilder

from zero_tui.store.fork import fork_session
from zero_tui.store.session_flags import (
    NO_FLAGS,
    SessionFlags,
    flags_path,
    parent_tags,
    parse_tag_changes,
    read_flags,
    tag_problem,
    update_flags,
)
from zero_tui.store.trash import empty_trash, find_trashed, move_to_trash, restore


@pytest.fixture
def builder(make_store: Callable[..., StoreBuilder]) -> StoreBuilder:
    built = make_store("sessions")
    built.add("alpha-1", title="First", cwd="/w")
    built.add("beta-2", title="Second", cwd="/w")
    return built


def pin(flags: SessionFlags) -> SessionFlags:
    return SessionFlags(True, flags.archived, flags.tags)


def test_no_file_reads_as_no_flags(builder: StoreBuilder) -> None:
    book = read_flags(builder.root)
    assert book.of("alpha-1") == NO_FLAGS
    assert book.warning == ""


def test_flags_are_kept_outside_zeros_store_and_metadata(builder: StoreBuilder) -> None:
    before = (builder.root / "alpha-1" / "metadata.json").read_bytes()
    update_flags(builder.root, ["alpha-1"], lambda flags: pin(flags).with_tags(["work"]))
    assert (builder.root / "alpha-1" / "metadata.json").read_bytes() == before
    path = flags_path(builder.root)
    assert builder.root not in path.parents
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert read_flags(builder.root).of("alpha-1") == SessionFlags(True, False, ("work",))


def test_every_spelling_of_a_store_is_one_key(builder: StoreBuilder, tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(builder.root)
    update_flags(link / ".." / "link", ["beta-2"], lambda flags: flags.with_tags(["x"]))
    assert read_flags(builder.root).of("beta-2").tags == ("x",)


def test_a_session_with_no_flags_left_is_dropped(builder: StoreBuilder) -> None:
    update_flags(builder.root, ["alpha-1"], pin)
    update_flags(builder.root, ["alpha-1"], lambda _flags: NO_FLAGS)
    document = json.loads(flags_path(builder.root).read_text())
    assert document["sessions"] == {}


@pytest.mark.parametrize(
    "content",
    [b"{not json", b"[1, 2]", b'{"sessions": 3}', b"\xff\xfe"],
    ids=["truncated", "array", "wrong-type", "not-utf8"],
)
def test_a_damaged_file_reads_as_empty_with_one_warning(
    builder: StoreBuilder, content: bytes
) -> None:
    path = flags_path(builder.root)
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    book = read_flags(builder.root)
    assert book.sessions == {}
    assert "damaged" in book.warning
    assert "\n" not in book.warning
    update_flags(builder.root, ["alpha-1"], pin)  # and a change writes it anew
    assert read_flags(builder.root).of("alpha-1").pinned


def test_a_symlink_or_a_huge_file_is_never_read(builder: StoreBuilder, tmp_path: Path) -> None:
    path = flags_path(builder.root)
    path.parent.mkdir(parents=True)
    target = tmp_path / "elsewhere.json"
    target.write_text('{"sessions": {"alpha-1": {"pinned": true}}}')
    path.symlink_to(target)
    book = read_flags(builder.root)
    assert book.sessions == {}
    assert book.warning
    path.unlink()
    with path.open("wb") as handle:
        handle.truncate(9 * 1024 * 1024)
    assert read_flags(builder.root).warning


def test_entries_of_the_wrong_shape_are_left_out(builder: StoreBuilder) -> None:
    path = flags_path(builder.root)
    path.parent.mkdir(parents=True)
    path.write_text(
        json.dumps(
            {
                "sessions": {
                    "a": {"pinned": "yes", "tags": ["ok", "bad tag", 3]},
                    "b": [],
                    "c": {"archived": True},
                }
            }
        )
    )
    book = read_flags(builder.root)
    assert book.of("a") == SessionFlags(False, False, ("ok",))
    assert book.of("b") == NO_FLAGS
    assert book.of("c").archived


def test_two_processes_never_lose_each_others_tags(builder: StoreBuilder, tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import sys
        from zero_tui.store.session_flags import update_flags
        root, name = sys.argv[1], sys.argv[2]
        for number in range(25):
            update_flags(root, ["alpha-1"], lambda f: f.with_tags([f"{name}{number}"]))
        """
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    writers = [
        subprocess.Popen([sys.executable, "-c", script, str(builder.root), name], env=env)
        for name in ("a", "b")
    ]
    assert [writer.wait() for writer in writers] == [0, 0]
    tags = read_flags(builder.root).of("alpha-1").tags
    assert len(tags) == 50


def test_tag_names_are_checked() -> None:
    assert tag_problem("work") is None
    assert tag_problem("two words") is not None
    assert tag_problem("a,b") is not None
    assert tag_problem("") is not None
    assert tag_problem("x" * 41) is not None
    assert parse_tag_changes(["+work", "-old", "plain"]) == (["work", "plain"], ["old"])
    with pytest.raises(ValueError, match="no spaces, commas"):
        parse_tag_changes(["+a,b"])


def test_tags_are_distinct_regardless_of_case() -> None:
    flags = NO_FLAGS.with_tags(["Work", "alpha"]).with_tags(["work"])
    assert flags.tags == ("alpha", "Work")
    assert flags.with_tags(removed=["WORK"]).tags == ("alpha",)
    assert flags.has_tag("work")


def test_trash_and_restore_keep_the_flags(builder: StoreBuilder) -> None:
    update_flags(builder.root, ["alpha-1"], lambda flags: pin(flags).with_tags(["work"]))
    move_to_trash(builder.store, "alpha-1")
    restore(builder.store, find_trashed(builder.store, "alpha-1"))
    assert read_flags(builder.root).of("alpha-1") == SessionFlags(True, False, ("work",))


def test_emptying_the_trash_forgets_the_flags(builder: StoreBuilder) -> None:
    update_flags(builder.root, ["alpha-1", "beta-2"], pin)
    move_to_trash(builder.store, "alpha-1")
    empty_trash(builder.store)
    book = read_flags(builder.root)
    assert book.of("alpha-1") == NO_FLAGS
    assert book.of("beta-2").pinned


def test_a_fork_starts_bare_and_names_its_parents_tags(builder: StoreBuilder) -> None:
    update_flags(builder.root, ["alpha-1"], lambda flags: pin(flags).with_tags(["work"]))
    fork = fork_session(builder.store, "alpha-1")
    book = read_flags(builder.root)
    assert book.of(fork.session_id) == NO_FLAGS
    assert parent_tags(book, fork.parent_session_id) == " (tags: work)"
    assert parent_tags(book, "beta-2") == ""
