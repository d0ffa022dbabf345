"""A lean playout state for Tezuma Trick: the expert's search
plays its playouts here instead of through the engine's frozen states,
events, validation and views (several times the cost per move).

`Lean` is a mutable copy of one hand of a folded `State` (every hidden card
filled in, as in the expert's sampled worlds) in plain lists and ints, with
the engine's legal moves (`legal`, the same list in the same order as
`rules.legal_actions`) and effects (`apply`, as `rules.decide` + `state.evolve`).
It reuses the engine's pure rule functions: tricks.py decides every trick
in which an ability was used (TT-9..TT-13; `plain_standing` is TT-6 for the
rest, at a fraction of the cost) and `rules.pain_of` prices the pain suit
(TT-2). A hand ends scored (`DONE`); `deal` starts the next one.
Hands are four sorted lists, one per suit.
The heuristic bot on this state, the expert's playout, the calibration's
random game and the conversion of moves to and from engine actions are
lean_bot.py.

Moves are ints: a play is `card | (ability + 1) << 6 | (second + 1) << 10`
(a plain play is its card id), Paper Egg is EGG, Five-Color Sand SAND, and a
draft pick is PAIN - suit, ABILITY - ability id or BID - bid index.
tests/engines/test_lean_tezuma_trick.py plays it side by side with the engine.

A little over 300 lines: the whole hand (draft, play, trick end, scoring) on
one state, as the engine's rules.py holds it; the heuristic's port and the
random game live beside it (lean_bot.py, lean_random.py).
"""

from __future__ import annotations

from bisect import bisect_left, insort
from functools import lru_cache

from engines.tezuma_trick.cards import (
    ABILITY_USES,
    BUTTERFLY_DANCE,
    CHICKS,
    CUP_AND_BALL,
    FIRE_BREATHING,
    FIVE_COLOR_SAND,
    IS_TRUMP,
    LINKING_RING,
    MANY_UMBRELLAS,
    NOT_FOR_LEADER,
    NUMBER_OF,
    PAIL_DANCE,
    PAPER_EGG,
    RANKS,
    SUIT_OF,
    TRICKS_PER_HAND,
    deck_for,
)
from engines.tezuma_trick.rules import pain_of
from engines.tezuma_trick.state import DRAFT, PLAY, seats_from
from engines.tezuma_trick.tricks import fire_breathing_return, next_leader, trick_winner

EGG, SAND = -1, -2
PAIN, ABILITY, BID = -16, -32, -64  # a pick is one of these minus the suit / ability / bid
DRAFTING, PLAYING, DONE = 0, 1, 2
_PHASES = {DRAFT: DRAFTING, PLAY: PLAYING}
# `Lean.special`: a bit per ability used in the trick. Chicks and Pail Dance
# change only who leads next (TT-13); Fire Breathing returns a card (TT-9).
LEADS_ONLY = 1 << CHICKS | 1 << PAIL_DANCE
_FIRE = 1 << FIRE_BREATHING
_SINGLE = tuple((card,) for card in range(48))
_FREE_OF_FOLLOWING = (LINKING_RING, CUP_AND_BALL)  # a constant: no tuple built per test
_QUEUES = {n: [seats_from(leader, n) for leader in range(n)] for n in (3, 4)}


def _by_suit(cards) -> list[list[int]]:
    """A hand as four sorted lists, one per suit: following suit (TT-6)
    reads one list, and their concatenation is the sorted hand."""
    hand = sorted(cards)
    one = bisect_left(hand, RANKS)
    two = bisect_left(hand, 2 * RANKS, one)
    three = bisect_left(hand, 3 * RANKS, two)
    return [hand[:one], hand[one:two], hand[two:three], hand[three:]]


