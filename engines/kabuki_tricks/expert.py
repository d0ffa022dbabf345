"""Kabuki Tricks' part of the `expert` bot (engines/expert.py): a world
consistent with what the seat has seen.

From its redacted events the seat knows its own hand, every card played
live this round and who played it, and every Joker placement, but not the
other hands, the discard (and with 2 players the dummy pile's unplayed
cards), the other seats' predictions (KT-11) or later rounds' decks. A
world deals the cards the seat has not seen at random: each other seat
gets the cards it was seen to play plus random unseen ones up to 7, the
dummy likewise, the rest is the discard; hidden predictions are drawn from
1..3. A seat that did not follow the led suit has none of it left (KT-4):
its random cards avoid that suit. Cards blanked by the history (GEN-1,
`card: None`) count as unseen.
The playout ends with the round, so later decks are never needed."""

from __future__ import annotations

import random
from msgspec.structs import replace

from engines.expert import Search, deal_unseen

from .cards import SUIT_OF, deck_for
from .events import Dealt, JokerPlayed, Played, RoundEnded, Started, TrickWon
from .state import State

HAND = 7


def determinize(events: list, seat: int, view, rng: random.Random) -> list:
    last = max(i for i, e in enumerate(events) if type(e) is Dealt)
    dealt = events[last]
    n = len(dealt.hands)
    holders = n + (1 if n == 2 else 0)  # with 2 players the dummy (index 2) holds cards too
    seen: list[list[int]] = [[] for _ in range(holders)]
    blanks = [0] * holders
    voids: list[set[int]] = [set() for _ in range(holders)]
    led = None  # the suit led in the trick in play (None: no trick, or its lead is blanked)
    leading = True
    for e in events[last + 1:]:
        kind = type(e)
        if kind is Played:
            if leading:
                led = None if e.card is None else SUIT_OF[e.card]
                leading = False
            elif e.card is not None and led is not None and SUIT_OF[e.card] != led:
                voids[e.seat].add(led)  # KT-4: it would have followed: none of the led suit left
            if e.seat != seat:
                if e.card is None:
                    blanks[e.seat] += 1
                else:
                    seen[e.seat].append(e.card)
        elif kind is TrickWon:
            leading, led = True, None
    mine = set(dealt.hands[seat])
    known = mine.union(*map(set, seen))
    pool = [c for c in deck_for(n) if c not in known]
    need = [0 if s == seat else HAND - len(seen[s]) for s in range(holders)]
    extras = deal_unseen(pool, need, voids, SUIT_OF, rng)
    hands, fills = [], []
    for s in range(holders):
        if s == seat:
            hands.append(tuple(dealt.hands[seat]))
            # Its own plays blanked by the history (a bot rebuilt after a
            # restart): the dealt cards no longer in its hand.
            held = set(view.hand) if view is not None else set()
            fills.append([c for c in dealt.hands[seat] if c not in held])
            continue
        extra = extras[s]
        fills.append(extra[: blanks[s]])  # the blanked plays are some of these
        hands.append(tuple(seen[s]) + tuple(extra))
    # Earlier rounds count only through their public results (scores,
    # the next round's side and order): their hidden deals are not needed.
    world = [e for e in events[:last] if type(e) in (Started, RoundEnded)]
    world.append(replace(dealt, hands=tuple(hands[:n]), dummy=hands[2] if n == 2 else (), discard=tuple(pool)))
    for e in events[last + 1:]:
        kind = type(e)
        if kind is Played and e.card is None:
            e = replace(e, card=fills[e.seat].pop())
        elif kind is JokerPlayed and e.seat != seat and e.actor is not None and e.prediction is None:
            e = replace(e, prediction=rng.randint(1, 3))
        world.append(e)
    return world


def _round(state: State):
    return state.round


def _scores(state: State):
    return state.scores


SEARCH = Search(determinize=determinize, round_of=_round, scores=_scores)
