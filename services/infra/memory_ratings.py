"""The ratings in memory (the `RatingStore` port): what PostgreSQL's
`projections`, `ratings` and `rating_changes` rows hold, for use cases
tested without a database. tests/contract holds it to PgRatings' behaviour.

What PostgreSQL reads from other features' tables is read from the memory
stores that keep them: the finished games from a MemoryEventStore, whether
a table is ranked and embargoed from a MemoryLobby, players' names now from
a MemoryAccounts. One projector at a time is MemoryTransactions' lock."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import msgspec

from services.infra.memory_accounts import MemoryAccounts
from services.infra.memory_eventstore import MemoryEventStore
from services.infra.memory_lobby import MemoryLobby
from services.infra.rating_records import FinishedRow, RatingChange, RatingRow

_FINISHED = "hm.game_finished"
_PAGE = 1000


class MemoryRatings:
    def __init__(
        self, events: MemoryEventStore, lobby: MemoryLobby | None = None, accounts: MemoryAccounts | None = None
    ) -> None:
        self.events = events
        self.accounts = accounts or MemoryAccounts()
        self.lobby = lobby or MemoryLobby(events, self.accounts)
        self.position: int | None = None  # the projection's row; None until it first runs
        self.ratings: dict[tuple[str, str], RatingRow] = {}
        self.changes: dict[tuple[int, str], RatingChange] = {}  # by (position, rated id), the primary key

    async def _finished(self, after: int, upto: int | None = None) -> AsyncIterator[FinishedRow]:
        while page := await self.events.read_all(after, _PAGE):
            for position, stream_id, _version, kind, data in page:
                if upto is not None and position > upto:
                    return
                if kind == _FINISHED:
                    yield FinishedRow(position, stream_id, data)
            after = page[-1][0]

    def _named(self, row: RatingRow) -> RatingRow:
        player = self.accounts.players.get(row.rated_id) if row.kind != "bot" else None
        return row if player is None else msgspec.structs.replace(row, name=player.name)

    # --- the projection -------------------------------------------------------

    async def claim_checkpoint(self, tx: Any) -> int:
        if self.position is None:
            self.position = 0
        return self.position

    async def finished_after(self, position: int, limit: int, tx: Any = None) -> list[FinishedRow]:
        found: list[FinishedRow] = []
        async for row in self._finished(position):
            if len(found) == limit:
                break
            found.append(row)
        return found

    async def embargoed_ranked(self, game_ids: list[str], tx: Any = None) -> set[str]:
        tables = self.lobby.tables
        return {g for g in game_ids if (t := tables.get(g)) is not None and t.embargoed and t.new.ranked}

    async def ratings_of(self, game: str, rated_ids: list[str], tx: Any = None) -> list[RatingRow]:
        return [r for i in dict.fromkeys(rated_ids) if (r := self.ratings.get((game, i))) is not None]

    async def store(self, ratings: list[RatingRow], changes: list[RatingChange], tx: Any = None) -> None:
        for change in changes:  # the primary key, checked before any write
            if (change.position, change.rated_id) in self.changes:
                raise KeyError(f"a change at {change.position} for {change.rated_id} exists")
        for row in ratings:
            kept = self.ratings.get((row.game, row.rated_id))
            if kept is not None:  # ON CONFLICT: the first insert's kind and name stay
                row = msgspec.structs.replace(row, kind=kept.kind, name=kept.name)
            self.ratings[(row.game, row.rated_id)] = row
        for change in changes:
            self.changes[(change.position, change.rated_id)] = change

    async def move_checkpoint(self, position: int, tx: Any = None) -> None:
        if self.position is not None:  # an UPDATE of the projection's row
            self.position = position

    # --- the rebuild ----------------------------------------------------------

    @asynccontextmanager
    async def snapshot(self, write: bool) -> AsyncIterator[None]:
        yield None

    async def checkpoint(self, tx: Any = None) -> int:
        return self.position or 0

    async def every_finished(self, upto: int | None, tx: Any) -> AsyncIterator[FinishedRow]:
        async for row in self._finished(0, upto):
            yield row

    async def stored_ratings(self, tx: Any = None) -> dict[tuple[str, str], tuple[float, float, int, int]]:
        return {key: (r.mu, r.sigma, r.games, r.forfeits) for key, r in self.ratings.items()}

    async def count_changes(self, tx: Any = None) -> int:
        return len(self.changes)

    async def replace_all(
        self, ratings: list[RatingRow], changes: list[RatingChange], position: int, tx: Any = None
    ) -> None:
        self.ratings, self.changes = {}, {}
        await self.store(ratings, changes)
        self.position = position

    # --- reads ----------------------------------------------------------------

    async def leaderboard(self, game: str, limit: int) -> list[RatingRow]:
        rows = sorted(
            (r for (g, _), r in self.ratings.items() if g == game), key=lambda r: (-(r.mu - 3 * r.sigma), r.rated_id)
        )
        return [self._named(r) for r in rows[: limit * 3]]

    async def ratings_of_player(self, rated_id: str, game: str | None) -> list[RatingRow]:
        return [self._named(r) for (g, i), r in self.ratings.items() if i == rated_id and (game is None or g == game)]

    async def changes_of(self, rated_id: str, game: str | None) -> list[RatingChange]:
        mine = [c for c in self.changes.values() if c.rated_id == rated_id and (game is None or c.game == game)]
        return sorted(mine, key=lambda c: c.position)
