"""A content search over what `sessions` lists: the matches ranked and counted in the index,
and only the best of them looked at again.

`zero-tui search` shows the best few of the sessions whose text matches, among those
`zero-tui sessions` lists (one workspace or all; empty runs or not). Every log has been
checked first (the caller's `update_content`), so the text and the resumable verdicts are
the files'. The matches are then ranked (`TextMatches.tiers`, then Zero's order) and
counted from the catalog's rows, without a look at their metadata files; only the best,
a batch at a time until there are enough, are looked at again (`sessions_with_keys`: their
metadata read again if it changed, dropped when gone or unreadable) and filtered as
`sessions` filters them. The counts over the others are the index's: a title or model
changed since it was last read, or a metadata file broken since, is not seen in them
(`exact` says so). A query matching few sessions (`VERIFY_ALL`) has them all looked at
again and counted exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter

from zero_tui.search.catalog import SessionCatalog
from zero_tui.search.metadata_cache import RankingRow
from zero_tui.search.query import Query, TextMatches
from zero_tui.store import Metadata
from zero_tui.store.models import RESUMABLE_KINDS
from zero_tui.store.resumable import ResumeList, filter_resumable, log_is_missing
from zero_tui.store.store import sort_in_zero_order, sort_sessions
from zero_tui.store.workspace import forget_directory_identities, workspace_matches

VERIFY_ALL = 1_000  # matches looked at again all at once, and counted exactly
LOAD_BATCH = 128  # the first batch of the best matches looked at again


@dataclass(frozen=True, slots=True)
class ListingScope:
    """The sessions `zero-tui sessions` would list (its --cwd, --all and --include-empty)."""

    workspace: str
    all_workspaces: bool = False
    include_empty: bool = False


@dataclass(frozen=True, slots=True)
class ScopedMatches:
    """The matching sessions in a listing's scope."""

    sessions: list[Metadata]  # looked at again, in Zero's order: at least the best ones
    matched: int  # every match in the scope
    other_workspace: int  # the matches --all would add
    empty_runs: int  # the matches --include-empty would add
    exact: bool  # every session counted was looked at again (else the counts are the index's)


def scoped_matches(
    catalog: SessionCatalog,
    query: Query,
    matches: TextMatches,
    scope: ListingScope,
    *,
    enough: int,
    rows: dict[int, RankingRow] | None = None,
) -> ScopedMatches:
    """The sessions of `scope` that `matches` holds and `query`'s filters keep, looked at
    again until `enough` of the best are (`search` then ranks them as over every match),
    with the counts of every match. `rows`: the catalog's `ranking_rows`, when the caller
    read them already (since every log was checked)."""
    if len(matches.keys) <= VERIFY_ALL:
        listing = _listed(catalog, query, scope, catalog.sessions_with_keys(matches.keys))
        return ScopedMatches(
            listing.sessions,
            len(listing.sessions),
            listing.other_workspace,
            listing.empty_runs,
            True,
        )
    if rows is None:
        rows = catalog.metadata.ranking_rows()
    matching = [row for key, row in rows.items() if key in matches.keys]
    counted = _Counted.of(catalog, query, scope, matching)
    ranked = _ranked(counted.in_scope, matches)
    in_scope = set(ranked)
    # rows the catalog cannot rank (an ill-typed value) are looked at with the first batch
    unranked = sorted(matches.keys - rows.keys())
    matched, other_workspace, empty_runs = len(ranked), counted.other_workspace, counted.empty
    kept: list[Metadata] = []
    batch = max(LOAD_BATCH, 2 * enough)
    start = 0
    while (unranked or start < len(ranked)) and len(kept) < enough:
        keys = unranked + ranked[start : start + batch]
        unranked = []
        start += batch
        batch *= 2  # a narrow scope keeps few: look further each time
        listing = _listed(catalog, query, scope, catalog.sessions_with_keys(keys))
        kept += listing.sessions
        # what the index counted in the scope, replaced by what the files say
        matched += len(listing.sessions) - sum(key in in_scope for key in keys)
        other_workspace += listing.other_workspace
        empty_runs += listing.empty_runs
    return ScopedMatches(sort_sessions(kept), matched, other_workspace, empty_runs, False)


def _listed(
    catalog: SessionCatalog, query: Query, scope: ListingScope, sessions: list[Metadata]
) -> ResumeList:
    """`filter_resumable` over `sessions`, each verdict checked against its log as it is."""
    return filter_resumable(
        catalog.store,
        scope.workspace,
        all_workspaces=scope.all_workspaces,
        include_empty=scope.include_empty,
        sessions=[meta for meta in sessions if query.keeps(meta)],
        content_check=catalog.has_content,
    )


@dataclass(slots=True)
class _Counted:
    """The matches as `filter_resumable` would sort them, from the catalog's rows."""

    in_scope: list[RankingRow]
    other_workspace: int = 0
    empty: int = 0

    @classmethod
    def of(
        cls, catalog: SessionCatalog, query: Query, scope: ListingScope, rows: list[RankingRow]
    ) -> _Counted:
        """`filter_resumable`'s rules over rows (their verdicts: those resting on the log as
        indexed, else found now)."""
        forget_directory_identities()
        workspaces: dict[str, bool] = {}
        counted = cls([])
        for row in rows:
            if (query.filters and not query.keeps(row)) or row.session_kind not in RESUMABLE_KINDS:
                continue
            elsewhere = False
            if not scope.all_workspaces:
                known = workspaces.get(row.cwd)
                if known is None:
                    known = workspaces[row.cwd] = not workspace_matches(row.cwd, scope.workspace)
                elsewhere = known
            empty = False
            if not scope.include_empty:
                if row.event_count <= 0:
                    empty = True
                else:
                    verdict = row.verdict
                    if verdict is None:
                        verdict = catalog.has_content(row.session_id)
                    empty = not verdict and not log_is_missing(catalog.store, row.session_id)
            if elsewhere and empty:
                continue  # only --all and --include-empty together would list it
            if elsewhere:
                counted.other_workspace += 1
            elif empty:
                counted.empty += 1
            else:
                counted.in_scope.append(row)
        return counted


def _ranked(rows: list[RankingRow], matches: TextMatches) -> list[int]:
    """The keys of `rows`, best first: by `matches.tiers`, then in Zero's order."""
    tiers = matches.tiers

    def tier(row: RankingRow) -> int:
        for number, keys in enumerate(tiers):
            if row.key in keys:
                return number
        return len(tiers)

    ordered = sort_in_zero_order(list(rows), attrgetter("updated_at"), attrgetter("session_id"))
    return [row.key for row in sorted(ordered, key=tier)]
