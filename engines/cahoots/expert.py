"""Cahoots' part of the `expert` bot (engines/expert.py): a world consistent
with what the seat has seen.

From its redacted events the seat knows its own dealt hand, the identities
(public in the start event), every card played, every keep/kill choice and
every trick's scoring (CH-9: all public), the reserve cards turned so far
(CH-6), but not the other hands nor the reserve's order. A world gives each
other seat the cards it was seen to play from its deal (a card it kept and
later played came from the table, not the deal) plus random unseen cards up
to 12, and the unturned reserve in random order. The game is one deal of 11
tricks; a playout runs to the end of the current trick and the next
`HORIZON - 1` (the whole game would cost too many playouts per move)."""

from __future__ import annotations

import random

from msgspec.structs import replace

from engines.expert import Search

from .cards import DECK, HAND_SIZE, THREE_PLAYER_DECK, THREE_PLAYER_RESERVE
from .events import Chose, Dealt, Played, TrickScored
from .lean import playout, random_game
from .state import State

HORIZON = 3  # tricks a playout looks ahead


def determinize(events: list, seat: int, view, rng: random.Random) -> list:
    started = events[0]
    n = started.players
    dealt_at = next(i for i, e in enumerate(events) if type(e) is Dealt)
    mine = events[dealt_at].hands[seat]
    from_deal: list[list[int]] = [[] for _ in range(n)]
    kept_by: list[set[int]] = [set() for _ in range(n)]
    turned: list[int] = []  # reserve cards shown so far, in order
    # Seat order within a trick needs the start player: replay the public log.
    start, plays, choices = started.dealer, 0, 0
    for e in events[dealt_at + 1 :]:
        kind = type(e)
        if kind is Played:
            if e.card not in kept_by[e.seat]:
                from_deal[e.seat].append(e.card)
            plays += 1
        elif kind is Chose:
            if e.keep:
                kept_by[(start + choices) % n].add(e.card)
            choices += 1
        elif kind is TrickScored:
            if e.reserve_card >= 0:
                turned.append(e.reserve_card)
            start, plays, choices = (start + 1) % n, 0, 0
    known = set(mine).union(*map(set, from_deal))
    pool = [c for c in (THREE_PLAYER_DECK if n == 3 else DECK) if c not in known]
    rng.shuffle(pool)
    hands = []
    for s in range(n):
        if s == seat:
            hands.append(tuple(mine))
        else:
            hands.append(tuple(from_deal[s]) + tuple(pool.pop() for _ in range(HAND_SIZE - len(from_deal[s]))))
    reserve: tuple[int, ...] = ()
    if n == 3:
        rest = [c for c in THREE_PLAYER_RESERVE if c not in turned]
        rng.shuffle(rest)
        reserve = tuple(turned) + tuple(rest)
    world = [replace(started, reserve=reserve), Dealt(tuple(hands))]
    world.extend(events[dealt_at + 1 :])
    return world


def _round(state: State):
    return state.trick


def _scores(state: State):
    return state.scores


def _lean_playout(state: State, seat: int, action, seed: int, options):
    # The lean playout counts tricks itself (`_round`) and draws nothing from
    # `seed`: no Cahoots turn has two seats that may act, the heuristic no rng.
    return playout(state, seat, action, HORIZON)


SEARCH = Search(
    determinize=determinize,
    round_of=_round,
    scores=_scores,
    horizon=HORIZON,
    judged_rounds=11,  # every trick of the one deal (CH-2): to the game's end
    lean_playout=_lean_playout,
    lean_random_game=random_game,
)
