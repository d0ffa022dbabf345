"""One contract for the tournaments' rows (the `TournamentStore` port): the
memory store and PostgreSQL's list, sweep and name entrants alike.

The PostgreSQL variant runs on a database of its own: a tournament whose
start has come would be started by the other tests' workers."""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any, cast

import asyncpg
import pytest
import pytest_asyncio

from services.app.ports import NewPlayer, NewTable, TournamentStore
from services.app.ports.tournaments import NewTournament
from services.infra.db import create_pool
from services.infra.memory_tournaments import MemoryTournaments
from services.infra.pg import PgTransactions
from services.infra.pg_accounts import PgAccounts
from services.infra.pg_lobby import PgLobby
from services.infra.pg_tournaments import PgTournaments
from tests.conftest import fresh_database

HOUR_MS = 3_600_000


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class TournamentsContract:
    """A subclass provides `rows` and arranges other features' rows."""

    async def add_player(self, rows: Any, name: str, deleted: bool = False) -> str:
        raise NotImplementedError

    async def add_table(self, rows: Any, tournament_id: str, finished: bool) -> str:
        raise NotImplementedError

    async def _tournament(self, rows: Any, start_ms: int, game: str = "cahoots") -> str:
        tournament_id = str(uuid.uuid4())
        await rows.insert_tournament(NewTournament(tournament_id, game, start_ms, None))
        return tournament_id

    async def test_a_new_tournament_is_listed_registering_newest_start_first(self, rows: Any) -> None:
        last = await self._tournament(rows, _now_ms() + 2 * HOUR_MS)
        sooner = await self._tournament(rows, _now_ms() + HOUR_MS, "tezuma-trick")
        listed = [r for r in await rows.listing(None) if r.tournament_id in {last, sooner}]
        assert [r.tournament_id for r in listed] == [last, sooner]
        assert {r.status for r in listed} == {"registering"}
        assert listed[1].game == "tezuma-trick"

    async def test_a_listing_by_status_shows_that_status_only(self, rows: Any) -> None:
        tournament_id = await self._tournament(rows, _now_ms() + HOUR_MS)
        await rows.set_status(tournament_id, "running")
        assert tournament_id in {r.tournament_id for r in await rows.listing("running")}
        assert tournament_id not in {r.tournament_id for r in await rows.listing("registering")}

    async def test_due_are_those_registering_whose_start_has_come(self, rows: Any) -> None:
        due = await self._tournament(rows, _now_ms() - 1_000)
        not_yet = await self._tournament(rows, _now_ms() + HOUR_MS)
        started = await self._tournament(rows, _now_ms() - 1_000)
        await rows.set_status(started, "running")
        found = set(await rows.due_to_start())
        assert due in found and not_yet not in found and started not in found
        assert started in set(await rows.running()) and due not in set(await rows.running())

    async def test_entrants_are_named_as_they_are_now_and_the_deleted_are_gone(self, rows: Any) -> None:
        kept = await self.add_player(rows, f"tn{uuid.uuid4().hex[:8]}")
        gone = await self.add_player(rows, f"tn{uuid.uuid4().hex[:8]}", deleted=True)
        names = {n.player_id: n for n in await rows.entrant_names([kept, gone, str(uuid.uuid4())])}
        assert set(names) == {kept, gone}
        assert not names[kept].gone and names[gone].gone

    async def test_finished_tables_are_the_tournaments_own_finished_ones(self, rows: Any) -> None:
        tournament_id = await self._tournament(rows, _now_ms())
        other = await self._tournament(rows, _now_ms())
        done = await self.add_table(rows, tournament_id, finished=True)
        await self.add_table(rows, tournament_id, finished=False)
        await self.add_table(rows, other, finished=True)
        assert await rows.finished_tables(tournament_id) == [done]


class TestMemoryTournaments(TournamentsContract):
    @pytest.fixture
    def rows(self) -> MemoryTournaments:
        return MemoryTournaments()

    async def add_player(self, rows: Any, name: str, deleted: bool = False) -> str:
        player_id = str(uuid.uuid4())
        rows.add_player(player_id, name, deleted)
        return player_id

    async def add_table(self, rows: Any, tournament_id: str, finished: bool) -> str:
        game_id = str(uuid.uuid4())
        rows.add_table(game_id, tournament_id, "finished" if finished else "playing")
        return game_id


@pytest.fixture(scope="module")
def tournaments_database(servers: tuple[str, str]) -> Iterator[str]:
    with fresh_database(servers[0]) as url:
        yield url


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def pool(tournaments_database: str) -> AsyncIterator[asyncpg.Pool]:
    pool = await create_pool(tournaments_database, 3)  # migrates it
    yield pool
    await pool.close()


@pytest.mark.asyncio(loop_scope="session")
class TestPostgresTournaments(TournamentsContract):
    @pytest.fixture
    def rows(self, pool: asyncpg.Pool) -> PgTournaments:
        return PgTournaments(pool)

    async def add_player(self, rows: Any, name: str, deleted: bool = False) -> str:
        player_id = str(uuid.uuid4())
        accounts = PgAccounts(rows.pool)
        await accounts.insert_player(NewPlayer(player_id, name, "human", os.urandom(32), None, name, name))
        if deleted:
            await rows.pool.execute("UPDATE players SET deleted_at = now() WHERE player_id = $1::text::uuid", player_id)
        return player_id

    async def add_table(self, rows: Any, tournament_id: str, finished: bool) -> str:
        lobby = PgLobby(rows.pool)
        new = NewTable(
            game_id=str(uuid.uuid4()),
            game="cahoots",
            players=4,
            options={},
            ranked=True,
            seed=1,
            tournament_id=tournament_id,
        )
        async with PgTransactions(rows.pool).transaction() as tx:
            assert await lobby.insert_table(new, tx)
        await lobby.set_status(new.game_id, "finished" if finished else "playing")
        return new.game_id


def test_both_stores_fit_the_port() -> None:
    adapters: list[TournamentStore] = [MemoryTournaments(), PgTournaments(cast(asyncpg.Pool, None))]
    assert len(adapters) == 2