@lru_cache(maxsize=64)
def _tables(options) -> tuple:
    """Per options: each Bid card's points per trick count (TT-1), its
    lowest and highest count (the heuristic's goal), and what each card
    costs its winner when of the winner's pain suit (TT-2, `rules.pain_of`)."""
    points = tuple(
        tuple(card.points if t in card.tricks else 0 for t in range(TRICKS_PER_HAND + 1)) for card in options.bid_cards
    )
    ranges = tuple((min(card.tricks), max(card.tricks)) for card in options.bid_cards)
    cost = tuple(pain_of((card,), SUIT_OF[card], options.pain_face_value) for card in range(48))
    return points, ranges, cost


def plain_standing(plays, led: int) -> tuple[int, int, int]:
    """TT-6 for a trick where nobody used an ability (most of them), at a
    fraction of `tricks.trick_winner`'s cost: (the seat of the first Trump
    of another suit than the led one, or -1; the seat and value of the
    highest led-suit card, a led-suit Trump counting 0, equal values, only
    0s here, going to the first played)."""
    best_seat = best = -1
    for seat, cards, _ in plays:
        card = cards[0]
        if SUIT_OF[card] != led:
            if IS_TRUMP[card]:
                return seat, best_seat, best  # the first effective Trump wins
        elif NUMBER_OF[card] > best:
            best_seat, best = seat, NUMBER_OF[card]
    return -1, best_seat, best


def plain_winner(plays, led: int) -> int:
    trump, best_seat, _ = plain_standing(plays, led)
    return trump if trump >= 0 else best_seat


