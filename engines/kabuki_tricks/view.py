"""What a seat (or a spectator, seat None) sees, and event redaction (KT-11).

Public: the configuration, every played card (the trick in progress), trick
counts, where Player cards sit (not their values). Hidden until the round's
reveal: hands, Player card values (a seat sees its own), the discard pile, the
contents of won tricks. After the game ends every view is the full view.
"""

from __future__ import annotations

import msgspec
from msgspec.structs import replace

from .cards import JOKER, SUITS, is_joker, player_card
from .events import Dealt, GameEnded, JokerPlayed, Played, RoundEnded, Started, TrickWon
from .state import OVER, State

PHASES = ("deal", "direct", "play", "over")


class SeatView(msgspec.Struct, frozen=True, gc=False):
    seat: int
    hand_size: int
    has_joker: bool
    tricks: int
    actor: str | None  # where its Player card sits: public (KT-11)
    prediction: int | None  # its value: only the seat itself, or the full view
    score: int


class View(msgspec.Struct, frozen=True, gc=False):
    viewer: int | None
    players: int
    round: int
    rounds: int
    dealer: int
    phase: str
    turn: int | None
    high: bool
    order: tuple[str, ...]  # strongest actor first
    hand: tuple[int, ...]  # the viewer's own cards
    # (seat, card) in play order; seat 2 = dummy with 2 players. In a replay
    # of a trick won since, the cards are None (GEN-1).
    trick: tuple[tuple[int, int | None], ...]
    trick_no: int
    seats: tuple[SeatView, ...]
    dummy_left: int  # KT-13 pile size (0 without a dummy)
    dummy_tricks: int
    history: tuple[tuple[int, ...], ...]  # points per round
    # The latest public reveal, shown until the next deal: the same physical
    # cards are then dealt again, and their new places are secret.
    last_round: RoundEnded | None
    full: bool = False  # True once the game is over: the fields below are filled
    hands: tuple[tuple[int, ...], ...] = ()
    discard: tuple[int, ...] = ()
    won: tuple[tuple[tuple[int, ...], ...], ...] = ()
    seed: int | None = None


def view(state: State, seat: int | None) -> View:
    n = state.players
    full = state.phase == OVER
    actor_of: list[str | None] = [None] * n
    for suit, owner in enumerate(state.placed):
        if owner >= 0:
            actor_of[owner] = SUITS[suit]
    seats = tuple(
        SeatView(
            seat=s,
            hand_size=len(state.hands[s]),
            has_joker=bool(state.hands[s]) and state.hands[s][-1] >= JOKER,
            tricks=state.tricks_won[s],
            actor=actor_of[s],
            prediction=(state.predictions[s] or None) if (full or s == seat) else None,
            score=state.scores[s],
        )
        for s in range(n)
    )
    return View(
        viewer=seat,
        players=n,
        round=state.round,
        rounds=state.rounds,
        dealer=state.dealer,
        phase=PHASES[state.phase],
        turn=None if full else state.turn,
        high=state.high,
        order=tuple(SUITS[i] for i in state.order),
        hand=state.hands[seat] if seat is not None and seat < n else (),
        trick=tuple(zip(state.trick_seats, state.trick, strict=True)),
        trick_no=state.trick_no,
        seats=seats,
        dummy_left=len(state.hands[2]) if n == 2 else 0,
        dummy_tricks=state.tricks_won[2] if n == 2 else 0,
        history=state.history,
        last_round=state.last_round if state.phase in (0, OVER) else None,
        full=full,
        hands=state.hands if full else (),
        discard=state.discard if full else (),
        won=state.won if full else (),
        seed=state.seed if full else None,
    )


def redact(event, viewer: int | None):
    kind = type(event)
    if kind is Started:
        return replace(event, seed=None, decks=(), salt=None)  # the commitment stays public
    if kind is Dealt:
        hands = tuple(h if s == viewer else () for s, h in enumerate(event.hands))
        return replace(event, hands=hands, dummy=(), discard=())
    if kind is JokerPlayed and event.seat != viewer and event.prediction is not None:
        return replace(event, prediction=None)
    return event


# --- GEN-1: a trick's cards are public until it is won (KT-11) -------------------


