"""Abandoning ranked games has a price (services/app/fairplay.py): the
first abandonment in a while costs only its game; each repeat soon after
closes ranked play for 10 minutes, doubling, at most 48 hours, one repeat
forgiven per quiet day. Over the bus on the memory adapters: a person who
left two ranked games is refused Play now, a ranked table and a ranked
seat with `ranked_cooldown` and its end, while unranked play stays open."""

from __future__ import annotations

import asyncio

import pytest

from services.app.commands import CreateTable, JoinQuickPlay, LeaveTable, SeatBot, TakeSeat
from services.app.errors import Forbidden
from services.app.fairplay import FIRST_COOLDOWN_S, MAX_COOLDOWN_S, cooldown_until
from tests.unit.memory_service import MemoryService

GAME = "kabuki-tricks"
HOUR = 3600.0


def test_the_first_abandonment_is_free_and_repeats_double_up_to_48_hours() -> None:
    assert cooldown_until([]) is None
    assert cooldown_until([1000.0]) is None
    assert cooldown_until([1000.0, 2000.0]) == 2000.0 + FIRST_COOLDOWN_S
    assert cooldown_until([1000.0, 2000.0, 3000.0]) == 3000.0 + 2 * FIRST_COOLDOWN_S
    many = [i * 60.0 for i in range(20)]
    assert cooldown_until(many) == many[-1] + MAX_COOLDOWN_S


def test_quiet_days_forgive_one_repeat_each() -> None:
    # Two abandonments a day apart: the second is forgiven back to a first.
    assert cooldown_until([0.0, 25 * HOUR]) is None
    # Three close together, then two quiet days: the next costs 10 minutes, not 40.
    at = [0.0, 60.0, 120.0, 120.0 + 49 * HOUR]
    assert cooldown_until(at) == at[-1] + FIRST_COOLDOWN_S


async def _leave_a_ranked_game(service: MemoryService, person) -> str:
    table = await service.bus.handle(CreateTable(person, GAME, 2, {}, ranked=True, bot_delay_ms=0))
    await service.bus.handle(TakeSeat(person, table.game_id, 0))
    await service.bus.handle(SeatBot(person, table.game_id, 1, "random"))
    await service.bus.handle(LeaveTable(person, table.game_id))
    await asyncio.wait_for(service.finished(table.game_id), 30)
    row = await service.stores.lobby.table(table.game_id)
    for _ in range(100):  # the lobby row is marked finished by a task the last commit spawns
        if row is not None and row.status == "finished":
            break
        await asyncio.sleep(0.01)
        row = await service.stores.lobby.table(table.game_id)
    assert row is not None and row.status == "finished"
    return table.game_id


@pytest.mark.asyncio(loop_scope="function")
async def test_two_ranked_games_left_close_ranked_play_and_not_unranked(service: MemoryService) -> None:
    person = await service.player()
    await _leave_a_ranked_game(service, person)
    record = await service.fair_play.completion(person.player_id)
    assert (record.ranked_games, record.abandoned, record.completion_rate) == (1, 1, 0.0)
    assert record.cooldown_until_ms is None, "the first abandonment costs only its game"
    await _leave_a_ranked_game(service, person)
    record = await service.fair_play.completion(person.player_id)
    assert record.abandoned == 2 and record.cooldown_until_ms is not None
    for command in (JoinQuickPlay(person, GAME, 3), CreateTable(person, GAME, 3, {}, ranked=True)):
        with pytest.raises(Forbidden) as refused:
            await service.bus.handle(command)
        assert refused.value.code == "ranked_cooldown"
        assert refused.value.extra["until_ms"] == record.cooldown_until_ms
        assert "ranked play opens again at" in refused.value.message
    other = await service.player()
    ranked = await service.bus.handle(CreateTable(other, GAME, 2, {}, ranked=True))
    with pytest.raises(Forbidden):
        await service.bus.handle(TakeSeat(person, ranked.game_id))
    assert ranked.seats == [None, None], "a refusal changes nothing"
    unranked = await service.bus.handle(CreateTable(person, GAME, 2, {}, ranked=False))
    assert unranked.record.created_by == person.player_id
    # Someone who finished their games is not held back.
    assert (await service.fair_play.completion(other.player_id)).completion_rate is None
