"""The worker's sweep drives a table only when it is really stalled: a house
bot's move is awaited (services/app/games/housebots.py), or a due timer would
write something (services/app/games/timers.py). A Kabuki masks table waiting
on a person's placement, with the stop window over and bots that could still
call Stop (KM-2, optional), is not stalled: the sweep used to warn "stalled
... driving it from here" and start a driver for it every 5 s for as long as
the person thought."""

from __future__ import annotations

from engines.core import Chance, Ctx
from engines.kabuki_masks.actions import Place
from engines.registry import get_game
from services.app.games import timers
from services.app.games.housebots import HouseBots

GAME = get_game("kabuki-masks")


class MasksTable:
    """What the sweep's checks and the timers read of a live table
    (services/app/games/tables.py): a Kabuki masks game at `state`, the seats
    in `bot_seats` held by house bots."""

    game_id = "g"
    game = GAME

    def __init__(self, state, options, bot_seats: set[int]) -> None:
        self.state, self.version = state, 1
        self.events: list = []
        self._bots = {seat: GAME.bots["random"](seat, options) for seat in bot_seats}

    @property
    def over(self) -> bool:
        return GAME.is_over(self.state)

    def bot_for(self, seat: int):
        return self._bots.get(seat)


def _placed_once(window_ms: int = 150):
    options = GAME.make_options({"stop_window_ms": window_ms})
    state = GAME.fold(GAME.start(3, options, Chance(7)))
    first = next(iter(GAME.waiting_for(state)))
    # One placement long ago (at 1000 ms): its stop window is long over.
    state = GAME.fold(GAME.decide(state, first, Place(0), Ctx(1000)), state)
    return state, options, next(iter(GAME.waiting_for(state)))


def test_a_masks_table_waiting_on_a_person_is_not_stalled():
    state, options, placer = _placed_once()
    table = MasksTable(state, options, bot_seats={0, 1, 2} - {placer})
    game = table.game
    # What the sweep used to take for a stall: bots among those who may act
    # (a Stop chance) and a timer whose time has passed...
    assert any(table.bot_for(s) is not None for s in game.to_act(state))
    assert game.next_timer(state) is not None
    # ...yet nothing is due from a bot, and the timer has nothing to do.
    assert not HouseBots.needs_driver(table)
    assert not timers.due_now(table)


def test_a_masks_table_waiting_on_a_bot_is_stalled_when_nobody_drives_it():
    state, options, placer = _placed_once()
    assert HouseBots.needs_driver(MasksTable(state, options, bot_seats={placer}))