class Lean:
    __slots__ = (
        "players",
        "bid_cards",
        "bid_points",
        "bid_range",
        "face_value",
        "deck",
        "phase",
        "dealer",
        "order",
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
        "cost",
        "scores",
    )

    shown: set[int]  # cards a Fire Breathing play returned to a hand (TT-9)
    queue: list[int]  # the seats still to act in this trick or draft, in order
    plays: list[tuple[int, tuple[int, ...], int]]  # this trick's (seat, cards, ability)

    def __init__(self, players: int, options) -> None:
        self.players = players
        self.bid_cards = options.bid_cards  # named as on the view: the heuristic's draft reads it
        self.bid_points, self.bid_range, self.cost = _tables(options)
        self.face_value = options.pain_face_value
        self.deck = deck_for(players)
        self.scores = [0] * players
        self.phase = DONE

    @classmethod
    def from_state(cls, state) -> Lean:
        """The hand in progress in `state` (a world with every card known)."""
        n = state.players
        lean = cls(n, state.options)
        lean.scores = list(state.scores)
        lean.phase = _PHASES.get(state.phase, DONE)
        if not state.hands:
            return lean
        lean.dealer = state.dealer
        lean.order = state.draft_order
        lean.pick_no = state.pick_no
        # The cards left on the table, as the moves that pick them.
        lean.open_pains = [PAIN - suit for suit in state.open_pains]
        lean.open_bids = [BID - bid for bid in state.open_bids]
        lean.open_abilities = [ABILITY - ability for ability in state.open_abilities]
        lean.pain, lean.bid, lean.ability = list(state.pain), list(state.bid), list(state.ability)
        lean.uses = list(state.uses)
        lean.hands = [_by_suit(hand) for hand in state.hands]
        lean.shown = set(state.shown)
        lean.trick_no = state.trick_no
        lean.queue = list(state.queue)
        lean.plays = list(state.plays)
        lean.led, lean.egged = state.led, state.egged
        lean.special = 0
        for _, _, ability in state.plays:
            if ability >= 0:
                lean.special |= 1 << ability
        lean.suit_cost = [0, 0, 0, 0]  # what the trick's cards of each suit cost (TT-2)
        for _, cards, _ in state.plays:
            for card in cards:
                lean.suit_cost[SUIT_OF[card]] += lean.cost[card]
        lean.tricks = list(state.tricks)
        lean.pained = [pain_of(state.won[s], state.pain[s], lean.face_value) for s in range(n)]
        return lean

    def deal(self, dealer: int, deck, bids, abilities) -> None:
        """A new hand from a shuffled deck (rules `_deal`, state `_hand_dealt`)."""
        n = self.players
        order = seats_from(dealer + 1, n)  # TT-4: left of the dealer starts
        self.phase, self.dealer = DRAFTING, dealer
        self.order, self.pick_no = order + order[::-1] + order, 0
        self.open_pains = [PAIN, PAIN - 1, PAIN - 2, PAIN - 3]
        self.open_bids = [BID - bid for bid in sorted(bids)]
        self.open_abilities = [ABILITY - ability for ability in sorted(abilities)]
        self.pain, self.bid, self.ability, self.uses = [-1] * n, [-1] * n, [-1] * n, [0] * n
        self.hands = [_by_suit(deck[s * TRICKS_PER_HAND : (s + 1) * TRICKS_PER_HAND]) for s in range(n)]
        self.shown = set()
        self.trick_no, self.queue, self.plays, self.led, self.egged, self.special = 0, [], [], -1, -1, 0
        self.suit_cost = [0, 0, 0, 0]
        self.tricks, self.pained = [0] * n, [0] * n

    def hand(self, seat: int) -> list[int]:
        """The seat's hand, sorted (as the engine's)."""
        return [card for cards in self.hands[seat] for card in cards]

    def to_move(self) -> int:
        """The seat to act, or -1 (rules `to_act`)."""
        if self.phase == PLAYING:
            return self.queue[0] if self.queue and self.trick_no <= TRICKS_PER_HAND else -1
        return self.order[self.pick_no] if self.phase == DRAFTING else -1

    def legal(self) -> list[int]:
        """The mover's moves, in `rules.legal_actions`' order (the heuristic
        keeps the first of equal scores). The list is valid until the next
        `apply` and must not be changed."""
        if self.phase == PLAYING:  # (a hand's 13th trick is DONE, never PLAYING)
            queue = self.queue
            if not queue:
                return []
            seat = queue[0]
            hand, led = self.hands[seat], self.led
            # TT-6: must follow when able
            playable = hand[led] if led >= 0 and hand[led] else hand[0] + hand[1] + hand[2] + hand[3]
            # TT-7: uses left, one use per trick; TT-8: not these four when leading.
            if self.uses[seat] <= 0 or self.egged == seat:
                return playable  # (may be a hand's own list: read it before the next `apply`)
            ability = self.ability[seat]
            if led < 0 and ability in NOT_FOR_LEADER:
                return playable
            moves = playable[:]
            flag = (ability + 1) << 6
            if ability == FIVE_COLOR_SAND:
                moves.append(SAND)
            elif ability == PAPER_EGG:
                moves.append(EGG)
            elif ability == FIRE_BREATHING:  # TT-9: two followable number cards of one suit
                numbers = [card for card in playable if not IS_TRUMP[card]]
                moves += [
                    low | flag | (high + 1) << 10
                    for i, low in enumerate(numbers)
                    for high in numbers[i + 1 :]
                    if SUIT_OF[low] == SUIT_OF[high]
                ]
            elif ability in _FREE_OF_FOLLOWING:  # free of the follow rule
                moves += [card | flag for cards in hand for card in cards]
            elif ability == BUTTERFLY_DANCE:  # TT-15: with a Trump
                moves += [card | flag for card in playable if IS_TRUMP[card]]
            elif ability == MANY_UMBRELLAS:  # TT-15: with a 4 or a 5
                moves += [card | flag for card in playable if NUMBER_OF[card] in (4, 5)]
            else:
                moves += [card | flag for card in playable]
            return moves
        if self.phase == DRAFTING:  # TT-4: a type the seat lacks
            seat = self.order[self.pick_no]
            moves = self.open_pains[:] if self.pain[seat] < 0 else []
            if self.bid[seat] < 0:
                moves += self.open_bids
            if self.ability[seat] < 0:
                moves += self.open_abilities
            return moves
        return []

    def apply(self, move: int) -> None:
        """The mover's (legal) move and what follows by itself: the trick's
        end, the hand's scoring (rules `automatic`)."""
        if move < 64:
            if move < 0:
                if move == EGG:  # TT-7: a use, and the seat plays after everyone else
                    seat = self.queue.pop(0)
                    self.uses[seat] -= 1
                    self.egged = seat
                    self.queue.append(seat)
                    return
                if move != SAND:
                    return self._pick(move)
                cards: tuple[int, ...] = ()
                ability = FIVE_COLOR_SAND  # TT-10: no card
            else:
                cards, ability = _SINGLE[move], -1  # a plain play
        else:
            second = (move >> 10) - 1
            cards = _SINGLE[move & 63] if second < 0 else (move & 63, second)
            ability = (move >> 6 & 15) - 1
        queue = self.queue
        seat = queue.pop(0)
        hand, suit_cost, cost = self.hands[seat], self.suit_cost, self.cost
        for card in cards:
            hand[SUIT_OF[card]].remove(card)
            suit_cost[SUIT_OF[card]] += cost[card]
        if ability >= 0:
            self.uses[seat] -= 1
            self.special |= 1 << ability
        if self.shown:
            self.shown.difference_update(cards)
        if self.led < 0 and cards:
            self.led = SUIT_OF[cards[0]]
        self.plays.append((seat, cards, ability))
        if not queue:
            self._trick_won()

    def _pick(self, move: int) -> None:
        seat = self.order[self.pick_no]
        if move > ABILITY:
            self.pain[seat] = PAIN - move
            self.open_pains.remove(move)
        elif move > BID:
            ability = ABILITY - move
            self.ability[seat], self.uses[seat] = ability, ABILITY_USES[ability]
            self.open_abilities.remove(move)
        else:
            self.bid[seat] = BID - move
            self.open_bids.remove(move)
        self.pick_no += 1
        if self.pick_no == len(self.order):  # TT-5: the start player leads trick 1
            self.phase, self.trick_no = PLAYING, 1
            self.queue = list(seats_from(self.dealer + 1, self.players))

    def _trick_won(self) -> None:
        plays, led, special = self.plays, self.led, self.special
        if not special:  # no ability: `plain_winner` (TT-6), and the winner leads
            trump, winner, _ = plain_standing(plays, led)
            if trump >= 0:
                winner = trump
            leader = winner
            self.pained[winner] += self.suit_cost[self.pain[winner]]
        else:
            # Abilities used: the engine's own trick rules (tricks.py) for what they change.
            winner = trick_winner(plays, led)[0] if special & ~LEADS_ONLY else plain_winner(plays, led)
            returned = -1
            if special & _FIRE:
                returned, owner = fire_breathing_return(plays)  # TT-9: the lower card goes back, publicly
                insort(self.hands[owner][SUIT_OF[returned]], returned)
                self.shown.add(returned)
            leader = next_leader(plays, winner, self.players) if special & LEADS_ONLY else winner  # TT-13
            suit = self.pain[winner]
            # The pile: the trick's cards but the returned one (TT-2 prices it).
            self.pained[winner] += self.suit_cost[suit] - (
                self.cost[returned] if returned >= 0 and SUIT_OF[returned] == suit else 0
            )
        self.tricks[winner] += 1
        self.trick_no += 1
        self.queue = list(_QUEUES[self.players][leader])
        self.plays, self.led, self.egged, self.special, self.suit_cost = [], -1, -1, 0, [0, 0, 0, 0]
        if self.trick_no > TRICKS_PER_HAND:  # TT-2: bid points minus pain, never below 0
            for s in range(self.players):
                self.scores[s] += max(0, self.bid_points[self.bid[s]][self.tricks[s]] - self.pained[s])
            self.phase = DONE
