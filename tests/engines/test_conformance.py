"""The generic conformance suite: every registered game, random playouts over
many seeds and player counts, checked at every step against the contract.

- fold(log) == state, at every step (and part-way through the game);
- every listed legal action is accepted, and a sample of actions that are not
  listed (seen in other states, or a seat that may not act) is refused with a
  RuleError code;
- no view and no redacted event shows a viewer a card hidden from it;
- the cards are conserved; events and actions round-trip through JSON;
- every game ends, with a well-formed result.

HANAMICHI_CONFORMANCE_GAMES scales the number of playouts (default 40 per
game and player count, all checks at every step; CI's figure).
"""

from __future__ import annotations

import os
import random
from collections import Counter

import msgspec
import pytest

from engines.core import Ctx, Game, RuleError, settle
from engines.playout import Playout
from engines.registry import all_games

PLAYOUTS = int(os.environ.get("HANAMICHI_CONFORMANCE_GAMES", "40"))
GAMES = all_games()


def _cases():
    for game in GAMES:
        for players in range(game.min_players, game.max_players + 1):
            yield pytest.param(game, players, id=f"{game.name}-{players}p")


def _roundtrip(obj, typ):
    assert msgspec.json.decode(msgspec.json.encode(obj), type=typ) == obj, obj


class Checker:
    """Checks each step of one playout; keeps a pool of actions for negatives."""

    def __init__(self, game: Game, players: int, pool: list, rng: random.Random) -> None:
        self.game, self.players, self.pool, self.rng = game, players, pool, rng
        self.viewers = [None, *range(players)]
        self.deck: Counter | None = None

    def __call__(self, before, seat, action, events, state) -> None:
        game = self.game
        for event in events:
            _roundtrip(event, game.event_type)
        if action is not None:
            _roundtrip(action, game.action_type)
            self.pool.append(action)
        cards = Counter(map(repr, game.all_cards(state)))
        if self.deck is None:
            self.deck = cards
        assert cards == self.deck, "cards were created or lost"
        # A step leaves no automatic event pending (decide and
        # on_timer append them), so no table waits for a driver to move on.
        assert game.automatic(state) == [], f"{game.name}: automatic events left pending"
        # ...and everything after a step's first event (the action's, or the
        # timer's) is what `automatic` gives, nothing a handler appended by
        # itself: the one mechanism for automatic transitions.
        if before is not None and events:
            assert settle(game.evolve, game.automatic, before, events[:1]) == events, (
                f"{game.name}: {type(events[0]).__name__} was followed by events `automatic` does not give"
            )
        for viewer in self.viewers:
            hidden = game.hidden_cards(state, viewer)
            view = game.view(state, viewer)
            msgspec.json.encode(view)  # every view is JSON
            leaked = game.revealed_cards(view) & hidden
            assert not leaked, f"view of {viewer} shows hidden {leaked}"
        # Each event against what is hidden right after it: a step that ends a
        # round and deals the next hides the shown card ids again,
        # in a new deck, and that is no leak.
        at = before
        for event in events:
            at = game.evolve(at, event)
            for viewer in self.viewers:
                seen = game.redact(event, viewer)
                if seen is not None:
                    leaked = game.revealed_cards(seen) & game.hidden_cards(at, viewer)
                    assert not leaked, f"event {type(event).__name__} shows {viewer} hidden {leaked}"
        if not game.is_over(state):
            self.check_commands(state)

    def check_commands(self, state) -> None:
        """legal_actions(state, seat, t) lists exactly what decide accepts at
        time t, for every seat: each listed action is accepted, and a sample
        of unlisted ones is refused with a code. Time is data on both sides
        (no Place offered during KM-3's stop window; KM-5a:
        no Stop offered on a round's last card after its window), so the
        times straddle the next timer, where timed rules flip."""
        game = self.game
        due = game.next_timer(state)
        times = {10**12} | ({due - 1, due, due + 1} if due is not None else set())
        for now in sorted(t for t in times if t >= 0):
            ctx = Ctx(now_ms=now)
            for seat in range(self.players):
                legal = game.legal_actions(state, seat, now)
                for action in legal:
                    try:
                        game.decide(state, seat, action, ctx)
                    except RuleError as err:  # pragma: no cover - a failure message
                        pytest.fail(f"action {action} listed at {now} ms refused for seat {seat}: {err}")
                listed = set(map(msgspec.json.encode, legal))
                for action in self.rng.sample(self.pool, min(4, len(self.pool))):
                    if msgspec.json.encode(action) in listed:
                        continue
                    with pytest.raises(RuleError) as refused:
                        game.decide(state, seat, action, ctx)
                    assert refused.value.code and refused.value.message


@pytest.mark.parametrize(("game", "players"), list(_cases()))
def test_random_playouts_obey_the_contract(game: Game, players: int) -> None:
    pool: list = []
    rng = random.Random(players)
    for seed in range(PLAYOUTS):
        checker = Checker(game, players, pool, rng)
        playout = Playout(game, players, game.make_options({}), seed, ["random"] * players, hook=checker)
        state = playout.run(max_steps=200_000)
        assert game.is_over(state)
        # fold(log) rebuilds the state, from the start and from any midpoint
        assert game.fold(playout.log) == state
        cut = rng.randrange(1, len(playout.log))
        assert game.fold(playout.log[cut:], game.fold(playout.log[:cut])) == state
        result = game.result(state)
        assert len(result.scores) == len(result.places) == players
        assert result.winners == [s for s in range(players) if result.places[s] == 1]
        assert result.winners, "somebody wins"
        # after the end everything is public: the spectator view hides nothing
        assert not game.hidden_cards(state, None)


@pytest.mark.parametrize(("game", "players"), list(_cases()))
def test_fold_equals_state_at_every_step(game: Game, players: int) -> None:
    """The strict form: one playout per case, fold(log) == state after every step."""
    states: list = []
    logged = [0]

    def record(before, seat, action, events, state) -> None:
        logged[0] += len(events)
        states.append((logged[0], state))

    playout = Playout(game, players, game.make_options({}), 1000 + players, ["random"] * players, hook=record)
    playout.run()
    for length, state in states:
        assert game.fold(playout.log[:length]) == state


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_bad_options_and_player_counts_are_clear_errors(game: Game) -> None:
    from engines.core import OptionsError

    with pytest.raises(OptionsError) as err:
        game.make_options({"no_such_option": 1})
    assert err.value.code == "bad_option"
    with pytest.raises(OptionsError) as err:
        game.check_players(game.max_players + 1)
    assert err.value.code == "bad_player_count"
