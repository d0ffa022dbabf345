"""The house bots: they play legal moves only, in every option set, and the
heuristic beats random bots clearly."""

from __future__ import annotations

from collections import Counter

import pytest

from engines.playout import Playout, play_game
from engines.tezuma_trick import GAME
from engines.tezuma_trick.bots import HeuristicBot, RandomBot, expected_tricks
from engines.tezuma_trick.events import Played
from tests.engines.tezuma_trick.tt_helpers import cs

OPTIONS = GAME.make_options({})


def test_both_bot_names_are_registered_and_random_is_blind():
    assert set(GAME.bots) >= {"random", "heuristic"}
    assert RandomBot.blind and HeuristicBot.observes


@pytest.mark.parametrize(
    "raw",
    [
        {},
        {"pain_face_value": True, "redeal_each_hand": True},
        {"bid_cards": [{"tricks": [n, n + 1, n + 2], "points": 2 + n // 2} for n in range(0, 10, 2)]},
    ],
)
@pytest.mark.parametrize("players", [3, 4])
def test_heuristic_bots_play_whole_games_legally(players, raw):
    options = GAME.make_options(raw)
    for seed in range(3):
        playout = play_game(GAME, players, options, seed, ["heuristic"] * players)  # refusals would raise
        assert GAME.is_over(playout.state)


def test_random_bot_uses_abilities():
    playout = play_game(GAME, 4, OPTIONS, 8, ["random"] * 4)
    used = Counter(e.ability for e in playout.log if isinstance(e, Played) and e.ability)
    assert sum(used.values()) >= 8


def test_heuristic_estimates_strong_hands_above_weak_ones():
    strong = cs("B9 B8 U9 U8 F9 M9 BT1 UT1 FT1 MT1 F8 M8")
    weak = cs("B1 B2 B3 U1 U2 U3 F1 F2 F3 M1 M2 M3")
    assert expected_tricks(strong, 4) > 5 > 1 > expected_tricks(weak, 4)


def test_heuristic_beats_random_bots_clearly():
    """300 fixed-seed 4-player games, heuristic at seat 0 against three random
    bots: a fair share is 25% of the wins (a shared win counts as a win)."""
    wins = 0
    for seed in range(300):
        playout = Playout(GAME, 4, OPTIONS, seed, ["heuristic", "random", "random", "random"])
        playout.run()
        wins += 0 in GAME.result(playout.state).winners
    assert wins / 300 > 0.5
