"""A tournament table's result reads the tournament stream once
(it was read about four times: the job's load, the command's refresh, the
follow-up's load of the tables), whether the result comes from its job
(`record_table`) or from the worker's sweep (`reconcile`), which loads each
running tournament once and passes that copy along."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest

import engines.tournament as tn
from services.app.tournaments.service import table_game_id
from services.bootstrap import Runtime
from services.config import Settings

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def _play_out(runtime: Runtime, game_id: str) -> None:
    """House bots play their seats in this process; a person's seat gets
    default moves until a house bot takes it over (its strikes)."""
    table = await runtime.games.load(game_id)
    for _ in range(4000):
        if table.over:
            return
        for seat in list(table.game.waiting_for(table.state)):
            holder = table.seats[seat]  # a started game's seats are all held
            if holder is not None and holder.bot is None:
                await runtime.games.play_for_seat(game_id, seat, "timeout", due_version=table.version)
        await asyncio.sleep(0.01)
    raise AssertionError(f"{game_id} did not end")


def _count_reads(runtime: Runtime, stream_id: str) -> list[int]:
    calls = [0]
    read = runtime.store.read

    async def counted(sid: str, *args, **kwargs):
        calls[0] += sid == stream_id
        return await read(sid, *args, **kwargs)

    runtime.store.read = counted  # type: ignore[method-assign,assignment]  # a spy on this one store's reads
    return calls


async def test_a_result_reads_the_tournament_stream_once(database_url, redis_url):
    runtime = await Runtime.open(Settings(database_url=database_url, redis_url=redis_url, table_bot_delay_ms=0))
    try:
        tag = uuid.uuid4().hex[:8]
        people = [(await runtime.players.register(f"reads-{tag}-{n}"))[0] for n in range(2)]
        start_ms = int(time.time() * 1000) + 1500
        loaded = await runtime.tournaments.create(
            None,
            {
                "game": "kabuki-tricks",
                "start_ms": start_ms,
                "table_size": 4,
                "format": "swiss",
                "rounds": 1,
                "bots": "fill",
                "fill_to": 8,
                "ranked": False,
            },
        )
        tid = loaded.tournament_id
        for person in people:
            await runtime.tournaments.register(person, tid)
        await asyncio.sleep(max(0.0, start_ms / 1000 - time.time()) + 0.1)
        assert await runtime.tournaments.start(tid)
        state = (await runtime.tournaments.load(tid)).state
        first, second = (table_game_id(tid, 1, t.table) for t in state.tables)
        for game_id in (first, second):
            await _play_out(runtime, game_id)

        reads = _count_reads(runtime, tid)
        events = await runtime.tournaments.record_table(first)
        assert [type(e) for e in events] == [tn.TableFinished]
        assert reads[0] == 1, f"{reads[0]} reads of the tournament stream for one result"

        reads[0] = 0
        # The sweep finds the second table finished and not recorded: the
        # round and the tournament end, on the copy it loaded once.
        await runtime.pool.execute("UPDATE games SET status = 'finished' WHERE game_id = $1::text::uuid", second)
        assert (await runtime.tournaments.reconcile())["recorded"] >= 1
        assert reads[0] == 1, f"{reads[0]} reads of the tournament stream in one sweep"
        assert (await runtime.tournaments.load(tid)).state.status == "finished"
        assert (
            await runtime.pool.fetchval("SELECT status FROM tournaments WHERE tournament_id = $1::text::uuid", tid)
            == "finished"
        )
    finally:
        await runtime.close()
