"""House bots: legal play, and the heuristic beats random clearly."""

from __future__ import annotations

from engines.cahoots import GAME
from engines.playout import play_game


def test_heuristic_beats_three_random_bots_clearly():
    options = GAME.make_options({})
    games, wins = 300, 0
    for seed in range(games):
        seat = seed % 4
        bots = ["random"] * 4
        bots[seat] = "heuristic"
        result = GAME.result(play_game(GAME, 4, options, 10_000 + seed, bots).state)
        wins += seat in result.winners  # a shared win counts as a win
    assert wins / games > 0.6, wins / games  # its fair share is 25%


def test_heuristic_plays_whole_games_with_three_players_and_face_values():
    options = GAME.make_options({"face_value_scoring": True})
    for seed in range(5):
        playout = play_game(GAME, 3, options, seed, ["heuristic"] * 3)
        assert GAME.is_over(playout.state)


def test_random_bot_is_blind_and_heuristic_uses_the_view():
    assert GAME.bots["random"](0, GAME.make_options({})).blind is True
    assert not GAME.bots["heuristic"](0, GAME.make_options({})).blind
