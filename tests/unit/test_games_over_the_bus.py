"""The game rules of the service layer, through the message bus on the
memory adapters (tests/unit/memory_service.py): seating and the deal,
command ids, version conflicts and catch-up between processes, leaving,
cancelling, strikes, embargo, a bot table played to its end. The same
handlers answer the HTTP routes; tests/service drives them over real
processes."""

from __future__ import annotations

import asyncio

import pytest

from services.app.commands import (
    CancelTable,
    CreateSeatedTable,
    CreateTable,
    LeaveTable,
    PlayDefaultMove,
    SeatBot,
    SubmitAction,
    TakeSeat,
)
from services.app.errors import Conflict, Forbidden
from services.app.games.events import GameFinished, MovePlayedForSeat, SeatHandedToBot
from services.app.games.tables import engine_events
from services.app.seats import SeatHolder
from tests.unit.memory_service import MemoryService, first_legal

pytestmark = pytest.mark.asyncio(loop_scope="function")

GAME = "kabuki-tricks"


async def _two_seated(service: MemoryService):
    """A dealt two-seat table of two people: (table, first, second)."""
    first, second = await service.player(), await service.player()
    table = await service.bus.handle(CreateTable(first, GAME, 2, {}, ranked=True))
    await service.bus.handle(TakeSeat(first, table.game_id))
    await service.bus.handle(TakeSeat(second, table.game_id))
    return table, first, second


def _to_act(table) -> int:
    return min(table.game.waiting_for(table.state))


async def test_a_table_is_dealt_when_its_last_seat_is_taken(service: MemoryService) -> None:
    host, guest = await service.player(), await service.player()
    table = await service.bus.handle(CreateTable(host, GAME, 3, {}, ranked=False))
    await service.bus.handle(TakeSeat(host, table.game_id))
    await service.bus.handle(SeatBot(host, table.game_id, None, "random"))
    assert table.state is None and (await service.stores.lobby.seats(table.game_id))[0] == "open"
    with pytest.raises(Conflict) as taken:
        await service.bus.handle(TakeSeat(guest, table.game_id, seat=1))
    assert taken.value.code == "seat_taken"
    await service.bus.handle(TakeSeat(guest, table.game_id))
    assert table.state is not None and table.version > 0
    assert (await service.stores.lobby.seats(table.game_id))[0] == "playing"
    with pytest.raises(Forbidden):
        await service.bus.handle(SeatBot(guest, table.game_id, None, "random"))


async def test_a_retried_command_id_gets_its_first_answer_and_ids_are_per_seat(service: MemoryService) -> None:
    table, first, second = await _two_seated(service)
    seat = _to_act(table)
    mover = first if table.seat_of(first.player_id) == seat else second
    move = SubmitAction(mover, table.game_id, first_legal(table, seat), "c-1")
    answer = await service.bus.handle(move)
    version = table.version
    assert await service.bus.handle(move) == answer and table.version == version  # nothing written twice
    other = second if mover is first else first
    while _to_act(table) == seat:  # on to the other seat's turn
        await service.bus.handle(PlayDefaultMove(table.game_id, seat, "timeout", table.version, strike_limit=99))
    version = table.version
    # The other seat's "c-1" is its own, never blocked (nor answered) by the first seat's.
    assert table.seat_of(other.player_id) == _to_act(table)
    again = await service.bus.handle(SubmitAction(other, table.game_id, first_legal(table, _to_act(table)), "c-1"))
    assert again.version > version and again != answer


async def test_a_stale_expected_version_is_refused_and_changes_nothing(service: MemoryService) -> None:
    table, first, second = await _two_seated(service)
    seat = _to_act(table)
    mover = first if table.seat_of(first.player_id) == seat else second
    version = table.version
    with pytest.raises(Conflict) as stale:
        await service.bus.handle(SubmitAction(mover, table.game_id, first_legal(table, seat), "c", version - 1))
    assert stale.value.code == "version_conflict" and table.version == version
    assert await service.stores.events.version(table.game_id) == version


async def test_another_process_catches_up_before_it_decides(service: MemoryService) -> None:
    table, first, second = await _two_seated(service)
    elsewhere = service.another_process()
    seat = _to_act(table)
    mover = first if table.seat_of(first.player_id) == seat else second
    await service.bus.handle(SubmitAction(mover, table.game_id, first_legal(table, seat), "here"))
    # The other process's copy was loaded before that move or after it:
    # either way it decides on the log as it stands now.
    copy = await elsewhere.games.load(table.game_id)
    assert copy.version == table.version and copy.state == table.state
    seat = _to_act(copy)
    mover = first if copy.seat_of(first.player_id) == seat else second
    accepted = await elsewhere.bus.handle(
        SubmitAction(mover, table.game_id, first_legal(copy, seat), "there", copy.version)
    )
    assert accepted.version > table.version  # the first process's copy is behind now
    await service.games.load(table.game_id)
    assert table.version == accepted.version
    await elsewhere.close()


