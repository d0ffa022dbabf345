"""Tezuma Trick's lean playout state (engines/tezuma_trick/lean.py,
lean_bot.py and lean_random.py) side by side with the engine: the
same legal moves in the same order, the same effects, the same heuristic
choices and the same playout outcomes; and the random game's shortcuts
against the lean state's own moves. Any rule the lean state gets wrong
shows up here."""

from __future__ import annotations

import dataclasses
import random

import pytest

from engines.expert import ExpertBot
from engines.playout import Playout
from engines.tezuma_trick import GAME
from engines.tezuma_trick.actions import Egg, Play, Sand
from engines.tezuma_trick.expert import SEARCH, determinize
from engines.tezuma_trick.lean import DONE, Lean
from engines.tezuma_trick.lean_bot import action_of, heuristic_move, lean_playout, move_of
from engines.tezuma_trick.lean_random import lean_random_game, shuffled
from engines.tezuma_trick.state import OVER

OPTIONS = {
    "default": {},
    "pain_face_value": {"pain_face_value": True},  # TT-2
    "redeal_each_hand": {"redeal_each_hand": True},  # TT-3
    # TT-1: another Bid set (wide ranges, a 0-point card, counts past 7).
    "bid_cards": {
        "bid_cards": [
            {"tricks": [0, 1], "points": 2},
            {"tricks": [2], "points": 6},
            {"tricks": [3, 4, 5], "points": 0},
            {"tricks": [6, 7, 8], "points": 5},
            {"tricks": [9, 10, 11, 12], "points": 9},
            {"tricks": [1, 3, 5], "points": 4},
        ]
    },
}

_FIELDS = (
    "phase",
    "pick_no",
    "open_pains",
    "open_bids",
    "open_abilities",
    "pain",
    "bid",
    "ability",
    "uses",
    "hands",
    "shown",
    "trick_no",
    "queue",
    "plays",
    "led",
    "egged",
    "special",
    "suit_cost",
    "tricks",
    "pained",
    "scores",
)


def _snapshot(lean: Lean) -> dict:
    out = {name: getattr(lean, name) for name in _FIELDS}
    out["plays"] = [tuple(play) for play in out["plays"]]
    return out


def _same(lean: Lean, state) -> None:
    """The running lean state is what the engine's state reads as, field by
    field, and agrees with the engine on whose turn it is."""
    if state.phase == OVER or lean.phase == DONE:
        assert list(state.scores) == lean.scores
        return
    assert _snapshot(lean) == _snapshot(Lean.from_state(state))
    assert [tuple(lean.hand(seat)) for seat in range(lean.players)] == list(state.hands)
    assert lean.tricks == list(state.tricks) and lean.scores == list(state.scores)
    assert {lean.to_move()} - {-1} == set(GAME.to_act(state))


def _side_by_side(players: int, options, seed: int, bots: str) -> int:
    """One engine game (its bots choose) with the lean state following every
    move; the number of moves checked."""
    lean = Lean(players, options)
    moves = 0

    def deal_like(state) -> None:
        hand = state.hand_no
        lean.deal(state.dealer, state.decks[hand - 1], state.bid_rows[hand - 1], state.ability_rows[hand - 1])

    def hook(before, seat, action, events, after) -> None:
        nonlocal moves
        if seat is None:  # the start: the first deal
            deal_like(after)
        else:
            engine_legal = [move_of(a) for a in GAME.legal_actions(before, seat)]
            assert lean.legal() == engine_legal  # same moves, same order (the heuristic keeps the first best)
            # (the lean moves are the engine's, so each is an int: no None)
            assert [move_of(action_of(m)) for m in lean.legal()] == engine_legal
            move = move_of(action)
            assert move is not None
            lean.apply(move)
            moves += 1
            if lean.phase == DONE:
                assert lean.scores == list(after.scores)  # the hand's scoring (TT-1, TT-2)
                if after.phase != OVER:
                    deal_like(after)
        _same(lean, after)

    playout = Playout(GAME, players, options, seed, [bots] * players, hook=hook)
    playout.run()
    assert lean.scores == [int(s) for s in GAME.result(playout.state).scores]
    return moves


