"""A timed table's deadlines on the memory adapters: each person's turn
queues its move_deadline job (name, arguments and job id as the workers
take them) due after the move time and the bank, and the job, run as the
worker runs it (a PlayDefaultMove through the bus), plays the default move
once and spends the person's bank."""

from __future__ import annotations

import asyncio
import time

import pytest

from services.app.commands import CreateTable, PlayDefaultMove, TakeSeat
from services.app.games.events import MovePlayedForSeat
from services.app.ports import SeatRow
from services.infra import keys as K
from tests.unit.memory_service import MemoryService

pytestmark = pytest.mark.asyncio(loop_scope="function")

TIMED = {"move_ms": 20_000, "bank_ms": 60_000}


async def _armed(service: MemoryService, game_id: str, version: int) -> list:
    # The subscriber spawns the enqueue: let it run (a task, no time passes).
    for _ in range(100):
        found = [j for j in service.jobs.queued.values() if j.args[:2] == (game_id, version)]
        if found:
            return found
        await asyncio.sleep(0)
    return []


async def test_a_persons_turn_queues_its_deadline_and_the_job_plays_for_them_once(service: MemoryService) -> None:
    first, second = await service.player(), await service.player()
    table = await service.bus.handle(CreateTable(first, "kabuki-tricks", 2, {}, False, TIMED))
    await service.bus.handle(TakeSeat(first, table.game_id))
    started = time.time()
    await service.bus.handle(TakeSeat(second, table.game_id))
    [job] = await _armed(service, table.game_id, table.version)
    seat = min(table.game.waiting_for(table.state))
    assert job.job == K.JOB_MOVE_DEADLINE and job.args == (table.game_id, table.version, seat)
    assert job.job_id == K.deadline_job_id(table.game_id, table.version, seat)
    # Due after the move time and the whole bank (people have the bank their time control says).
    assert started + 79 <= job.due_s <= time.time() + 81
    # The worker's move_deadline: a PlayDefaultMove at the job's version, run twice.
    version = table.version
    assert await service.bus.handle(PlayDefaultMove(table.game_id, seat, "timeout", due_version=version))
    assert not await service.bus.handle(PlayDefaultMove(table.game_id, seat, "timeout", due_version=version))
    played = [e for e in table.events if isinstance(e, MovePlayedForSeat)]
    assert [(e.seat, e.reason, e.strikes) for e in played] == [(seat, "timeout", 1)]
    outcome = table.stream.commands[(seat, K.auto_command_id(seat, version))]
    assert outcome.bank_drawn_ms == TIMED["bank_ms"]  # the default move spent what was left


async def test_house_bot_seats_get_no_deadline(service: MemoryService) -> None:
    host = await service.player()
    table = await service.bus.handle(CreateTable(host, "kabuki-tricks", 2, {}, False, TIMED))
    await service.stores.lobby.insert_seats(table.game_id, [SeatRow(1, None, "random")])
    await service.bus.handle(TakeSeat(host, table.game_id))
    assert table.state is not None
    # The bot plays until it is the person's turn, which queues a deadline.
    for _ in range(1_000):
        if service.jobs.queued:
            break
        await asyncio.sleep(0)
    seats = {j.args[2] for j in service.jobs.queued.values()}
    assert seats == {table.seat_of(host.player_id)}
