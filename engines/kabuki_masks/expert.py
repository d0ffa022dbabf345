"""Kabuki masks' part of the `expert` bot (engines/expert.py): a world
consistent with what the seat has seen.

Everything but the decks' order is public (KM-1, KM-4: placed and revealed
cards, Stops' piles, tokens), and the house heuristic remembers perfectly,
so a world only deals the cards of this round not revealed yet in a random
order (each round's deck holds every card once). A card blanked by the
history (GEN-1, `card: None`) counts as unrevealed. The playout ends with
the round (its tokens banked, KM-6); the later rounds' decks are drawn at
random only so that the round's end can be folded.

Playouts act at the table's own time (`clock_of`: the latest placement's
`placed_at_ms`): Stops at once, the placer when the window ends (KM-3).
They run on the lean state (lean.py, about 9x the engine path's playouts),
move for move the engine's (tests/engines/test_lean_kabuki_masks.py).

Why search finds nothing better than the perfect-memory heuristic (the
expert stays near a heuristic's win rate): with 5 copies of a mask and
4 piles, copies 1-4 always have a pile without their mask, so among players
who remember everything the only Stop that pays is on each mask's fifth
copy: one token a mask, 10 a round, from whoever draws it (the deck order)
to whoever is asked first (chance). Which empty-of-that-mask pile takes a
card leaves every pile's count of each mask the same up to the piles'
order, so it changes nothing; stacking a copy early takes that token on
oneself; a Stop without a match costs a token. What is left is ending the
last round on one's own last token while ahead: some seat could, at some
moment, in 14 of 20,000 lean games of heuristics (0.07%)."""

from __future__ import annotations

import random

from msgspec.structs import replace

from engines.expert import Search

from . import lean
from .cards import CARDS, ROUNDS
from .events import Placed, Revealed, RoundStarted
from .state import State


def determinize(events: list, seat: int, view, rng: random.Random) -> list:
    started = events[0]
    current = max(i for i, e in enumerate(events) if type(e) is RoundStarted)
    round_no = events[current].round
    shown = [e.card for e in events[current + 1 :] if type(e) is Revealed]
    known = {c for c in shown if c is not None}
    rest = [c for c in CARDS if c not in known]
    rng.shuffle(rest)
    order = [c if c is not None else rest.pop() for c in shown] + rest
    decks = []
    for r in range(1, ROUNDS + 1):
        if r == round_no:
            decks.append(tuple(order))
        else:
            other = list(CARDS)
            rng.shuffle(other)
            decks.append(tuple(other))
    world = [replace(started, decks=tuple(decks))]
    world.extend(events[1 : current + 1])
    k, card = 0, None
    for e in events[current + 1 :]:
        kind = type(e)
        # Blanked in a history read (a bot rebuilt after a restart): the world's card at this draw.
        if kind is Revealed:
            if e.card is None:
                e = replace(e, card=order[k])
            card = e.card
            k += 1
        elif kind is Placed and e.card is None:
            e = replace(e, card=card)
        world.append(e)
    return world


def _round(state: State):
    return state.round


def _scores(state: State):
    return state.banked


def _clock(state: State) -> int:
    return state.ended_at_ms if state.ended_at_ms is not None else state.last_at_ms


def _prime(bots: list, state: State) -> None:
    """The memory heuristic knows every pile (perfect memory, all public)."""
    for bot in bots:
        if hasattr(bot, "piles"):
            bot.piles = [list(pile) for pile in state.piles]


SEARCH = Search(
    determinize=determinize,
    round_of=_round,
    scores=_scores,
    clock_of=_clock,
    prime=_prime,
    lean_playout=lean.playout,
    lean_random_game=lean.random_game,
    judged_playouts=8,  # who calls Stop first is the playout's chance (KM-2)
)
