"""Tezuma Trick's part of the `expert` bot (engines/expert.py): a world
consistent with what the seat has seen.

From its redacted events the seat knows its own hand, the draft (pain suits,
bids and abilities are picked in the open), every card played live and who
played it, and each Fire Breathing card returned to a hand (TT-9, public),
but not the other hands nor later hands' deals. A world gives each other
seat the cards it was seen to play from its deal (not those it got back by
Fire Breathing) plus random unseen cards up to 12. Earlier hands count only
through their scores (the last `tt.hand_scored`). The playout ends with the
hand (its scoring); later deals are drawn at random only because the
engine deals the next hand as soon as one is scored.

A play blanked by the history (GEN-1, `cards: ()`, what a bot rebuilt from
the history sees) is filled with unseen cards of that seat. A seat that did
not follow the led suit (TT-6; Linking Ring and Cup and Ball excepted) has
none of it left until a Fire Breathing card of it comes back to it: its
random cards avoid that suit. Known limit: a blanked Fire Breathing return
is not put back in a hand."""

from __future__ import annotations

import random

from msgspec.structs import replace

from engines.expert import Search, deal_unseen

from .cards import ABILITY_IDS, SUIT_OF, deck_for
from .events import HandDealt, HandScored, Played, TrickWon
from .lean_bot import lean_playout, lean_random_game
from .state import SCORED, State

HAND = 12
# Abilities whose card need not follow suit (the rest play a card the follow rule allows).
FREE_PLAY = frozenset({"linking_ring", "cup_and_ball"})


def _blanked(e) -> int:
    """How many cards a play blanked by the history (GEN-1) held."""
    if e.cards or e.ability == "five_color_sand":
        return 0
    return 2 if e.ability == "fire_breathing" else 1


def determinize(events: list, seat: int, view, rng: random.Random) -> list:
    last = max(i for i, e in enumerate(events) if type(e) is HandDealt)
    dealt = events[last]
    n = len(dealt.hands)
    from_deal: list[list[int]] = [[] for _ in range(n)]
    given_back: list[set[int]] = [set() for _ in range(n)]
    blanks = [0] * n
    voids: list[set[int]] = [set() for _ in range(n)]
    led = -1
    for e in events[last + 1 :]:
        kind = type(e)
        if kind is Played:
            blanks[e.seat] += _blanked(e)
            if e.cards:
                if led < 0:
                    led = SUIT_OF[e.cards[0]]
                elif SUIT_OF[e.cards[0]] != led and e.ability not in FREE_PLAY:
                    voids[e.seat].add(led)  # TT-6: it would have followed: none of the led suit left
            for card in e.cards:
                if card in given_back[e.seat]:
                    given_back[e.seat].discard(card)
                else:
                    from_deal[e.seat].append(card)
        elif kind is TrickWon:
            led = -1
            if e.returned >= 0:
                given_back[e.returned_to].add(e.returned)
                voids[e.returned_to].discard(SUIT_OF[e.returned])  # it holds one again (TT-9)
    mine = dealt.hands[seat]
    known = set(mine).union(*map(set, from_deal))
    pool = [c for c in deck_for(n) if c not in known]
    need = [0 if s == seat else max(0, HAND - len(from_deal[s])) for s in range(n)]
    extras = deal_unseen(pool, need, voids, SUIT_OF, rng)
    hands, fills = [], []
    for s in range(n):
        if s == seat:
            hands.append(tuple(mine))
            # Its own blanked plays: the dealt cards it no longer holds.
            held = set(view.seats[seat].hand or ()) if view is not None and blanks[s] else set()
            fills.append([c for c in mine if c not in held and c not in from_deal[s]] if blanks[s] else [])
        else:
            extra = extras[s]
            fills.append(extra[: blanks[s]])
            hands.append(tuple(from_deal[s]) + tuple(extra))
    # Later hands' deals are never played (the playout ends with the hand),
    # but the engine deals the next hand as the hand's last play settles:
    # random decks, and this hand's face-up cards again.
    started = events[0]
    later = []
    for _ in range(n):
        deck = list(deck_for(n))
        rng.shuffle(deck)
        later.append(tuple(deck))
    bids = tuple(dealt.bids)
    abilities = tuple(ABILITY_IDS[a] for a in dealt.abilities)
    world = [replace(started, decks=tuple(later), bid_rows=(bids,) * n, ability_rows=(abilities,) * n)]
    scored = [e for e in events[:last] if type(e) is HandScored]
    if scored:
        world.append(scored[-1])
    world.append(replace(dealt, hands=tuple(hands)))
    for e in events[last + 1 :]:
        if type(e) is Played and _blanked(e):
            take = fills[e.seat]
            e = replace(e, cards=tuple(take.pop() for _ in range(min(_blanked(e), len(take)))))
        world.append(e)
    return world


def _round(state: State):
    return (state.hand_no, state.phase == SCORED)


def _scores(state: State):
    return state.scores


def _prime(bots: list, state: State) -> None:
    """The heuristic remembers the cards played this hand (bots.py `seen`)."""
    seen = {card for pile in state.won for card in pile}
    seen.update(card for _, cards, _ in state.plays for card in cards)
    for bot in bots:
        if hasattr(bot, "seen"):
            bot.seen = set(seen)


# The playouts run on the lean state (lean.py, lean_bot.py): the same moves,
# heuristic choices, leads and step counts as the engine path that `_round`,
# `_scores` and `_prime` describe (tests/engines/test_lean_tezuma_trick.py).
SEARCH = Search(
    determinize=determinize,
    round_of=_round,
    scores=_scores,
    prime=_prime,
    lean_playout=lean_playout,
    lean_random_game=lean_random_game,
)