def moment(state: State | None, event):
    """A played card and the won trick's cards belong to the trick in play."""
    kind = type(event)
    if state is None:  # before the first event, `Started`, which has no moment
        return None
    if kind is Played or kind is TrickWon:
        return (state.round, state.trick_no)
    return None  # a Joker's placement is public for good (KT-11); hands are redacted


def moments(state: State) -> frozenset:
    lasting = {(state.round, state.trick_no)}
    if state.phase == 0 and state.last_round is not None:
        # The round's public reveal (KT-11) shows every trick of it until
        # the next deal, as the view does (`last_round`).
        ended = state.last_round.round
        lasting.update((ended, trick) for trick in range(1, 9))
    return frozenset(lasting)


def blank(event):
    kind = type(event)
    if kind is Played:
        return replace(event, card=None)
    if kind is TrickWon:
        return replace(event, cards=())
    return event


def blank_view(view: View, state: State, lasting: frozenset) -> View:
    if not view.trick or (state.round, state.trick_no) in lasting:
        return view
    return replace(view, trick=tuple((seat, None) for seat, _card in view.trick))


def past_cards(state: State) -> frozenset:
    """The suit cards of this round's won tricks (a Joker is known by its seat);
    none between rounds, when the round's reveal shows them all (KT-11)."""
    if state.phase in (0, OVER):
        return frozenset()
    return frozenset(card for tricks in state.won for trick in tricks for card in trick if not is_joker(card))


# --- conformance support -------------------------------------------------------


def _player_card_of(seat: int, prediction: int | None) -> tuple[int, ...]:
    return (player_card(seat, prediction),) if prediction else ()


def _round_cards(e: RoundEnded) -> list[int]:
    cards = list(e.finals) + list(e.discard)
    for tricks in e.won:
        for trick in tricks:
            cards.extend(trick)
    for seat, p in enumerate(e.predictions):
        cards.extend(_player_card_of(seat, p))
    return cards


def revealed_cards(obj) -> frozenset:
    kind = type(obj)
    cards: list[int] = []
    if kind is View:
        cards.extend(obj.hand)
        cards.extend(card for _seat, card in obj.trick if card is not None)
        for sv in obj.seats:
            cards.extend(_player_card_of(sv.seat, sv.prediction))
        if obj.last_round is not None:
            cards.extend(_round_cards(obj.last_round))
        for hand in obj.hands:
            cards.extend(hand)
        cards.extend(obj.discard)
        for tricks in obj.won:
            for trick in tricks:
                cards.extend(trick)
    elif kind is Started:
        for deck in obj.decks:
            cards.extend(deck)
    elif kind is Dealt:
        for hand in obj.hands:
            cards.extend(hand)
        cards.extend(obj.dummy)
        cards.extend(obj.discard)
    elif kind is Played:
        if obj.card is not None:
            cards.append(obj.card)
    elif kind is JokerPlayed:
        cards.append(JOKER + obj.seat)
        cards.extend(_player_card_of(obj.seat, obj.prediction))
    elif kind is TrickWon:
        cards.extend(obj.cards)
    elif kind is RoundEnded:
        cards.extend(_round_cards(obj))
    elif kind is GameEnded:
        pass
    return frozenset(cards)


def hidden_cards(state: State, viewer: int | None) -> frozenset:
    phase = state.phase
    if phase == OVER:
        return frozenset()
    hidden = set(state.stock)  # before the first deal: the face-down deck
    if state.stock or state.last_round is not None and phase == 0:
        return frozenset(hidden)  # between rounds everything was revealed
    hidden.update(state.discard)
    for seat, hand in enumerate(state.hands):
        if seat != viewer:
            # Each seat's own Joker is known to be in its hand until played.
            hidden.update(c for c in hand if not is_joker(c))
    for seat, value in enumerate(state.predictions):
        if seat != viewer and value:
            hidden.add(player_card(seat, value))
    return frozenset(hidden)


def all_cards(state: State) -> list:
    cards = list(state.stock) + list(state.discard) + list(state.trick)
    for hand in state.hands:
        cards.extend(hand)
    for tricks in state.won:
        for trick in tricks:
            cards.extend(trick)
    # Player cards: three per seat, placed or not (KT-1).
    cards.extend(player_card(seat, v) for seat in range(state.players) for v in (1, 2, 3))
    return cards
