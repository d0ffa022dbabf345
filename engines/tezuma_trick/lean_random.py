"""The lean random game that `simulate --calibrate` times
(`SEARCH.lean_random_game`; lean_bot.py re-exports it beside `lean_playout`):
uniformly random legal play on the lean state (lean.py), every move the one
`Lean.legal()` gives for the same draw, found without building the list
where the rules allow. tests/engines/test_lean_tezuma_trick.py replays it
through `Lean.legal` and `Lean.apply`.
"""

from __future__ import annotations

import random

from engines.tezuma_trick.cards import (
    BUTTERFLY_DANCE,
    CHICKS,
    CUP_AND_BALL,
    FIRE_BREATHING,
    FIVE_COLOR_SAND,
    HORSE_SWALLOWING,
    IS_TRUMP,
    LINKING_RING,
    NOT_FOR_LEADER,
    NUMBER_OF,
    PAIL_DANCE,
    PAPER_EGG,
    SUIT_OF,
    SWORD_WALKING,
    WATER_TRICK,
)
from engines.tezuma_trick.lean import _SINGLE, DRAFTING, EGG, PLAYING, SAND, Lean
from engines.tezuma_trick.options import FACE_UP

# Abilities offered with every playable card (`Lean.legal`'s last branch)
# and those offered as one move of their own (TT-10, TT-7).
_WITH_EVERY_CARD = frozenset({SWORD_WALKING, WATER_TRICK, CHICKS, PAIL_DANCE, HORSE_SWALLOWING})
_ALONE = {FIVE_COLOR_SAND: SAND, PAPER_EGG: EGG}
_FREE_OF_FOLLOWING = (LINKING_RING, CUP_AND_BALL)  # a constant: no tuple built per test


_FOUR_OR_FIVE = frozenset(card for card in range(48) if NUMBER_OF[card] in (4, 5))


def _offered(ability: int, playable) -> bool:
    """Whether Fire Breathing, Butterfly Dance or Many Umbrellas goes with
    any of the playable suit lists (TT-9, TT-15). A suit list is sorted, so
    its number cards come before its Trumps."""
    if ability == FIRE_BREATHING:  # two number cards of one suit
        return any(len(cards) > 1 and not IS_TRUMP[cards[1]] for cards in playable)
    if ability == BUTTERFLY_DANCE:  # a Trump
        return any(cards and IS_TRUMP[cards[-1]] for cards in playable)
    return any(not _FOUR_OR_FIVE.isdisjoint(cards) for cards in playable)  # Many Umbrellas: a 4 or a 5


def _card_at(playable, i: int) -> int:
    """The `i`-th card of the suit lists end to end."""
    for cards in playable:
        if i < len(cards):
            return cards[i]
        i -= len(cards)
    raise IndexError(i)


def shuffled(deck: list[int], draw) -> None:
    """A uniform shuffle in place by `draw()` keys, at a third of `rng.shuffle`'s cost."""
    deck.sort(key=dict(zip(deck, iter(draw, 2.0), strict=False)).__getitem__)  # (`draw` never returns 2.0)


def lean_random_game(players: int, options, rng: random.Random) -> list[int]:
    """A whole game of uniformly random legal moves from a fresh deal drawn
    with `rng` (`simulate --calibrate`'s lean figure): as `rules.start`,
    a random first dealer, then one hand per player, the dealer rotating.
    Every move is `legal()[int(rng.random() * len(legal()))]` (the test
    replays it so), but a card play is drawn without the list (`legal()`
    is the followed suit's list or the four end to end, twice if every card
    may carry the seat's ability, plus Sand or Egg) and a plain one is made
    here (`Lean.apply`'s plain-play lines, the card's index known)."""
    face_up = FACE_UP if players == 4 else FACE_UP - 1  # TT-3
    lean = Lean(players, options)
    deck = list(lean.deck)
    dealer = int(rng.random() * players)
    legal, apply, pick, trick_won, draw = lean.legal, lean.apply, lean._pick, lean._trick_won, rng.random
    cost = lean.cost
    rows = None
    for _ in range(players):
        if rows is None or options.redeal_each_hand:
            rows = (rng.sample(range(len(options.bid_cards)), face_up), rng.sample(range(12), face_up))
        shuffled(deck, draw)
        lean.deal(dealer, deck, *rows)
        # TT-4: `legal()` is the open pains, bids and abilities of the types the seat lacks.
        order, pains, bids, abilities = lean.order, lean.pain, lean.bid, lean.ability
        open_pains, open_bids, open_abilities = lean.open_pains, lean.open_bids, lean.open_abilities
        while lean.phase == DRAFTING:
            seat = order[lean.pick_no]
            a = len(open_pains) if pains[seat] < 0 else 0
            b = len(open_bids) if bids[seat] < 0 else 0
            i = int(draw() * (a + b + (len(open_abilities) if abilities[seat] < 0 else 0)))
            pick(open_pains[i] if i < a else open_bids[i - a] if i < a + b else open_abilities[i - a - b])
        hands, uses, shown = lean.hands, lean.uses, lean.shown
        while lean.phase == PLAYING:
            queue = lean.queue
            seat, led = queue[0], lean.led
            hand = hands[seat]
            following = led >= 0 and hand[led]  # TT-6
            count = len(following) if following else len(hand[0]) + len(hand[1]) + len(hand[2]) + len(hand[3])
            # TT-7: uses left, one per trick; TT-8: not these four when leading.
            if uses[seat] > 0 and lean.egged != seat and (led >= 0 or abilities[seat] not in NOT_FOR_LEADER):
                ability = abilities[seat]
                if ability in _WITH_EVERY_CARD:
                    i = int(draw() * (count + count))
                    if i >= count:
                        apply(_card_at((following,) if following else hand, i - count) | (ability + 1) << 6)
                        continue
                elif ability in _ALONE:
                    i = int(draw() * (count + 1))
                    if i == count:
                        apply(_ALONE[ability])
                        continue
                elif ability in _FREE_OF_FOLLOWING:  # and with every card in hand
                    i = int(draw() * (count + len(hand[0]) + len(hand[1]) + len(hand[2]) + len(hand[3])))
                    if i >= count:
                        apply(_card_at(hand, i - count) | (ability + 1) << 6)
                        continue
                elif _offered(ability, (following,) if following else hand):  # TT-9, TT-15: the list
                    moves = legal()
                    apply(moves[int(draw() * len(moves))])
                    continue
                else:  # no card to use it with: `legal()` is the playable cards
                    i = int(draw() * count)
            else:
                i = int(draw() * count)
            # A plain play, as `Lean.apply` makes it (its index in the suit list known).
            if following:
                card = following[i]
                del following[i]
                suit = led
            else:
                for cards in hand:
                    if i < len(cards):
                        break
                    i -= len(cards)
                card = cards[i]
                del cards[i]
                suit = SUIT_OF[card]
                if led < 0:
                    lean.led = suit
            del queue[0]
            lean.suit_cost[suit] += cost[card]
            if shown:
                shown.discard(card)
            lean.plays.append((seat, _SINGLE[card], -1))
            if not queue:
                trick_won()
        dealer = (dealer + 1) % players
    return lean.scores
