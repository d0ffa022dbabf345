"""One contract for Play now's pool (the `QuickPlayPool` port): PostgreSQL's
rows and the memory pool keep one waiting ticket per person and pool, the
longest waiting first, seat and withdraw alike.

The PostgreSQL variant runs on a database of its own: the tests' workers
sweep the session database's pools and would seat these tickets."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import asyncpg
import pytest
import pytest_asyncio

from services.app.ports import NewPlayer
from services.app.ports.quickplay import NewTicket, QuickPlayPool, SeatedTicket
from services.infra.db import create_pool
from services.infra.memory_accounts import MemoryAccounts
from services.infra.memory_quickplay import MemoryQuickPlay
from services.infra.memory_tx import MemoryTransactions
from services.infra.pg import PgTransactions
from services.infra.pg_accounts import PgAccounts
from services.infra.pg_quickplay import PgQuickPlay
from tests.conftest import fresh_database


class QuickPlayPoolContract:
    async def _person(self, accounts: Any) -> str:
        player_id, name = str(uuid.uuid4()), f"qp{uuid.uuid4().hex[:10]}"
        await accounts.insert_player(NewPlayer(player_id, name, "human", os.urandom(32), None, name, name))
        return player_id

    async def _join(self, pool: Any, transactions: Any, player_id: str, game: str = "cahoots", players: int = 4):
        new = NewTicket(str(uuid.uuid4()), player_id, game, players, 25.0)
        async with transactions.transaction() as tx:
            await pool.lock(game, players, tx)
            return await pool.join(new, tx)

    async def test_one_waiting_ticket_per_person_and_pool(self, pool: Any, transactions: Any, accounts: Any) -> None:
        person = await self._person(accounts)
        first = await self._join(pool, transactions, person)
        again = await self._join(pool, transactions, person)
        assert again == first and first.status == "waiting" and first.game_id is None
        other_pool = await self._join(pool, transactions, person, players=3)
        assert other_pool.ticket.ticket_id != first.ticket.ticket_id
        assert await pool.ticket(first.ticket.ticket_id) == first
        assert await pool.ticket(str(uuid.uuid4())) is None
        assert await pool.ticket("not-a-uuid") is None

    async def test_the_longest_waiting_first_seated_and_withdrawn(
        self, pool: Any, transactions: Any, accounts: Any
    ) -> None:
        game = f"g{uuid.uuid4().hex[:6]}"
        people = [await self._person(accounts) for _ in range(3)]
        rows = [await self._join(pool, transactions, p, game, 2) for p in people]
        assert [r.ticket.ticket_id for r in await pool.waiting(game, 2)] == [r.ticket.ticket_id for r in rows]
        assert (await pool.counts())[(game, 2)] == 3
        game_id = str(uuid.uuid4())
        async with transactions.transaction() as tx:
            await pool.seat(
                game_id, [SeatedTicket(rows[0].ticket.ticket_id, 1), SeatedTicket(rows[1].ticket.ticket_id, 0)], tx
            )
            await pool.withdraw(rows[2].ticket.ticket_id, tx)
            await pool.withdraw(rows[0].ticket.ticket_id, tx)  # seated already: stays seated
        seated = await pool.seated_at(game_id)
        assert [(r.ticket.ticket_id, r.seat, r.status, r.game_id) for r in seated] == [
            (rows[1].ticket.ticket_id, 0, "seated", game_id),
            (rows[0].ticket.ticket_id, 1, "seated", game_id),
        ]
        assert (await pool.ticket(rows[2].ticket.ticket_id)).status == "withdrawn"
        assert await pool.waiting(game, 2) == [] and (game, 2) not in await pool.counts()
        # A withdrawn person may wait again: a new ticket.
        back = await self._join(pool, transactions, people[2], game, 2)
        assert back.ticket.ticket_id != rows[2].ticket.ticket_id and back.status == "waiting"
        # An account that goes takes every waiting ticket with it, a seated one stays.
        elsewhere = await self._join(pool, transactions, people[2], game, 3)
        await pool.withdraw_player(people[2])
        await pool.withdraw_player(people[0])
        assert (await pool.ticket(back.ticket.ticket_id)).status == "withdrawn"
        assert (await pool.ticket(elsewhere.ticket.ticket_id)).status == "withdrawn"
        assert (await pool.ticket(rows[0].ticket.ticket_id)).status == "seated"


@pytest.mark.asyncio(loop_scope="session")
class TestMemoryQuickPlay(QuickPlayPoolContract):
    @pytest.fixture
    def accounts(self) -> MemoryAccounts:
        return MemoryAccounts()

    @pytest.fixture
    def pool(self) -> MemoryQuickPlay:
        return MemoryQuickPlay()

    @pytest.fixture
    def transactions(self) -> MemoryTransactions:
        return MemoryTransactions()


@pytest.fixture(scope="module")
def pool_database(servers: tuple[str, str]) -> Iterator[str]:
    with fresh_database(servers[0]) as url:
        yield url


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def pg_pool(pool_database: str) -> AsyncIterator[asyncpg.Pool]:
    pg = await create_pool(pool_database, 3)  # migrates it
    yield pg
    await pg.close()


@pytest.mark.asyncio(loop_scope="session")
class TestPostgresQuickPlay(QuickPlayPoolContract):
    @pytest.fixture
    def accounts(self, pg_pool: asyncpg.Pool) -> PgAccounts:
        return PgAccounts(pg_pool)

    @pytest.fixture
    def pool(self, pg_pool: asyncpg.Pool) -> PgQuickPlay:
        return PgQuickPlay(pg_pool)

    @pytest.fixture
    def transactions(self, pg_pool: asyncpg.Pool) -> PgTransactions:
        return PgTransactions(pg_pool)


def test_both_pools_fit_the_port() -> None:
    adapters: list[QuickPlayPool] = [MemoryQuickPlay(), PgQuickPlay(None)]  # type: ignore[arg-type]
    assert len(adapters) == 2
