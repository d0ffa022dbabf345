"""The folded state and `evolve`, a dispatch table keyed by event type.

Hot paths (Played, TrickWon) touch only tuples and ints; msgspec's
`replace` copies the rest of the struct in C.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
from msgspec.structs import replace

from .cards import JOKER, SUIT_INDEX, deck_for
from .events import Dealt, Directed, Event, GameEnded, JokerPlayed, Played, RoundEnded, Started, TrickWon
from .options import Options

# Phases: small ints for speed; view.py names them.
DEAL, DIRECT, PLAY, OVER = 0, 1, 2, 3


class State(msgspec.Struct, frozen=True, gc=False):
    players: int
    options: Options
    rounds: int
    seed: int
    decks: tuple[tuple[int, ...], ...]
    first_dealer: int
    round: int
    dealer: int
    phase: int
    turn: int  # the one seat that may act (deal, direct or play)
    high: bool
    order: tuple[int, ...]  # suit indexes, strongest actor first
    hands: tuple[tuple[int, ...], ...]  # per seat; with 2 players index 2 is the dummy pile
    stock: tuple[int, ...]  # undealt suit cards (before the first deal)
    discard: tuple[int, ...]
    trick: tuple[int, ...]
    trick_seats: tuple[int, ...]
    trick_no: int  # 1..7
    second: int  # KT-13: who plays second after the dummy's lead
    tricks_won: tuple[int, ...]  # per seat (and the dummy)
    won: tuple[tuple[tuple[int, ...], ...], ...]  # per seat (and the dummy): its tricks
    placed: tuple[int, ...]  # per suit: the seat whose Player card sits there, or -1
    predictions: tuple[int, ...]  # per seat: the placed value, 0 = none
    scores: tuple[int, ...]
    history: tuple[tuple[int, ...], ...]  # points per round
    trick_size: int  # cards per trick: the players, plus the dummy with 2 (KT-13)
    last_round: RoundEnded | None = None
    ended: GameEnded | None = None
    salt: str = ""  # private until GameEnded reveals it (provably fair deals)


def _started(_state: State | None, e: Started) -> State:
    n = e.players
    hands_count = n + (1 if n == 2 else 0)
    return State(
        players=n,
        options=e.options,
        rounds=e.rounds,
        seed=e.seed if e.seed is not None else 0,
        decks=e.decks,
        salt=e.salt or "",
        first_dealer=e.first_dealer,
        round=1,
        dealer=e.first_dealer,
        phase=DEAL,
        turn=e.first_dealer,
        high=e.high,
        order=tuple(SUIT_INDEX[s] for s in e.order),
        hands=tuple((JOKER + s,) for s in range(n)) + (((),) if n == 2 else ()),
        stock=deck_for(n),
        discard=(),
        trick=(),
        trick_seats=(),
        trick_no=1,
        second=e.first_dealer,
        tricks_won=(0,) * hands_count,
        won=((),) * hands_count,
        placed=(-1, -1, -1, -1),
        predictions=(0,) * n,
        scores=(0,) * n,
        history=(),
        trick_size=n if n > 2 else 3,
    )


def _dealt(s: State, e: Dealt) -> State:
    n = s.players
    hands = tuple(tuple(sorted(h)) + (JOKER + seat,) for seat, h in enumerate(e.hands))
    if n == 2:
        hands += (e.dummy,)
    count = len(hands)
    return replace(
        s,
        round=e.round,
        dealer=e.dealer,
        phase=DIRECT,
        turn=e.dealer,
        hands=hands,
        stock=(),
        discard=e.discard,
        trick=(),
        trick_seats=(),
        trick_no=1,
        second=e.dealer,
        tricks_won=(0,) * count,
        won=((),) * count,
        placed=(-1, -1, -1, -1),
        predictions=(0,) * n,
    )


def _directed(s: State, e: Directed) -> State:
    # The dealer leads trick 1; with 2 players the dummy leads and the dealer is second.
    return replace(
        s,
        phase=PLAY,
        high=e.high,
        order=tuple(SUIT_INDEX[x] for x in e.order),
        turn=2 if s.players == 2 else e.seat,
    )


def _next_turn(s: State, seat: int) -> int:
    # Clockwise; with 2 players: dummy, then the "second" seat, then the other (KT-13).
    n = s.players
    if n == 2:
        return s.second if seat == 2 else 1 - seat
    return seat + 1 if seat + 1 < n else 0


def _played(s: State, e: Played) -> State:
    seat, card = e.seat, e.card
    hands = s.hands
    hand = hands[seat]
    i = hand.index(card)
    n = s.players
    turn = (s.second if seat == 2 else 1 - seat) if n == 2 else (seat + 1 if seat + 1 < n else 0)
    return replace(
        s,
        hands=hands[:seat] + (hand[:i] + hand[i + 1 :],) + hands[seat + 1 :],
        trick=s.trick + (card,),
        trick_seats=s.trick_seats + (seat,),
        turn=turn,
    )


def _joker_played(s: State, e: JokerPlayed) -> State:
    seat = e.seat
    hands = s.hands
    hand = hands[seat]
    card = JOKER + seat
    placed, predictions = s.placed, s.predictions
    if e.actor is not None:  # KT-7: the 5th Joker places nothing
        suit = SUIT_INDEX[e.actor]
        placed = placed[:suit] + (seat,) + placed[suit + 1 :]
        predictions = predictions[:seat] + (e.prediction or 0,) + predictions[seat + 1 :]
    high, order = s.high, s.order
    adjust = e.adjust
    if adjust is not None:  # KT-6; Player cards sit by suit, so they move with their actor
        if adjust.flip:
            high = not high
        else:
            i = adjust.swap
            assert i is not None  # rules admit an adjust that flips or swaps
            order = order[:i] + (order[i + 1], order[i]) + order[i + 2 :]
    return replace(
        s,
        hands=hands[:seat] + (hand[: hand.index(card)],) + hands[seat + 1 :],
        trick=s.trick + (card,),
        trick_seats=s.trick_seats + (seat,),
        turn=_next_turn(s, seat),
        placed=placed,
        predictions=predictions,
        high=high,
        order=order,
    )


def _trick_won(s: State, e: TrickWon) -> State:
    w = e.seat
    won = s.won
    counts = s.tricks_won
    return replace(
        s,
        tricks_won=counts[:w] + (counts[w] + 1,) + counts[w + 1 :],
        won=won[:w] + (won[w] + (s.trick,),) + won[w + 1 :],
        trick=(),
        trick_seats=(),
        trick_no=s.trick_no + 1,
        turn=2 if s.players == 2 else e.next,
        second=e.next,
    )


def _round_ended(s: State, e: RoundEnded) -> State:
    points = tuple(line.total for line in e.lines)
    n = s.players
    last = s.round == s.rounds
    dealer = s.dealer if last else (s.dealer + 1) % n
    return replace(
        s,
        phase=DEAL,
        round=s.round if last else s.round + 1,
        dealer=dealer,
        turn=dealer,
        scores=tuple(a + b for a, b in zip(s.scores, points, strict=True)),
        history=s.history + (points,),
        last_round=e,
    )


def _game_ended(s: State, e: GameEnded) -> State:
    return replace(s, phase=OVER, ended=e)


# Keyed by the event's type; a table cannot tie each key to its handler's
# parameter type, so the handlers are called with `Any`.
_EVOLVE: dict[type[Event], Callable[[Any, Any], State]] = {
    Started: _started,
    Dealt: _dealt,
    Directed: _directed,
    Played: _played,
    JokerPlayed: _joker_played,
    TrickWon: _trick_won,
    RoundEnded: _round_ended,
    GameEnded: _game_ended,
}


def evolve(state: State | None, event: Event) -> State:
    return _EVOLVE[type(event)](state, event)