@pytest.mark.parametrize("name", sorted(OPTIONS))
@pytest.mark.parametrize("players", [3, 4])
def test_random_games_play_the_same_on_both(players, name):
    options = GAME.make_options(OPTIONS[name])
    moves = sum(_side_by_side(players, options, seed, "random") for seed in range(12))
    assert moves > 12 * players * (3 * 3 + 12 * players)  # every draft pick and every card


@pytest.mark.parametrize("players", [3, 4])
def test_heuristic_games_play_the_same_on_both(players):
    options = GAME.make_options({})
    assert sum(_side_by_side(players, options, seed, "heuristic") for seed in range(4))


def _positions(players: int, options, seeds, bots: str, every: int):
    """Positions (state, seat) from engine games, every `every`-th move."""
    for seed in seeds:
        playout = Playout(GAME, players, options, seed, [bots] * players)
        step = 0
        while playout.step():
            step += 1
            seats = GAME.to_act(playout.state)
            if seats and step % every == 0:
                yield playout.state, min(seats)


def _ability_used(action) -> str | None:
    kind = type(action)
    return action.ability if kind is Play else {Egg: "paper_egg", Sand: "five_color_sand"}.get(kind)


def _engine_heuristic(state, seat):
    bot = GAME.bots["heuristic"](seat, state.options)
    SEARCH.prime([bot], state)  # what it would remember of this hand
    return bot.act(GAME.view(state, seat), GAME.legal_actions(state, seat), random.Random(0))


@pytest.mark.parametrize("bots", ["random", "heuristic"])
@pytest.mark.parametrize("players", [3, 4])
def test_the_lean_heuristic_picks_what_the_engine_bot_picks(players, bots):
    """Exactly: the bot draws nothing from its rng. Random games offer
    abilities at many of their positions (Paper Egg, Five-Color Sand, Fire
    Breathing returns); positions with one legal move say nothing."""
    options = GAME.make_options({})
    checked, abilities = 0, set()
    for state, seat in _positions(players, options, range(3), bots, 2):
        lean = Lean.from_state(state)
        legal = lean.legal()
        if len(legal) > 1:
            assert action_of(heuristic_move(lean, seat, legal)) == _engine_heuristic(state, seat)
            checked += 1
            abilities.update(_ability_used(action_of(move)) for move in legal)
    assert checked > 100
    assert len(abilities - {None}) >= (8 if bots == "random" else 3), abilities


def _engine_playout(state, seat, action, seed):
    """ExpertBot._playout through the engine: (lead, steps counted)."""
    bot = ExpertBot(GAME, dataclasses.replace(SEARCH, lean_playout=None), seat, state.options)
    lead = bot._playout(state, action, seed)
    return None if lead is None else (lead, bot.steps)


@pytest.mark.parametrize("players", [3, 4])
def test_lean_playouts_equal_the_engine_playouts(players):
    """The same lead and step count for the legal actions of positions of
    heuristic games; None for an action the engine refuses."""
    options = GAME.make_options({"pain_face_value": players == 3})
    rng = random.Random(players)
    compared = 0
    for state, seat in _positions(players, options, range(2), "heuristic", 13):
        for action in GAME.legal_actions(state, seat)[:6]:
            seed = rng.getrandbits(32)
            assert lean_playout(state, seat, action, seed, options) == _engine_playout(state, seat, action, seed)
            compared += 1
        other = (seat + 1) % players  # not its turn: refused by both
        action = GAME.legal_actions(state, seat)[0]
        assert lean_playout(state, other, action, 0, options) is None is _engine_playout(state, other, action, 0)
    assert compared > 40


