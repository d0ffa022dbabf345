"""Timers are not house bots' work: services/app/games/timers.py
fires a table's due timer whoever sits there, exactly once per version, and a
table of people only ends its Kabuki masks rounds with no house bot and no
driver (KM-5: the deck's last card ends the round once its stop window has
passed). Against a stand-in GameService that applies `on_timer` like the
real one (at the version asked, only when due); the real one over HTTP is
tests/service/test_masks_timing.py."""

from __future__ import annotations

import asyncio

from msgspec.structs import replace

from engines.core import Chance, Ctx
from engines.kabuki_masks.actions import Place
from engines.kabuki_masks.events import RoundEnded, RoundStarted
from engines.registry import get_game
from services.app.games import timers
from services.app.games.service import now_ms
from services.app.games.timers import Timers
from tests.service.test_housebots_sweep import MasksTable

GAME = get_game("kabuki-masks")
WINDOW_MS = 300  # long enough that no loaded machine passes it before the first check


class Games:
    """The part of GameService the timers use: load, and on_timer at a version."""

    timers: Timers  # set by the test, once the Timers around this exist

    def __init__(self, table) -> None:
        self.table = table
        self.fired: list[int] = []  # versions a timer wrote at

    async def load(self, game_id: str):
        return self.table

    async def on_timer(self, game_id: str, at_version: int | None = None) -> None:
        table = self.table
        due = table.game.next_timer(table.state)
        if table.version != at_version or due is None or due > now_ms():
            return
        events = table.game.on_timer(table.state, Ctx(now_ms()))
        if events:
            self.fired.append(table.version)
            table.state = table.game.fold(events, table.state)
            table.events.extend(events)
            table.version += len(events)
            self.timers.on_commit(table, events)


def _last_card_placed():
    """Two people, the first round played down to its last card, just placed now."""
    options = GAME.make_options({"stop_window_ms": WINDOW_MS})
    state = GAME.fold(GAME.start(2, options, Chance(3)))
    at = 0
    while True:
        (placer,) = GAME.waiting_for(state)
        at += WINDOW_MS
        state = GAME.fold(GAME.decide(state, placer, Place(0), Ctx(at)), state)
        if not GAME.waiting_for(state):  # the deck is empty: only the timer moves on
            break
    # The last placement happened just now, by the wall clock the service uses.
    return replace(state, last_at_ms=now_ms()), options


async def test_a_table_of_people_ends_its_masks_round_by_the_timer_alone():
    state, options = _last_card_placed()
    table = MasksTable(state, options, bot_seats=set())
    games = Games(table)
    games.timers = Timers(games)  # no house bots wired: a table of people needs none
    assert not timers.due_now(table)  # the last card's window is still open
    games.timers.on_commit(table, [])
    assert games.timers.pending("g")
    for _ in range(500):
        if not games.timers.pending("g"):
            break
        await asyncio.sleep(0.01)
    assert games.fired == [1], "the round-ending timer fired once, at the version it was due at"
    written = table.events
    assert isinstance(written[0], RoundEnded) and written[0].reason == "deck_empty"
    assert isinstance(written[1], RoundStarted) and written[1].round == 2
    assert not games.timers.pending("g"), "nothing is due while a person places"
    games.timers.on_commit(table, [])
    assert not games.timers.pending("g"), "no task for a window that only makes the placer wait (KM-3)"


async def test_a_timer_waits_for_the_house_bots_to_be_asked_and_fires_only_if_nothing_was_played():
    """KM-5a: the timer asks `bots_asked` first; a move meanwhile (the
    version moved on) means it must not fire at the old version, only after
    the bots were asked at the new one."""
    state, options = _last_card_placed()
    table = MasksTable(state, options, bot_seats=set())
    games = Games(table)
    asked: list[int] = []

    async def bots_asked(t) -> bool:
        asked.append(t.version)
        if len(asked) == 1:
            t.version += 1  # as if a bot had written something meanwhile
        return True

    games.timers = Timers(games, bots_asked=bots_asked)
    games.timers.kick(table)
    for _ in range(500):
        if not games.timers.pending("g"):
            break
        await asyncio.sleep(0.01)
    assert asked == [1, 2], "asked again at the version the table moved to"
    assert games.fired == [2], "fired once, at the newer version, never at the one a move overtook"
