"""The lean playout state (engines/kabuki_tricks/lean.py, lean_bot.py) played
side by side with the real engine: the same legal moves in the same order,
the same state after every move, the same scores; the lean heuristic picks
what the engine's `heuristic` bot picks; the expert's lean playout gives
exactly the engine playout's lead and step count (no rule draws from the
playout's rng, and HeuristicBot ignores its rng, so exact equality holds)."""

from __future__ import annotations

import random

import pytest

from engines.core import Chance, Ctx
from engines.expert import ExpertBot, Search
from engines.kabuki_tricks import GAME
from engines.kabuki_tricks.actions import Adjust, Direct, Joker, Play
from engines.kabuki_tricks.cards import SUITS
from engines.kabuki_tricks.expert import SEARCH, lean_playout, to_action, to_move
from engines.kabuki_tricks.lean import CONFIGS, apply, from_state, legal, new_game, random_game
from engines.kabuki_tricks.lean_bot import heuristic
from engines.kabuki_tricks.state import OVER
from tests.engines.expert_runs import clockless_run

# Every player count with the options that change rules: KT-14's penalties,
# KT-13's second seat after a dummy win.
VARIANTS: list[tuple[int, dict[str, object]]] = [
    (2, {}),
    (2, {"second_after_dummy_win": "same_order", "failed_predictions": True}),
    (3, {}),
    (3, {"toxic_number": True}),
    (4, {}),
    (4, {"failed_predictions": True, "toxic_number": True}),
    (5, {}),
    (5, {"failed_predictions": True, "toxic_number": True}),
]
IDS = [f"{n}p-{'-'.join(o) or 'default'}" for n, o in VARIANTS]


def _same(lean, state) -> None:
    """Everything the lean state keeps agrees with the engine's state."""
    assert (lean.phase, lean.round, lean.dealer, lean.turn) == (state.phase, state.round, state.dealer, state.turn)
    assert CONFIGS[lean.config] == (state.high, state.order)
    assert lean.hands == [list(h) for h in state.hands]
    assert (lean.trick, lean.trick_seats) == (list(state.trick), list(state.trick_seats))
    assert (lean.trick_no, lean.second) == (state.trick_no, state.second)
    assert lean.tricks_won == list(state.tricks_won)
    assert (lean.placed, lean.predictions) == (list(state.placed), list(state.predictions))
    assert lean.scores == list(state.scores)


def _game(players: int, options, seed: int):
    state = GAME.fold(GAME.new_game(players, options, Chance(seed=seed)))
    return state, from_state(state)


def _play_both(state, lean, action):
    events = GAME.decide(state, state.turn, action, Ctx(0))
    apply(lean, to_move(action))
    return GAME.fold(events, state)


@pytest.mark.parametrize("players,opts", VARIANTS, ids=IDS)
def test_random_games_agree_move_by_move(players, opts):
    options = GAME.make_options(opts)
    rng = random.Random(players * 1000 + len(opts))
    for seed in range(12):
        state, lean = _game(players, options, seed)
        while not GAME.is_over(state):
            actions = GAME.legal_actions(state, state.turn)
            moves = legal(lean)
            assert list(moves) == [to_move(a) for a in actions]  # the same moves, in the same order
            assert [to_action(m) for m in moves] == actions
            state = _play_both(state, lean, actions[int(rng.random() * len(actions))])
            _same(lean, state)
        assert lean.phase == OVER
        assert lean.scores == [int(x) for x in GAME.result(state).scores]


@pytest.mark.parametrize("players,opts", VARIANTS, ids=IDS)
def test_the_lean_heuristic_picks_what_the_engines_picks(players, opts):
    """Heuristic games with some random moves mixed in (positions the bot
    would not reach by itself): at every move both bots are asked, and both
    keep their zero-tricks plan (KT-3) alike."""
    options = GAME.make_options(opts)
    rng = random.Random(7 + players)
    asked = 0
    for seed in range(10):
        state, lean = _game(players, options, 500 + seed)
        bots = [GAME.bots["heuristic"](s, options) for s in range(players)]
        zero = [False] * players
        while not GAME.is_over(state):
            seat = state.turn
            actions = GAME.legal_actions(state, seat)
            want = bots[seat].act(GAME.view(state, seat), actions, random.Random(0))
            got = heuristic(lean, zero)
            assert to_action(got) == want, (seed, state.round, state.trick_no, seat)
            assert zero[seat] == bots[seat].zero_mode
            asked += 1
            action = want if rng.random() < 0.8 else actions[int(rng.random() * len(actions))]
            state = _play_both(state, lean, action)
    assert asked > 200 * players


