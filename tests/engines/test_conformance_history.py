"""Conformance, part two: every prefix of a log, and the history of a game in
progress (GEN-1), for every registered game.

- Every public function (to_act, waiting_for, legal_actions, view for every
  seat and the spectator) works on the fold of EVERY prefix of a playout,
  including the prefixes no live table ever stands on (between a trick's last
  card and its trick_won): a replay may stop anywhere.
- GEN-1: the history of a game in progress (`Game.history`, `Game.past_view`)
  shows no card whose moment has passed (the game's `past_cards`: a won
  trick's cards, a covered mask), to any viewer, seats included, except what
  that seat privately holds or held (its own hand). It never blanks an event
  whose cards are all in plain sight now, and once the game is over the
  history is the log itself.
"""

from __future__ import annotations

import os
import random

import msgspec
import pytest

from engines.core import Game
from engines.playout import Playout
from engines.registry import all_games

GAMES = all_games()
PLAYOUTS = max(2, int(os.environ.get("HANAMICHI_CONFORMANCE_GAMES", "40")) // 8)
HISTORY_SAMPLES = 8  # prefixes of each playout whose whole history is checked


def _cases():
    for game in GAMES:
        for players in range(game.min_players, game.max_players + 1):
            yield pytest.param(game, players, id=f"{game.name}-{players}p")


def _playout(game: Game, players: int, seed: int) -> list:
    playout = Playout(game, players, game.make_options({}), seed, ["random"] * players)
    playout.run(max_steps=200_000)
    return playout.log


def _states(game: Game, log: list) -> list:
    """states[j] is the fold of log[:j] (j >= 1)."""
    states, state = [None], None
    for event in log:
        state = game.evolve(state, event)
        states.append(state)
    return states


@pytest.mark.parametrize(("game", "players"), list(_cases()))
def test_every_public_function_is_total_over_every_prefix(game: Game, players: int) -> None:
    """Tezuma Trick's to_act once raised IndexError between a
    trick's last tt.played and its tt.trick_won; no prefix may raise."""
    viewers = [None, *range(players)]
    for seed in range(PLAYOUTS):
        log = _playout(game, players, 500 + seed)
        for length, state in enumerate(_states(game, log)[1:], start=1):
            acting = game.to_act(state)
            assert isinstance(acting, frozenset) and isinstance(game.waiting_for(state), frozenset)
            for seat in range(players):
                legal = game.legal_actions(state, seat)
                assert seat in acting or not legal, f"seat {seat} has actions at {length} but may not act"
            for viewer in viewers:
                msgspec.json.encode(game.view(state, viewer))
            if game.is_over(state):
                game.result(state)


def _private(game: Game, shown_to_viewer, shown_to_all) -> frozenset:
    """What a seat sees beyond what the history shows everyone: its own hand."""
    return game.revealed_cards(shown_to_viewer) - game.revealed_cards(shown_to_all)


def _deal_start(game: Game, states: list, k: int) -> int:
    """The first event of the current deal at prefix k: the one after the
    event applied to the last prefix whose past cards are not all past cards
    now (past cards only grow within a deal, and start again with the next)."""
    past_now = game.past_cards(states[k])
    for j in range(k - 1, 0, -1):
        if not game.past_cards(states[j]) <= past_now:
            return j + 1
    return 0


def check_history(game: Game, players: int, log: list, states: list, k: int) -> int:
    """Checks the history at prefix k; returns how many events it blanked."""
    now = states[k]
    past = game.past_cards(now)
    history = game.history(log[:k])
    assert len(history) == k
    blanked = sum(1 for a, b in zip(history, log, strict=False) if a != b)
    d = _deal_start(game, states, k)
    in_sight = game.revealed_cards(game.view(now, None))
    for viewer in [None, *range(players)]:
        for i in range(d, k):
            live = game.redact(log[i], viewer)
            if live is None:
                continue
            seen = game.redact(history[i], viewer)
            private = _private(game, live, game.redact(log[i], None))
            leaked = (game.revealed_cards(seen) & past) - private
            assert not leaked, (
                f"history at {k} of event {i} ({type(log[i]).__name__}) shows {viewer} {leaked}, "
                "whose moment has passed (GEN-1)"
            )
            shown = game.revealed_cards(live) - private
            if shown and shown <= in_sight:
                assert seen == live, f"history at {k} blanks event {i} whose cards are all in sight"
        for i in range(d + 1, k + 1):
            view = game.past_view(states[i], viewer, now)
            msgspec.json.encode(view)
            # A seat's past view shows its own hand then, public (TT-9) cards
            # in it included; the spectator's must show no past card at all.
            private = _private(game, game.view(states[i], viewer), game.past_view(states[i], None, now))
            if viewer is None:
                private = frozenset()
            leaked = (game.revealed_cards(view) & past) - private
            assert not leaked, f"replay at {i} seen at {k} shows {viewer} {leaked}, whose moment has passed (GEN-1)"
    return blanked


@pytest.mark.parametrize(("game", "players"), list(_cases()))
def test_history_blanks_what_was_public_only_at_its_moment(game: Game, players: int) -> None:
    rng = random.Random(players)
    blanked = 0
    for seed in range(PLAYOUTS):
        log = _playout(game, players, 900 + seed)
        states = _states(game, log)
        for k in sorted(rng.sample(range(1, len(log)), min(HISTORY_SAMPLES, len(log) - 1))):
            if not game.is_over(states[k]):
                blanked += check_history(game, players, log, states, k)
        # After the end everything is public: the history is the log itself.
        assert game.history(log) == log
        assert game.past_view(states[len(log) // 2], None, states[-1]) == game.view(states[len(log) // 2], None)
    if game.name != "cahoots":  # CH-9: nothing in Cahoots is public only at its moment
        assert blanked, "a game with moment-only cards blanked nothing: the check above would be vacuous"


@pytest.mark.parametrize("game", [g for g in GAMES if g.name != "cahoots"], ids=lambda g: g.name)
def test_a_history_without_blanking_is_caught(game: Game) -> None:
    """The check above fails on a game whose history shows everything (the
    service's behaviour before GEN-1), so it can catch a leak."""
    import dataclasses

    leaky = dataclasses.replace(game, moment=lambda state, event: None)
    players = 3 if game.name == "kabuki-masks" else game.min_players
    log = _playout(game, players, 4242)
    states = _states(game, log)
    failures = 0
    for k in range(len(log) // 3, len(log), max(1, len(log) // 12)):
        if game.is_over(states[k]):
            continue
        try:
            check_history(leaky, players, log, states, k)
        except AssertionError:
            failures += 1
    assert failures
