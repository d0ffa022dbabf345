"""Play now on the memory adapters, through the bus: people waiting for the
same game are seated together at a ranked, timed table, nearest in rating
first; someone alone gets house bots once the wait ends or at once when they
ask; a second tab holds the same ticket and is seated once; a withdrawn
ticket is seated nowhere; another's ticket is not shown."""

from __future__ import annotations

import msgspec
import pytest

from services.app.commands import JoinQuickPlay, WithdrawQuickPlay
from services.app.errors import Conflict, Forbidden, NotFound, Unprocessable
from services.app.games.quickplay import QuickPlaySettings
from services.app.ports import RatingRow
from tests.unit.memory_service import MemoryService

pytestmark = pytest.mark.asyncio(loop_scope="function")

GAME = "kabuki-tricks"


async def test_two_people_waiting_for_the_same_game_are_seated_together(service: MemoryService) -> None:
    first, second = await service.player(), await service.player()
    waiting = await service.bus.handle(JoinQuickPlay(first, GAME, 2))
    assert (waiting.status, waiting.waiting, waiting.game_id) == ("waiting", 1, None)
    assert waiting.fill_at_ms is not None
    seated = await service.bus.handle(JoinQuickPlay(second, GAME, 2))
    assert seated.status == "seated" and seated.game_id is not None
    mine = await service.quick_play.read(first, waiting.ticket_id)
    assert (mine.status, mine.game_id) == ("seated", seated.game_id)
    assert {mine.seat, seated.seat} == {0, 1}
    table = await service.games.load(seated.game_id)
    assert table.state is not None and table.record.ranked
    assert table.time_control == {"move_ms": 30_000, "bank_ms": 120_000}
    assert {table.seat_of(first.player_id), table.seat_of(second.player_id)} == {0, 1}
    assert (await service.quick_play.pools()).pools == []


async def test_a_second_tab_holds_the_same_ticket_and_is_seated_once(service: MemoryService) -> None:
    person, other = await service.player(), await service.player()
    one = await service.bus.handle(JoinQuickPlay(person, GAME, 2))
    two = await service.bus.handle(JoinQuickPlay(person, GAME, 2))
    assert one.ticket_id == two.ticket_id and two.status == "waiting"  # not paired with themselves
    seated = await service.bus.handle(JoinQuickPlay(other, GAME, 2))
    assert seated.status == "seated"
    assert len(await service.stores.quick_play.seated_at(seated.game_id or "")) == 2


async def test_someone_alone_gets_house_bots_when_the_wait_ends_or_at_once(service: MemoryService) -> None:
    service.quick_play.settings = QuickPlaySettings(fill_after_s=0.0)
    alone = await service.player()
    ticket = await service.bus.handle(JoinQuickPlay(alone, "cahoots", 4))
    assert ticket.status == "seated"
    table = await service.games.load(ticket.game_id or "")
    bots = [h for h in table.seats if h is not None and h.bot is not None]
    assert len(bots) == 3 and table.seat_of(alone.player_id) == ticket.seat
    service.quick_play.settings = QuickPlaySettings(fill_after_s=3600.0)
    hurried = await service.player()
    now = await service.bus.handle(JoinQuickPlay(hurried, GAME, 3, bots_now=True))
    assert now.status == "seated"


async def _rated(service: MemoryService, mu: float):
    who = await service.player()
    await service.ratings.store([RatingRow(GAME, who.player_id, "human", who.name, mu, 2.0, 20, 0)], [])
    return who


async def test_people_far_apart_in_rating_wait_for_a_nearer_one(service: MemoryService) -> None:
    strong, weak, near = await _rated(service, 40.0), await _rated(service, 5.0), await _rated(service, 37.0)
    first = await service.bus.handle(JoinQuickPlay(strong, GAME, 2))
    far = await service.bus.handle(JoinQuickPlay(weak, GAME, 2))
    assert far.status == "waiting" and far.waiting == 2  # 35 apart: not paired yet
    paired = await service.bus.handle(JoinQuickPlay(near, GAME, 2))
    assert paired.status == "seated"
    assert (await service.quick_play.read(strong, first.ticket_id)).game_id == paired.game_id
    assert (await service.quick_play.read(weak, far.ticket_id)).status == "waiting"
    # Once the wait ends, anyone waiting plays (with bots at the empty seats).
    service.quick_play.settings = QuickPlaySettings(fill_after_s=0.0)
    assert (await service.quick_play.read(weak, far.ticket_id)).status == "seated"


async def test_a_withdrawn_ticket_is_seated_nowhere_and_a_seated_one_cannot_withdraw(service: MemoryService) -> None:
    person, other, third = await service.player(), await service.player(), await service.player()
    ticket = await service.bus.handle(JoinQuickPlay(person, GAME, 2))
    gone = await service.bus.handle(WithdrawQuickPlay(person, ticket.ticket_id))
    assert gone.status == "withdrawn"
    alone = await service.bus.handle(JoinQuickPlay(other, GAME, 2))
    assert alone.status == "waiting"
    seated = await service.bus.handle(JoinQuickPlay(third, GAME, 2))
    with pytest.raises(Conflict) as refused:
        await service.bus.handle(WithdrawQuickPlay(third, seated.ticket_id))
    assert refused.value.code == "already_seated"


async def test_refusals_name_the_rule(service: MemoryService) -> None:
    person, other = await service.player(), await service.player()
    with pytest.raises(Unprocessable) as count:
        await service.bus.handle(JoinQuickPlay(person, GAME, 9))
    assert count.value.code == "bad_player_count"
    with pytest.raises(Forbidden):
        await service.bus.handle(JoinQuickPlay(await service.player(kind="agent"), GAME, 2))
    ticket = await service.bus.handle(JoinQuickPlay(person, GAME, 2))
    with pytest.raises(NotFound):
        await service.quick_play.read(other, ticket.ticket_id)  # not another's
    with pytest.raises(NotFound):
        await service.quick_play.read(person, "no-such-ticket")
    assert msgspec.to_builtins(await service.quick_play.pools()) == {
        "pools": [{"game": GAME, "players": 2, "waiting": 1}]
    }
