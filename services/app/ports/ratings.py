"""The ratings' port: the projection's checkpoint, the finished games it
folds, the `ratings` and `rating_changes` rows it keeps, and the reads of
them (a game's leaderboard, one player's history). The rating math and the
rules (which games count, where the projection waits) stay in
services/app/ratings. Adapters: services/infra/pg_ratings.py (PostgreSQL)
and services/infra/memory_ratings.py; tests/contract holds both to one
suite."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from services.infra.rating_records import FinishedRow, RatingChange, RatingRow

__all__ = ["FinishedRow", "RatingChange", "RatingRow", "RatingStore"]


class RatingStore(Protocol):
    # --- the projection, one batch per transaction ---------------------------

    async def claim_checkpoint(self, tx: Any) -> int:
        """The last position the projection applied (0 the first time), held
        until `tx` ends: one projector at a time, whatever the number of
        workers."""

    async def finished_after(self, position: int, limit: int, tx: Any = None) -> list[FinishedRow]:
        """The first `limit` `hm.game_finished` events past `position`, in
        position order."""

    async def embargoed_ranked(self, game_ids: list[str], tx: Any = None) -> set[str]:
        """Those of `game_ids` that are ranked tables still under a duplicate
        round's embargo."""

    async def ratings_of(self, game: str, rated_ids: list[str], tx: Any = None) -> list[RatingRow]:
        """The kept ratings of `game` among `rated_ids` (none for one never rated)."""

    async def store(self, ratings: list[RatingRow], changes: list[RatingChange], tx: Any = None) -> None:
        """Each rating inserted, or its mu, sigma, games and forfeits updated
        (its kind and name stay the first insert's); each change added."""

    async def move_checkpoint(self, position: int, tx: Any = None) -> None: ...

    # --- the rebuild from the log ---------------------------------------------

    def snapshot(self, write: bool) -> AbstractAsyncContextManager[Any]:
        """`async with store.snapshot(write) as tx:` the log, the ratings and
        the checkpoint as of one moment for every method given `tx`;
        read-only unless `write`."""

    async def checkpoint(self, tx: Any = None) -> int:
        """The last position the projection applied (0 before its first)."""

    def every_finished(self, upto: int | None, tx: Any) -> AsyncIterator[FinishedRow]:
        """Every `hm.game_finished` event (up to position `upto` unless None)
        in position order, streamed (in `tx`, a snapshot)."""

    async def stored_ratings(self, tx: Any = None) -> dict[tuple[str, str], tuple[float, float, int, int]]:
        """(game, rated id) -> (mu, sigma, games, forfeits) of every kept rating."""

    async def count_changes(self, tx: Any = None) -> int: ...

    async def replace_all(
        self, ratings: list[RatingRow], changes: list[RatingChange], position: int, tx: Any = None
    ) -> None:
        """Every rating and change replaced by these, and the checkpoint set to `position`."""

    # --- reads ----------------------------------------------------------------

    async def leaderboard(self, game: str, limit: int) -> list[RatingRow]:
        """The game's 3 × `limit` best ratings of any kind, highest ordinal
        (mu - 3 sigma) first, ties by rated id; named as the players table
        names them now."""

    async def ratings_of_player(self, rated_id: str, game: str | None) -> list[RatingRow]:
        """Its ratings (of `game` only, unless None), named as the players table names it now."""

    async def changes_of(self, rated_id: str, game: str | None) -> list[RatingChange]:
        """Its changes (of `game` only, unless None), in position order."""