def test_lean_playouts_in_the_experts_worlds():
    """Worlds folded from `determinize` (hidden cards sampled) play out the
    same on both."""
    options = GAME.make_options({})
    rng = random.Random(3)
    compared = 0
    playout = Playout(GAME, 4, options, 11, ["random"] * 4)
    while playout.step() and compared < 60:
        state = playout.state
        seats = GAME.to_act(state)
        if not seats or state.phase != "play" or len(playout.log) % 5:
            continue
        seat = min(seats)
        events = [e for e in (GAME.redact(e, seat) for e in playout.log) if e is not None]
        world = GAME.fold(determinize(events, seat, GAME.view(state, seat), rng))
        for action in GAME.legal_actions(world, seat)[:4]:
            seed = rng.getrandbits(32)
            assert lean_playout(world, seat, action, seed, options) == _engine_playout(world, seat, action, seed)
            compared += 1
    assert compared >= 60


@pytest.mark.parametrize("name", sorted(OPTIONS))
@pytest.mark.parametrize("players", [3, 4])
def test_lean_random_games_are_whole_games(players, name, monkeypatch):
    """`simulate --calibrate`'s lean figure plays `players` hands of 12
    tricks, each dealt by the next seat: a seat's total is at most the best
    Bid card's points per hand, and the same rng plays the same game."""
    options = GAME.make_options(OPTIONS[name])
    dealers, tricks = [], []
    deal, trick_won = Lean.deal, Lean._trick_won

    def counted_deal(self, dealer, *args):
        dealers.append(dealer)
        deal(self, dealer, *args)

    def counted_trick(self):
        tricks.append(self.trick_no)
        trick_won(self)

    monkeypatch.setattr(Lean, "deal", counted_deal)
    monkeypatch.setattr(Lean, "_trick_won", counted_trick)
    scores = lean_random_game(players, options, random.Random(5))
    top = max(card.points for card in options.bid_cards)
    assert [(d - dealers[0]) % players for d in dealers] == list(range(players))  # the dealer rotates
    assert tricks == list(range(1, 13)) * players
    assert len(scores) == players and all(0 <= s <= top * players for s in scores)
    assert lean_random_game(players, options, random.Random(5)) == scores


def _reference_random_game(players: int, options, rng: random.Random) -> list[int]:
    """`lean_random_game` as its docstring defines it: every move drawn
    from `Lean.legal()` and made by `Lean.apply`."""
    face_up = 5 if players == 4 else 4  # TT-3
    lean = Lean(players, options)
    deck = list(lean.deck)
    dealer = int(rng.random() * players)
    rows = None
    for _ in range(players):
        if rows is None or options.redeal_each_hand:
            rows = (rng.sample(range(len(options.bid_cards)), face_up), rng.sample(range(12), face_up))
        shuffled(deck, rng.random)
        lean.deal(dealer, deck, *rows)
        while lean.phase != DONE:
            legal = lean.legal()
            lean.apply(legal[int(rng.random() * len(legal))])
        dealer = (dealer + 1) % players
    return lean.scores


@pytest.mark.parametrize("name", sorted(OPTIONS))
@pytest.mark.parametrize("players", [3, 4])
def test_lean_random_games_draw_their_moves_from_the_legal_list(players, name, monkeypatch):
    """The random game's shortcuts (a card drawn from the hand's suit lists
    without the legal list, a plain play made in place) play what the whole
    legal list gives for the same draws: every trick's plays (Egg moves and
    abilities included) after the same draft, the same cards shown (TT-9)
    and the same scores."""
    options = GAME.make_options(OPTIONS[name])
    trick_won, record = Lean._trick_won, []

    def recorded(self):
        record.append((tuple(self.plays), self.pain[:], self.bid[:], self.ability[:], self.uses[:], set(self.shown)))
        trick_won(self)

    monkeypatch.setattr(Lean, "_trick_won", recorded)
    for seed in range(20):
        record.clear()
        expected = _reference_random_game(players, options, random.Random(seed))
        tricks, record[:] = record[:], []
        assert lean_random_game(players, options, random.Random(seed)) == expected
        assert record == tricks and len(tricks) == 12 * players
