"""The chain head a table copy answers with (services/app/games/tables.py):
the hash the store linked at that version, whether this process wrote the
events (the kernel's commit) or caught up on another process's (read back
from the log, as the Redis fan-out carries no event data); a retried
command gets the same head again."""

from __future__ import annotations

import pytest

from services.app.commands import CreateTable, SubmitAction, TakeSeat
from tests.unit.memory_service import MemoryService, first_legal

pytestmark = pytest.mark.asyncio(loop_scope="function")


async def test_answers_carry_the_stores_hash_in_either_process(service: MemoryService) -> None:
    first, second = await service.player(), await service.player()
    table = await service.bus.handle(CreateTable(first, "kabuki-tricks", 2, {}, ranked=False))
    await service.bus.handle(TakeSeat(first, table.game_id))
    await service.bus.handle(TakeSeat(second, table.game_id))
    elsewhere = service.another_process()
    answers = []
    for turn in range(8):
        process = service if turn % 2 else elsewhere
        copy = await process.games.load(table.game_id)
        seat = min(copy.game.waiting_for(copy.state))
        mover = first if copy.seat_of(first.player_id) == seat else second
        move = SubmitAction(mover, table.game_id, first_legal(copy, seat), f"m-{turn}", copy.version)
        answers.append(await process.bus.handle(move))
        assert await process.bus.handle(move) == answers[-1]  # a retry: the same receipt
    stored = {e.version: e.hash for e in await service.stores.events.read(table.game_id)}
    assert all(a.chain_head is not None and a.chain_head == stored[a.version] for a in answers)
    # Each copy knows the head of every version it holds, its own commits and the other's alike.
    for process in (service, elsewhere):
        copy = await process.games.load(table.game_id)
        assert [copy.chain_head(v) for v in sorted(stored)] == [stored[v] for v in sorted(stored)]
    await elsewhere.close()
