"""The worker's sweep (services/app/games/housebots.py) drives a table only when it is
really stalled: a house bot's move is awaited, or a due timer would write
something. A Kabuki masks table waiting on a person's placement, with the
stop window over and bots that could still call Stop (KM-2, optional), is
not stalled: the sweep used to warn "stalled ... driving it from here" and
start a driver for it every 5 s for as long as the person thought."""

from __future__ import annotations

from engines.core import Chance, Ctx
from engines.kabuki_masks.actions import Place
from engines.registry import get_game
from services.app.games.housebots import HouseBots
from services.app.games.tables import GameStream, LobbyRecord, SeatHolder, Table


def _masks_table(human_places: bool, window_ms: int = 150) -> Table:
    game = get_game("kabuki-masks")
    options = game.make_options({"stop_window_ms": window_ms})
    state = game.fold(game.start(3, options, Chance(7)))
    first = next(iter(game.waiting_for(state)))
    # One placement long ago (at 1000 ms): its stop window is long over.
    state = game.fold(game.decide(state, first, Place(0), Ctx(1000)), state)
    placer = next(iter(game.waiting_for(state)))
    seats = [SeatHolder(s, f"p{s}", None, "ann", "human") if (s == placer) == human_places
             else SeatHolder(s, None, "random", "random bot", "bot") for s in range(3)]
    return Table(LobbyRecord("g", game, 3, options, False, 7, "playing", None, seats), GameStream(state=state))


def test_a_masks_table_waiting_on_a_person_is_not_stalled():
    table = _masks_table(human_places=True)
    game, state = table.game, table.state
    # What the sweep used to take for a stall: bots among those who may act
    # (a Stop chance) and a timer whose time has passed...
    assert any(table.bot_for(s) is not None for s in game.to_act(state))
    assert game.next_timer(state) is not None
    # ...yet nothing is due from a bot, and the timer has nothing to do.
    assert not HouseBots.needs_driver(table)


def test_a_masks_table_waiting_on_a_bot_is_stalled_when_nobody_drives_it():
    assert HouseBots.needs_driver(_masks_table(human_places=False))