def _engine_playout(state, seat, action, seed, options):
    """`ExpertBot._playout` through the engine: (lead, steps) or None."""
    plain = Search(determinize=SEARCH.determinize, round_of=SEARCH.round_of, scores=SEARCH.scores)
    bot = ExpertBot(GAME, plain, seat, options)
    lead = bot._playout(state, action, seed)
    return None if lead is None else (lead, bot.steps)


@pytest.mark.parametrize("players,opts", VARIANTS, ids=IDS)
def test_the_lean_playout_is_the_engine_playout(players, opts):
    """For every candidate at sampled positions of heuristic games (the Director's
    48 included), and for actions the engine refuses."""
    options = GAME.make_options(opts)
    rng = random.Random(31 + players)
    compared = refused = 0
    for seed in range(2):
        state, lean = _game(players, options, 900 + seed)
        bots = [GAME.bots["heuristic"](s, options) for s in range(players)]
        while not GAME.is_over(state):
            seat = state.turn
            actions = GAME.legal_actions(state, seat)
            if len(actions) > 1 and rng.random() < 0.4:
                # Up to 8 candidates a position (the Director has 48): the engine playouts are slow.
                for action in rng.sample(actions, min(8, len(actions))):
                    got = lean_playout(state, seat, action, 5, options)
                    assert got == _engine_playout(state, seat, action, 5, options), action
                    assert got is not None
                    compared += 1
                others = [Play(card=c) for c in range(40) if c not in state.hands[seat]][:3]
                others += [
                    Joker(actor="green", prediction=2, adjust=Adjust(flip=True, swap=1)),
                    Joker(actor="blue", prediction=0),
                    Joker(actor=None, prediction=2),
                    Direct(high=True, order=("green", "green", "orange", "blue")),
                ]
                for action in others:
                    if to_move(action) in legal(lean):
                        continue
                    assert lean_playout(state, seat, action, 5, options) is None
                    assert _engine_playout(state, seat, action, 5, options) is None
                    refused += 1
            action = bots[seat].act(GAME.view(state, seat), actions, rng)
            state = _play_both(state, lean, action)
    assert compared > 50 and refused > 10


def test_a_clockless_expert_decides_alike_with_the_lean_playout():
    """The service's tables run the expert without a clock: the lean playout
    counts its steps as the engine's does, so every decision and every step
    spent is the same with or without it."""
    plain = Search(determinize=SEARCH.determinize, round_of=SEARCH.round_of, scores=SEARCH.scores)
    runs = [clockless_run(GAME, search, 1, 4, 23, worlds=2) for search in (SEARCH, plain)]
    assert runs[0] == runs[1]
    assert runs[0][2] == 0 and sum(runs[0][0]) > 1000


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_lean_random_game_is_an_engine_random_game(players):
    """`random_game` replayed on the engine: the same deal (new_game's draws,
    handed to the engine as fixed chance), then the rng's picks by position."""
    options = GAME.make_options({"toxic_number": players == 3})
    for seed in range(5):
        rng = random.Random(seed)
        lean = new_game(players, options, rng)
        high, order = CONFIGS[lean.config]
        fixed = {"first-dealer": [lean.dealer], "high-low": [high], "actors": [SUITS[s] for s in order]}
        fixed.update({f"round-{r + 1}": deck for r, deck in enumerate(lean.decks)})
        state = GAME.fold(GAME.new_game(players, options, Chance(seed=1, fixed=fixed)))
        while not GAME.is_over(state):
            actions = GAME.legal_actions(state, state.turn)
            state = GAME.fold(GAME.decide(state, state.turn, actions[int(rng.random() * len(actions))], Ctx(0)), state)
        assert random_game(players, options, random.Random(seed)) == list(state.scores)
