"""Kabuki house bots: the memory bot (also `heuristic`) against `random`."""

from __future__ import annotations

import random

from engines.kabuki_masks import GAME
from engines.kabuki_masks.actions import Place, Stop
from engines.kabuki_masks.bots import MemoryBot, RandomBot
from engines.playout import play_game
from tests.engines.kabuki_masks.km_helpers import Table


def seat_bot(table: Table, seat: int, bot_name: str = "memory", **options) -> MemoryBot:
    """A bot that has observed the whole log so far, redacted for its seat."""
    bot = GAME.bots[bot_name](seat, GAME.make_options(options))
    assert isinstance(bot, MemoryBot)  # "memory" and "heuristic" both are
    for event in table.log:
        seen = GAME.redact(event, seat)
        if seen is not None:
            bot.observe(seen)
    return bot


def ask(table: Table, bot, seat: int, rng=None):
    return bot.act(GAME.view(table.state, seat), GAME.legal_actions(table.state, seat), rng or random.Random(0))


def test_memory_bot_calls_stop_when_it_remembers_a_match_km2_km4():
    table = Table(3)
    table.place(0, 0)  # card 0 (mask 0)
    table.place(1, 1)
    table.place(2, 0)  # card 2 (mask 0) covers card 0
    bot = seat_bot(table, 0)
    assert ask(table, bot, 0) == Stop(3)


def test_memory_bot_lets_a_placement_pass_without_a_match():
    table = Table(3)
    table.place(0, 0)
    table.place(1, 1)
    bot = seat_bot(table, 0)
    assert ask(table, bot, 0) is None  # may call Stop, knows there is nothing to find


def test_memory_bot_places_where_the_revealed_mask_has_no_twin():
    deck = [0, 5, 10, 1] + [c for c in range(50) if c not in (0, 5, 10, 1)]
    table = Table(2, stop_window_ms=0, decks=(deck,) * 3)
    table.place(0, 0)  # mask 0 on pile 0, now covered below
    table.place(1, 0)  # mask 1 on pile 0
    table.place(0, 1)  # mask 2 on pile 1
    # seat 1 must place card 1 (mask 0): pile 0 hides a mask 0 under its top
    bot = seat_bot(table, 1)
    for seed in range(20):
        assert ask(table, bot, 1, random.Random(seed)) in (Place(1), Place(2), Place(3))


def test_memory_bot_placer_waits_for_the_stop_window():
    """Offered only Stop during the window (legal_actions at a time), the
    memory bot lets the moment pass instead of trying a Place that would be
    refused `too_early` (KM-3); once the window has passed it places."""
    table = Table(2, stop_window_ms=2000)
    table.place(0, 0, now_ms=1_000)
    bot = seat_bot(table, 1)
    view = GAME.view(table.state, 1)
    assert bot.act(view, GAME.legal_actions(table.state, 1, 2_999), random.Random(0)) is None
    assert type(bot.act(view, GAME.legal_actions(table.state, 1, 3_000), random.Random(0))) is Place


def test_memory_bot_joining_late_trusts_the_view():
    table = Table(3)
    table.place(0, 0)
    table.place(1, 0)  # a match, but the bot never saw card 0
    bot = MemoryBot(2)
    assert isinstance(ask(table, bot, 2), Place)  # no Stop on a guess; it places
    assert bot.piles[0] == [None, 1]


def test_bot_memory_option_weakens_the_memory_bot_heuristic_stays_perfect():
    perfect = seat_bot(Table(4), 0, bot_memory="perfect")
    forgetful = seat_bot(Table(4), 0, bot_memory="0.5")
    heuristic = seat_bot(Table(4), 0, "heuristic", bot_memory="0.5")
    assert (perfect.forget, forgetful.forget, heuristic.forget) == (0.0, 0.5, 0.0)
    # forgetting everything costs points against the same opponents
    totals = {}
    for memory in ("perfect", "1"):
        options = GAME.make_options({"stop_window_ms": 0, "bot_memory": memory})
        totals[memory] = sum(
            GAME.result(play_game(GAME, 4, options, seed, ["memory"] + ["random"] * 3).state).scores[0]
            for seed in range(60)
        )
    assert totals["perfect"] > totals["1"]


def test_random_bot_places_anywhere_and_sometimes_calls_stop():
    table = Table(4)
    table.place(0, 0)
    bot = RandomBot(1)
    rng = random.Random(3)
    picks = [bot.act(None, GAME.legal_actions(table.state, 1), rng) for _ in range(2000)]
    assert {p for p in picks if isinstance(p, Place)} == {Place(0), Place(1), Place(2), Place(3)}
    assert 0 < sum(isinstance(p, Stop) for p in picks) < 300
    assert bot.act(None, GAME.legal_actions(table.state, 2), rng) in (None, Stop(1))


def test_heuristic_beats_random_clearly():
    options = GAME.make_options({})
    wins = 0
    games = 300
    for seed in range(games):
        result = GAME.result(play_game(GAME, 4, options, seed, ["heuristic"] + ["random"] * 3).state)
        wins += 0 in result.winners  # a shared win counts as a win
    assert wins / games > 0.8
