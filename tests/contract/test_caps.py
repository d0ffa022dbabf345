"""One contract for the caps' counts (the `CapCounts` port): the memory
counts and PostgreSQL's, over the same rows a test arranges (tables of a
player, house bots at them, agents, sparring series), answer the same.

The PostgreSQL variant writes players, tables and agents of its own (uuid
ids) into the session database, so the counts of one test never meet
another's."""

from __future__ import annotations

import uuid
from typing import Any, Protocol

import asyncpg
import pytest

from services.app.caps import EXPERT_BOT, SPARRING_CREATION_S, CapPolicy, TooMany
from services.infra.memory_caps import MemoryCapCounts
from services.infra.memory_tx import MemoryTransactions
from services.infra.pg import PgTransactions
from services.infra.pg_caps import PgCapCounts


class Rows(Protocol):
    """What a test arranges, in either store."""

    async def player(self) -> str: ...
    async def table(self, created_by: str, status: str = "open") -> str: ...
    async def bot(self, game_id: str, seat: int, bot: str) -> None: ...
    async def agent(self, owner_id: str, status: str = "active") -> str: ...
    async def sparring(self, agent_id: str, game_ids: list[str], age_s: float = 0.0) -> None: ...


class MemoryRows:
    def __init__(self, counts: MemoryCapCounts) -> None:
        self.counts = counts

    async def player(self) -> str:
        return str(uuid.uuid4())

    async def table(self, created_by: str, status: str = "open") -> str:
        game_id = str(uuid.uuid4())
        self.counts.add_table(game_id, created_by, status)
        return game_id

    async def bot(self, game_id: str, seat: int, bot: str) -> None:
        self.counts.add_bot(game_id, seat, bot)

    async def agent(self, owner_id: str, status: str = "active") -> str:
        agent_id = str(uuid.uuid4())
        self.counts.add_agent(agent_id, owner_id, status)
        return agent_id

    async def sparring(self, agent_id: str, game_ids: list[str], age_s: float = 0.0) -> None:
        self.counts.add_sparring(agent_id, game_ids, age_s)


class PgRows:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    async def player(self) -> str:
        player_id = uuid.uuid4()
        await self.pool.execute(
            "INSERT INTO players (player_id, name, token_hash) VALUES ($1, $2, $3)",
            player_id,
            f"caps-{player_id.hex[:10]}",
            player_id.bytes,
        )
        return str(player_id)

    async def table(self, created_by: str, status: str = "open") -> str:
        game_id = str(uuid.uuid4())
        await self.pool.execute(
            "INSERT INTO games (game_id, game, players, options, ranked, seed, status, created_by)"
            " VALUES ($1::text::uuid, 'cahoots', 4, '{}', false, 1, $2, $3::text::uuid)",
            game_id,
            status,
            created_by,
        )
        return game_id

    async def bot(self, game_id: str, seat: int, bot: str) -> None:
        await self.pool.execute(
            "INSERT INTO seats (game_id, seat, bot) VALUES ($1::text::uuid, $2, $3)", game_id, seat, bot
        )

    async def agent(self, owner_id: str, status: str = "active") -> str:
        agent_id = await self.player()
        await self.pool.execute(
            "INSERT INTO agents (agent_id, owner_id, name, games, mode, status)"
            " VALUES ($1::text::uuid, $2::text::uuid, 'a', '{cahoots}', 'pull', $3)",
            agent_id,
            owner_id,
            status,
        )
        return agent_id

    async def sparring(self, agent_id: str, game_ids: list[str], age_s: float = 0.0) -> None:
        await self.pool.execute(
            "INSERT INTO sparring (sparring_id, agent_id, game, game_ids, seats, created_at)"
            " VALUES ($1, $2::text::uuid, 'cahoots', $3::text[]::uuid[], $4, now() - make_interval(secs => $5))",
            uuid.uuid4(),
            agent_id,
            game_ids,
            [0] * len(game_ids),
            age_s,
        )


class CapCountsContract:
    """A subclass provides `counts`, `rows` and `transactions` fixtures."""

    async def test_open_tables_count_only_the_players_unfinished_tables(self, counts: Any, rows: Rows) -> None:
        me, other = await rows.player(), await rows.player()
        await rows.table(me, "open")
        await rows.table(me, "playing")
        await rows.table(me, "finished")
        await rows.table(me, "cancelled")
        await rows.table(other, "open")
        assert await counts.open_tables(me, None) == 2
        assert await counts.open_tables(await rows.player(), None) == 0

    async def test_bot_seats_count_bots_at_unfinished_tables_and_experts_apart(self, counts: Any, rows: Rows) -> None:
        me = await rows.player()
        playing, done = await rows.table(me, "playing"), await rows.table(me, "finished")
        await rows.bot(playing, 1, "heuristic")
        await rows.bot(playing, 2, EXPERT_BOT)
        await rows.bot(playing, 3, EXPERT_BOT)
        await rows.bot(done, 1, EXPERT_BOT)
        assert await counts.bot_seats(me, EXPERT_BOT, None) == (3, 2)
        assert await counts.bot_seats(await rows.player(), EXPERT_BOT, None) == (0, 0)

    async def test_agents_count_those_not_deleted(self, counts: Any, rows: Rows) -> None:
        me = await rows.player()
        await rows.agent(me)
        await rows.agent(me, "paused")
        await rows.agent(me, "deleted")
        assert await counts.agents(me, None) == 2

    async def test_a_series_runs_while_a_game_is_unfinished_or_it_is_being_created(
        self, counts: Any, rows: Rows
    ) -> None:
        me = await rows.player()
        agent = await rows.agent(me)
        await rows.sparring(agent, [await rows.table(me, "playing"), await rows.table(me, "finished")])
        await rows.sparring(agent, [await rows.table(me, "finished")])
        await rows.sparring(agent, [str(uuid.uuid4())])  # its games not written yet
        await rows.sparring(agent, [str(uuid.uuid4())], age_s=SPARRING_CREATION_S + 60)  # creation failed
        assert await counts.sparring(me, float(SPARRING_CREATION_S), None) == 2

    async def test_the_policy_refuses_the_slot_past_the_cap_and_counts_inside_a_transaction(
        self, counts: Any, rows: Rows, transactions: Any
    ) -> None:
        policy = CapPolicy(open_tables=2).counting(counts)
        me = await rows.player()
        await rows.table(me)
        async with transactions.transaction() as tx:
            await policy.check_open_table(tx, me)  # one held, a second allowed
        await rows.table(me)
        async with transactions.transaction() as tx:
            with pytest.raises(TooMany) as refused:
                await policy.check_open_table(tx, me)
        assert refused.value.code == "too_many_open_tables"


class TestMemoryCapCounts(CapCountsContract):
    @pytest.fixture
    def counts(self) -> MemoryCapCounts:
        return MemoryCapCounts()

    @pytest.fixture
    def rows(self, counts: MemoryCapCounts) -> MemoryRows:
        return MemoryRows(counts)

    @pytest.fixture
    def transactions(self) -> MemoryTransactions:
        return MemoryTransactions()


class TestPostgresCapCounts(CapCountsContract):
    @pytest.fixture
    def counts(self, pool: asyncpg.Pool) -> PgCapCounts:
        return PgCapCounts(pool)

    @pytest.fixture
    def rows(self, pool: asyncpg.Pool) -> PgRows:
        return PgRows(pool)

    @pytest.fixture
    def transactions(self, pool: asyncpg.Pool) -> PgTransactions:
        return PgTransactions(pool)
