"""What each viewer sees (TT-14), `redact` for events, and the conformance
support functions (hidden, revealed and all cards).

Public: drafted cards, ability uses, played cards (the trick on the table),
trick counts, hand sizes, Fire Breathing cards returned to a hand (TT-9).
Hidden: hands and the contents of won tricks; each pain count is revealed at
hand end. Once the game is over every view is the full view.
"""

from __future__ import annotations

import msgspec

from engines.tezuma_trick.cards import ABILITY_NAMES
from engines.tezuma_trick.events import HandDealt, Played, Started, TrickWon
from engines.tezuma_trick.options import BidCard
from engines.tezuma_trick.rules import to_act
from engines.tezuma_trick.state import OVER, SCORED, State


class SeatView(msgspec.Struct, frozen=True, gc=False):
    pain: int  # drafted pain suit, -1 before
    bid: int  # index into bid_cards, -1 before
    ability: str | None
    uses_left: int
    tricks: int
    score: int  # game total so far
    hand_size: int
    shown: tuple[int, ...]  # cards everyone knows are in this hand (TT-9)
    hand: tuple[int, ...] | None = None  # the viewer's own; everyone's once over
    pain_count: int | None = None  # of the hand just scored (TT-14)
    hand_points: int | None = None
    won_cards: tuple[int, ...] | None = None  # only once the game is over


class PlayView(msgspec.Struct, frozen=True, gc=False):
    seat: int
    cards: tuple[int, ...]
    ability: str | None


class View(msgspec.Struct, frozen=True, gc=False):
    players: int
    viewer: int | None
    phase: str  # draft, play, scored, over
    hand_no: int
    hands_total: int
    dealer: int
    to_act: tuple[int, ...]
    bid_cards: tuple[BidCard, ...]
    open_pains: tuple[int, ...]
    open_bids: tuple[int, ...]
    open_abilities: tuple[str, ...]
    seats: tuple[SeatView, ...]
    trick_no: int
    led_suit: int  # -1 before the trick's first card
    trick: tuple[PlayView, ...]
    egged: int  # seat that used Paper Egg this trick, -1
    winners: tuple[int, ...] = ()
    seed: int | None = None  # once over


def view(state: State, seat: int | None) -> View:
    over = state.phase == OVER
    scored = state.phase in (SCORED, OVER)
    n = state.players
    seats = []
    for s in range(n):
        ability = state.ability[s] if state.ability else -1
        hand = state.hands[s] if state.hands else ()
        seats.append(
            SeatView(
                pain=state.pain[s] if state.pain else -1,
                bid=state.bid[s] if state.bid else -1,
                ability=ABILITY_NAMES[ability] if ability >= 0 else None,
                uses_left=state.uses[s] if state.uses else 0,
                tricks=state.tricks[s] if state.tricks else 0,
                score=state.scores[s],
                hand_size=len(hand),
                shown=tuple(card for card in hand if card in state.shown),
                hand=hand if (over or s == seat) else None,
                pain_count=state.last_pain[s] if scored and state.last_pain else None,
                hand_points=state.last_points[s] if scored and state.last_points else None,
                won_cards=state.won[s] if over else None,
            )
        )
    return View(
        players=n,
        viewer=seat,
        phase=state.phase,
        hand_no=state.hand_no,
        hands_total=n,
        dealer=state.dealer,
        to_act=tuple(sorted(to_act(state))),
        bid_cards=state.options.bid_cards,
        open_pains=state.open_pains,
        open_bids=state.open_bids,
        open_abilities=tuple(ABILITY_NAMES[a] for a in state.open_abilities),
        seats=tuple(seats),
        trick_no=state.trick_no,
        led_suit=state.led,
        trick=tuple(
            PlayView(seat=s, cards=cards, ability=ABILITY_NAMES[a] if a >= 0 else None) for s, cards, a in state.plays
        ),
        egged=state.egged,
        winners=state.winners,
        seed=state.seed if over else None,
    )


def redact(event, viewer: int | None):
    kind = type(event)
    if kind is Started:
        # Seed, deck orders and later hands' face-up cards stay server-side.
        return Started(
            players=event.players,
            options=event.options,
            first_dealer=event.first_dealer,
            commitment=event.commitment,  # public from the start (provably fair deals)
        )
    if kind is HandDealt:
        hands = tuple(hand if seat == viewer else () for seat, hand in enumerate(event.hands))
        return msgspec.structs.replace(event, hands=hands)
    return event


# --- GEN-1: a trick's cards are public until it is won (TT-14) ------------------


def moment(state: State | None, event):
    """A play's cards belong to the trick in play; a Fire Breathing card
    returned to a hand (TT-9) is public while it stays in that hand."""
    kind = type(event)
    if state is None:  # before the first event, `Started`, which has no moment
        return None
    if kind is Played:
        return (state.hand_no, state.trick_no)
    if kind is TrickWon and event.returned >= 0:
        return ("shown", state.hand_no, event.returned)
    return None


def moments(state: State) -> frozenset:
    lasting: set[tuple[str | int, ...]] = {(state.hand_no, state.trick_no)}
    lasting.update(("shown", state.hand_no, card) for card in state.shown)
    return frozenset(lasting)


def blank(event):
    kind = type(event)
    if kind is Played and event.cards:
        return msgspec.structs.replace(event, cards=())  # the seat and the ability used stay public
    if kind is TrickWon and event.returned >= 0:
        return msgspec.structs.replace(event, returned=-1)  # played again since: in a won trick now
    return event


def blank_view(view: View, state: State, lasting: frozenset) -> View:
    replace = msgspec.structs.replace
    if view.trick and (state.hand_no, state.trick_no) not in lasting:
        view = replace(view, trick=tuple(replace(play, cards=()) for play in view.trick))
    if any(seat.shown for seat in view.seats):
        seats = tuple(
            replace(seat, shown=tuple(c for c in seat.shown if ("shown", state.hand_no, c) in lasting))
            for seat in view.seats
        )
        view = replace(view, seats=seats)
    return view


def past_cards(state: State) -> frozenset:
    """The cards in this hand's won tricks."""
    if state.phase == OVER:
        return frozenset()
    return frozenset(card for pile in state.won for card in pile)


# --- conformance support --------------------------------------------------------


def hidden_cards(state: State, viewer: int | None) -> frozenset:
    if state.phase == OVER or not state.hands:
        return frozenset()
    shown = state.shown
    return frozenset(
        card for seat, hand in enumerate(state.hands) if seat != viewer for card in hand if card not in shown
    )


def revealed_cards(obj) -> frozenset:
    kind = type(obj)
    if kind is View:
        cards = set()
        for seat in obj.seats:
            cards.update(seat.shown)
            cards.update(seat.hand or ())
            cards.update(seat.won_cards or ())
        for play in obj.trick:
            cards.update(play.cards)
        return frozenset(cards)
    if kind is HandDealt:
        return frozenset(card for hand in obj.hands for card in hand)
    if kind is Played:
        return frozenset(obj.cards)
    if kind is TrickWon:
        return frozenset({obj.returned}) if obj.returned >= 0 else frozenset()
    if kind is Started:
        return frozenset(card for deck in obj.decks for card in deck)
    return frozenset()


def all_cards(state: State) -> list:
    cards = [card for hand in state.hands for card in hand]
    cards.extend(card for _, played, _ in state.plays for card in played)
    cards.extend(card for pile in state.won for card in pile)
    return cards
