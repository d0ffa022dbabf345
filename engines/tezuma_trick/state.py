"""The state of a Tezuma Trick table and `evolve`, the one function that
folds events into it (pure: every handler returns a new State).

Per-seat fields are tuples indexed by seat. A trick in progress is `plays`:
(seat, cards, ability id) in play order, and `queue`: the seats still to act,
the head acting now (Paper Egg moves its user to the back, TT-7).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from engines.tezuma_trick.cards import ABILITY_IDS, ABILITY_USES, NO_ABILITY, SUIT_OF
from engines.tezuma_trick.events import (
    EggDeclared,
    Event,
    GameEnded,
    HandDealt,
    HandScored,
    PickedAbility,
    PickedBid,
    PickedPain,
    Played,
    Started,
    TrickWon,
)
from engines.tezuma_trick.options import Options

DRAFT, PLAY, SCORED, OVER = "draft", "play", "scored", "over"

replace = msgspec.structs.replace


class State(msgspec.Struct, frozen=True, gc=False):
    players: int
    options: Options
    first_dealer: int
    seed: int
    decks: tuple[tuple[int, ...], ...]  # private: deck order per hand
    bid_rows: tuple[tuple[int, ...], ...]  # private: face-up Bid cards per hand
    ability_rows: tuple[tuple[int, ...], ...]
    phase: str = SCORED
    hand_no: int = 0  # 1..players once dealt
    dealer: int = 0
    draft_order: tuple[int, ...] = ()  # the snake of TT-4, one seat per pick
    pick_no: int = 0
    open_pains: tuple[int, ...] = ()
    open_bids: tuple[int, ...] = ()
    open_abilities: tuple[int, ...] = ()
    pain: tuple[int, ...] = ()  # per seat; -1 until drafted
    bid: tuple[int, ...] = ()
    ability: tuple[int, ...] = ()
    uses: tuple[int, ...] = ()  # ability uses left this hand
    hands: tuple[tuple[int, ...], ...] = ()  # sorted
    shown: frozenset[int] = frozenset()  # cards in hands everyone knows (TT-9 returns)
    trick_no: int = 0
    queue: tuple[int, ...] = ()
    plays: tuple[tuple[int, tuple[int, ...], int], ...] = ()
    led: int = -1  # the led suit, -1 before the first card of the trick
    egged: int = -1  # the seat that used Paper Egg in this trick
    won: tuple[tuple[int, ...], ...] = ()  # cards in each seat's won tricks
    tricks: tuple[int, ...] = ()
    scores: tuple[int, ...] = ()  # game totals
    last_pain: tuple[int, ...] = ()  # revealed at hand end (TT-14)
    last_points: tuple[int, ...] = ()
    places: tuple[int, ...] = ()
    winners: tuple[int, ...] = ()
    salt: str = ""  # private until GameEnded reveals it (provably fair deals)


_SEATS_FROM = {n: tuple(tuple((first + i) % n for i in range(n)) for first in range(n)) for n in (3, 4)}


def seats_from(first: int, players: int) -> tuple[int, ...]:
    """The seats in clockwise order starting with `first`."""
    return _SEATS_FROM[players][first % players]


def _set(values: tuple, seat: int, value) -> tuple:
    return values[:seat] + (value,) + values[seat + 1 :]


def _started(state: None, event: Started) -> State:
    n = event.players
    return State(
        players=n,
        options=event.options,
        first_dealer=event.first_dealer,
        seed=event.seed or 0,
        decks=event.decks,
        bid_rows=event.bid_rows,
        ability_rows=event.ability_rows,
        salt=event.salt or "",
        scores=(0,) * n,
    )


def _hand_dealt(state: State, event: HandDealt) -> State:
    n = state.players
    order = seats_from(event.dealer + 1, n)  # TT-4: left of the dealer starts
    empty = (-1,) * n
    return replace(
        state,
        phase=DRAFT,
        hand_no=event.hand,
        dealer=event.dealer,
        draft_order=order + order[::-1] + order,
        pick_no=0,
        open_pains=(0, 1, 2, 3),
        open_bids=event.bids,
        open_abilities=tuple(ABILITY_IDS[name] for name in event.abilities),
        pain=empty,
        bid=empty,
        ability=empty,
        uses=(0,) * n,
        hands=tuple(tuple(sorted(hand)) for hand in event.hands),
        shown=frozenset(),
        trick_no=0,
        queue=(),
        plays=(),
        led=-1,
        egged=-1,
        won=((),) * n,
        tricks=(0,) * n,
    )


def _after_pick(state: State, **changes) -> State:
    pick_no = state.pick_no + 1
    if pick_no < len(state.draft_order):
        return replace(state, pick_no=pick_no, **changes)
    # TT-5: the start player (left of the dealer) leads trick 1.
    return replace(
        state,
        pick_no=pick_no,
        phase=PLAY,
        trick_no=1,
        queue=seats_from(state.dealer + 1, state.players),
        **changes,
    )


def _picked_pain(state: State, event: PickedPain) -> State:
    return _after_pick(
        state,
        pain=_set(state.pain, event.seat, event.suit),
        open_pains=tuple(s for s in state.open_pains if s != event.suit),
    )


def _picked_bid(state: State, event: PickedBid) -> State:
    return _after_pick(
        state,
        bid=_set(state.bid, event.seat, event.bid),
        open_bids=tuple(b for b in state.open_bids if b != event.bid),
    )


def _picked_ability(state: State, event: PickedAbility) -> State:
    ability = ABILITY_IDS[event.ability]
    return _after_pick(
        state,
        ability=_set(state.ability, event.seat, ability),
        uses=_set(state.uses, event.seat, ABILITY_USES[ability]),
        open_abilities=tuple(a for a in state.open_abilities if a != ability),
    )


def _egg_declared(state: State, event: EggDeclared) -> State:
    seat = event.seat
    return replace(
        state,
        uses=_set(state.uses, seat, state.uses[seat] - 1),
        egged=seat,
        queue=state.queue[1:] + (seat,),
    )


def _played(state: State, event: Played) -> State:
    seat, cards = event.seat, event.cards
    hand = state.hands[seat]
    for card in cards:
        at = hand.index(card)
        hand = hand[:at] + hand[at + 1 :]
    ability = NO_ABILITY
    uses = state.uses
    if event.ability is not None:
        ability = ABILITY_IDS[event.ability]
        uses = _set(uses, seat, uses[seat] - 1)
    shown = state.shown
    if shown and not shown.isdisjoint(cards):
        shown = shown.difference(cards)
    led = state.led
    if led < 0 and cards:
        led = SUIT_OF[cards[0]]
    return replace(
        state,
        hands=_set(state.hands, seat, hand),
        plays=state.plays + ((seat, cards, ability),),
        queue=state.queue[1:],
        uses=uses,
        shown=shown,
        led=led,
    )


def _trick_won(state: State, event: TrickWon) -> State:
    winner, returned = event.winner, event.returned
    pile = tuple(card for _, cards, _ in state.plays for card in cards if card != returned)
    hands, shown = state.hands, state.shown
    if returned >= 0:
        owner = event.returned_to
        hands = _set(hands, owner, tuple(sorted(hands[owner] + (returned,))))
        shown = shown | {returned}
    return replace(
        state,
        hands=hands,
        shown=shown,
        won=_set(state.won, winner, state.won[winner] + pile),
        tricks=_set(state.tricks, winner, state.tricks[winner] + 1),
        trick_no=state.trick_no + 1,
        queue=seats_from(event.next_leader, state.players),
        plays=(),
        led=-1,
        egged=-1,
    )


def _hand_scored(state: State, event: HandScored) -> State:
    # The cards stay where they are until the next deal replaces them, so the
    # final view can show the last hand whole.
    return replace(
        state,
        phase=SCORED,
        queue=(),
        scores=event.totals,
        last_pain=event.pain,
        last_points=event.points,
    )


def _game_ended(state: State, event: GameEnded) -> State:
    return replace(state, phase=OVER, places=event.places, winners=event.winners)


# Keyed by the event's type; a table cannot tie each key to its handler's
# parameter type, so the handlers are called with `Any`.
_EVOLVE: dict[type[Event], Callable[[Any, Any], State]] = {
    Started: _started,
    HandDealt: _hand_dealt,
    PickedPain: _picked_pain,
    PickedBid: _picked_bid,
    PickedAbility: _picked_ability,
    EggDeclared: _egg_declared,
    Played: _played,
    TrickWon: _trick_won,
    HandScored: _hand_scored,
    GameEnded: _game_ended,
}


def evolve(state: State | None, event: Event) -> State:
    return _EVOLVE[type(event)](state, event)
