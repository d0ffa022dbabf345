"""Migration 010: seats are found by player without reading the whole table
(the pull agent's rescans, "My games")."""

from __future__ import annotations

import pytest

from services.infra.db import create_pool

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_a_players_seats_are_read_through_an_index(database_url):
    pool = await create_pool(database_url, 1)
    try:
        async with pool.acquire() as conn, conn.transaction():
            # With sequential scans priced out, the planner takes an index
            # when one exists; without it the plan is still a Seq Scan.
            await conn.execute("SET LOCAL enable_seqscan = off")
            plan = "\n".join(
                r[0]
                for r in await conn.fetch(
                    "EXPLAIN SELECT s.game_id, s.seat FROM seats s"
                    " WHERE s.player_id = '00000000-0000-0000-0000-000000000001'::uuid"
                )
            )
        assert "seats_by_player" in plan, plan
    finally:
        await pool.close()
