"""Duplicate tournaments play one deal at several tables: a finished table's
log stays withheld (no end, no result, no export, no seed) until the
tournament lifts the embargo when its round ends."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from services.config import Settings
from services.runtime import Runtime
from services.tables import SeatHolder
from tests.service.client import ApiClient, SseReader

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_a_finished_duplicate_table_is_withheld_until_the_embargo_lifts(server, database_url, redis_url):
    runtime = await Runtime.open(Settings(database_url=database_url, redis_url=redis_url))
    try:
        game_id = str(uuid.uuid4())
        seats = [SeatHolder(s, None, "random", "random bot", "bot") for s in range(4)]
        # House bots play it out in this process, as a worker would.
        table = await runtime.games.create_seated(
            game_id, "kabuki-tricks", {}, False, 12345, seats, tournament_id=str(uuid.uuid4()), embargoed=True,
        )
        for _ in range(600):
            if table.over:
                break
            await asyncio.sleep(0.05)
        assert table.over and table.ended_at is not None
        ended_at, final = table.ended_at, table.version

        anon = ApiClient(server.base_url)
        info = (await anon.get(f"/api/v1/games/{game_id}")).json()
        assert info["result"] is None and info["view"]["seed"] is None
        export = await anon.get(f"/api/v1/games/{game_id}/export")
        assert export.status_code == 409 and export.json()["code"] == "results_embargoed"
        events = (await anon.get(f"/api/v1/games/{game_id}/events", after=0)).json()["events"]
        assert events and events[-1]["version"] == ended_at - 1
        assert not any(e["event"]["type"].endswith("game_ended") for e in events)
        r = await anon.get(f"/api/v1/games/{game_id}/replay", at=final, seat=1)
        assert r.status_code == 400
        spectator = SseReader(server.base_url, game_id).start()
        await asyncio.sleep(1.5)
        assert not spectator.ended.is_set()
        assert max(m["version"] for m in spectator.game_events) <= ended_at - 1

        # The round has ended everywhere: the tournament lifts the embargo.
        await runtime.pool.execute("UPDATE games SET embargoed = false WHERE game_id = $1::text::uuid", game_id)
        await asyncio.wait_for(spectator.ended.wait(), 10)
        await spectator.stop()
        assert spectator.game_events[-1]["version"] == final
        export = await anon.get(f"/api/v1/games/{game_id}/export")
        assert export.status_code == 200 and len(export.text.splitlines()) == final
        assert (await anon.get(f"/api/v1/games/{game_id}")).json()["result"] is not None
    finally:
        await runtime.close()
