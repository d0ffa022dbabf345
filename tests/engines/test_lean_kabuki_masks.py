"""Kabuki masks' lean playout state (engines/kabuki_masks/lean.py) played side
by side with the real engine: the same moves are legal, the same move does
the same thing (KM-1..KM-6), the lean heuristic picks what the engine's
`heuristic` bot picks, and the lean playout scores a move exactly as
ExpertBot._playout does through the engine."""

from __future__ import annotations

import dataclasses
import random

import pytest

from engines.expert import ExpertBot
from engines.kabuki_masks import GAME, lean
from engines.kabuki_masks.actions import Place, Stop
from engines.kabuki_masks.bots import MemoryBot
from engines.kabuki_masks.expert import SEARCH
from engines.kabuki_masks.rules import may_place_at_ms
from engines.playout import Playout

# stop_window_ms 0 is the bot tables' KM-5a case; the window changes only time, which the lean state leaves out.
TABLES = [(players, window) for players in range(2, 7) for window in (0, 2000)]


def _as_int(action) -> int:
    return lean.STOP if type(action) is Stop else action.pile


def _same(g: lean.Lean, s) -> None:
    assert g.round == s.round and g.over == s.over
    assert g.tokens == list(s.tokens) and g.banked == list(s.banked)  # KM-4, KM-6
    assert g.piles == [list(p) for p in s.piles]
    assert (g.revealed, g.placer, g.placements) == (s.revealed, s.placer, s.placements)
    assert (g.last_seat, g.called) == (s.last_seat, s.called)
    for seat in range(s.players):
        engine = {_as_int(a) for a in GAME.legal_actions(s, seat)}
        assert set(lean.legal(g, seat)) == engine, (seat, s)


def _side_by_side(players: int, window: int, seed: int, bots: list[str]) -> int:
    options = GAME.make_options({"stop_window_ms": window})
    checked = []
    mirror: list[lean.Lean] = []

    def hook(before, seat, action, events, after):
        if before is None:
            mirror.append(lean.from_state(after))
        elif seat is None:
            assert lean.timer(mirror[0])
        else:
            lean.act(mirror[0], seat, _as_int(action))
        _same(mirror[0], after)
        checked.append(1)

    game = Playout(GAME, players, options, seed, bots, hook=hook)
    game.run()
    assert mirror[0].over and mirror[0].banked == [int(x) for x in GAME.result(game.state).scores]
    return len(checked)


@pytest.mark.parametrize("players,window", TABLES)
def test_random_and_heuristic_games_agree_step_by_step(players, window):
    steps = 0
    for seed in range(12):
        # random bots call Stop without a match (KM-4's returned token, a last token lost, KM-5);
        # heuristics call only on matches; a mix plays both against each other.
        bots = ["random", "heuristic"] * 3
        kind = seed % 3
        seats = ["random"] * players if kind == 0 else ["heuristic"] * players if kind == 1 else bots[:players]
        steps += _side_by_side(players, window, 1000 * players + seed, seats)
    assert steps > 12 * 3 * 20


def test_a_drifting_rule_is_caught(monkeypatch):
    """The side-by-side check fails if the lean rules drift (here KM-4's no-match penalty)."""

    def lenient(g, seat):
        g.called = True  # a Stop that costs nothing

    monkeypatch.setattr(lean, "stop", lenient)
    with pytest.raises(AssertionError):
        for seed in range(6):
            _side_by_side(4, 2000, seed, ["random"] * 4)


def _positions(players: int, window: int, seed: int):
    """Every state of a game of heuristic and random bots, with its clock."""
    options = GAME.make_options({"stop_window_ms": window})
    out = []

    def hook(before, seat, action, events, after):
        if not after.over:
            out.append(after)

    Playout(GAME, players, options, seed, (["heuristic", "random"] * 3)[:players], hook=hook).run()
    return out


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_the_lean_heuristic_picks_what_the_engine_heuristic_picks(players):
    compared = stops = 0
    for n, s in enumerate(_positions(players, 2000, players)):
        g = lean.from_state(s)
        due = may_place_at_ms(s)
        # In the stop window (no Place offered) and once it is over.
        for now, may_place in ((s.last_at_ms, due is None), (due if due is not None else s.last_at_ms, True)):
            for seat in sorted(GAME.to_act(s)):
                legal = GAME.legal_actions(s, seat, now)
                if not legal:
                    continue
                bot = MemoryBot(seat)
                bot.piles = [list(p) for p in s.piles]  # perfect memory: everything seen
                engine = bot.act(GAME.view(s, seat), legal, random.Random(n))
                mine = lean.heuristic(g, seat, random.Random(n), may_place)
                assert (None if engine is None else _as_int(engine)) == mine, (seat, s)
                compared += 1
                stops += mine == lean.STOP
    assert compared > 100 and stops > 3


ENGINE_SEARCH = dataclasses.replace(SEARCH, lean_playout=None)


@pytest.mark.parametrize("players,horizon", [(2, 1), (3, 1), (4, 1), (5, 1), (6, 1), (4, 3)])
def test_the_lean_playout_equals_the_engine_playout(players, horizon):
    """For the same world, action and seed: the same lead and steps (the
    lean rng draws mirror the engine path's: the chance seats' shuffle, the
    heuristic's pile choice), and the same refusals."""
    search = dataclasses.replace(ENGINE_SEARCH, horizon=horizon)
    options = GAME.make_options({})
    compared = refused = 0
    positions = _positions(players, 2000, 50 + players)
    sample = 40 if horizon == 1 else 12  # a whole game per playout costs more
    for n, s in enumerate(positions[:: max(1, len(positions) // sample)]):
        for seat in range(players):
            bot = ExpertBot(GAME, search, seat, options)
            candidates = [Stop(s.placements), Stop(None), Stop(s.placements - 1)] + [Place(p) for p in range(4)]
            for action in candidates:
                before = bot.steps
                engine = bot._playout(s, action, 7 * n + seat)
                mine = lean.playout(s, seat, action, 7 * n + seat, options, horizon)
                if engine is None:
                    assert mine is None, (seat, action, s)
                    refused += 1
                    continue
                assert mine == (engine, bot.steps - before), (seat, action, s)
                compared += 1
    assert compared > sample and refused > sample