async def test_leaving_frees_the_seat_before_the_deal_and_hands_it_to_a_bot_after(service: MemoryService) -> None:
    host, guest = await service.player(), await service.player()
    table = await service.bus.handle(CreateTable(host, GAME, 2, {}, ranked=True))
    await service.bus.handle(TakeSeat(guest, table.game_id))
    await service.bus.handle(LeaveTable(guest, table.game_id))
    assert table.seats == [None, None] and await service.stores.lobby.seats(table.game_id) == ("open", [])
    await service.bus.handle(TakeSeat(host, table.game_id))
    await service.bus.handle(TakeSeat(guest, table.game_id))
    seat = table.seat_of(guest.player_id)
    await service.bus.handle(LeaveTable(guest, table.game_id))
    handed = [e for e in table.events if isinstance(e, SeatHandedToBot)]
    assert [(e.seat, e.bot) for e in handed] == [(seat, "heuristic")]
    await service.bus.handle(LeaveTable(guest, table.game_id))  # again: nothing more happens
    assert len([e for e in table.events if isinstance(e, SeatHandedToBot)]) == 1


async def test_only_the_creator_cancels_and_a_cancelled_table_seats_nobody(service: MemoryService) -> None:
    host, guest = await service.player(), await service.player()
    table = await service.bus.handle(CreateTable(host, GAME, 2, {}, ranked=False))
    with pytest.raises(Forbidden):
        await service.bus.handle(CancelTable(guest, table.game_id))
    await service.bus.handle(CancelTable(host, table.game_id))
    assert await service.stores.lobby.seats(table.game_id) == ("cancelled", [])
    with pytest.raises(Conflict) as cancelled:
        await service.bus.handle(TakeSeat(guest, table.game_id))
    assert cancelled.value.code == "table_cancelled"
    dealt, first, _ = await _two_seated(service)
    with pytest.raises(Conflict) as started:
        await service.bus.handle(CancelTable(first, dealt.game_id))
    assert started.value.code == "already_started"


async def test_missed_turns_strike_and_the_limit_hands_the_seat_to_a_bot(service: MemoryService) -> None:
    table, _, _ = await _two_seated(service)
    seat = _to_act(table)
    struck = await service.bus.handle(PlayDefaultMove(table.game_id, seat, "timeout", table.version - 1))
    assert not struck  # due at a version the table has left: nothing happens
    assert await service.bus.handle(PlayDefaultMove(table.game_id, seat, "timeout", table.version, strike_limit=2))
    while seat not in table.game.waiting_for(table.state):  # the other seat defaults too, unstruck by limit
        other = _to_act(table)
        await service.bus.handle(PlayDefaultMove(table.game_id, other, "timeout", table.version, strike_limit=99))
    assert await service.bus.handle(PlayDefaultMove(table.game_id, seat, "timeout", table.version, strike_limit=2))
    strikes = [e.strikes for e in table.events if isinstance(e, MovePlayedForSeat) and e.seat == seat]
    assert strikes[:2] == [1, 2]
    assert [e.seat for e in table.events if isinstance(e, SeatHandedToBot)] == [seat]


async def test_a_bot_table_plays_to_its_end_and_its_lobby_row_is_finished(service: MemoryService) -> None:
    seats = [SeatHolder(i, None, "random", "random bot", "bot") for i in range(3)]
    table = await service.bus.handle(
        CreateSeatedTable("00000000-0000-4000-8000-000000000001", GAME, {}, False, 11, seats)
    )
    await service.finished(table.game_id)
    finished = [e for e in table.events if isinstance(e, GameFinished)]
    assert len(finished) == 1 and table.over
    assert table.game.is_over(table.game.fold(engine_events(table.events)))
    # The row is written by a task spawned at the last commit: let it run.
    for _ in range(100):
        row = await service.stores.lobby.table(table.game_id)
        if row is not None and row.status == "finished":
            break
        await asyncio.sleep(0)
    assert row is not None and row.status == "finished" and row.finished_at is not None


async def test_an_embargoed_table_is_disclosed_once_its_tournament_lifts_it(service: MemoryService) -> None:
    seats = [SeatHolder(i, None, "random", "random bot", "bot") for i in range(2)]
    game_id = "00000000-0000-4000-8000-000000000002"
    table = await service.bus.handle(
        CreateSeatedTable(game_id, GAME, {}, True, 5, seats, tournament_id="t-1", embargoed=True)
    )
    await service.finished(game_id)
    await service.games.check_embargo(table)
    assert table.record.embargo
    await service.stores.lobby.lift_embargo("t-1")
    await service.games.check_embargo(table)
    assert not table.record.embargo
