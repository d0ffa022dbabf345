"""Cahoots state and its one `evolve` (a dispatch table on event type)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
from msgspec.structs import replace

from engines.cahoots.cards import TRICKS, VALUE_OF
from engines.cahoots.events import Chose, Dealt, Event, GameEnded, Picked, Played, Started, TrickScored
from engines.cahoots.options import Options

# Phases.
DEALING = "dealing"  # between Started and Dealt
PLAY = "play"  # CH-3: two laps from the start player
CHOOSE = "choose"  # CH-4: two keep/kill passes from the start player
SCORING = "scoring"  # all choices made: the next event is TrickScored
PICK = "pick"  # CH-8: scorers take killed cards in snake order
ENDED = "ended"  # trick 11 is done: the next event is GameEnded
OVER = "over"


class TrickRecord(msgspec.Struct, frozen=True, gc=False):
    """A scored trick, public (CH-9): cards in play order from `start`,
    choices in order from `start` ((card, keep) pairs; the second lap is the
    second pass)."""

    trick: int
    start: int
    cards: tuple[int, ...]
    choices: tuple[tuple[int, bool], ...]
    winning_suits: tuple[int, ...]
    points: tuple[int, ...]
    reserve_card: int = -1


class State(msgspec.Struct, frozen=True, gc=False):
    players: int
    options: Options
    seed: int
    identities: tuple[int, ...]
    dealer: int
    deck: tuple[int, ...]
    reserve: tuple[int, ...]  # still face down, in draw order (CH-6)
    hands: tuple[tuple[int, ...], ...]
    scores: tuple[int, ...]  # CH-5 gives whole points; CH-8 face values are whole too
    won: tuple[tuple[int, ...], ...]  # point cards taken per seat (CH-8 only)
    # Cards ever kept from the table: everyone saw them go into a hand (CH-9).
    known: frozenset[int] = frozenset()
    trick: int = 1
    start: int = 0  # start player of the current trick (CH-2)
    phase: str = DEALING
    actor: int = -1  # the one seat that acts now, or -1
    table: tuple[int, ...] = ()  # cards in play order; card i is seat (start + i) % n
    choices: tuple[tuple[int, bool], ...] = ()  # (card, keep) in order; choice j is seat (start + j) % n
    free: tuple[int, ...] = ()  # table cards nobody has kept or killed yet (CH-4)
    pool: tuple[int, ...] = ()  # killed cards waiting to be picked (CH-8)
    picks: tuple[int, ...] = ()  # seats still to pick, in order (CH-8)
    discard: tuple[int, ...] = ()
    last_trick: TrickRecord | None = None
    result: GameEnded | None = None
    salt: str = ""  # private until GameEnded reveals it (provably fair deals)


def _started(state: State | None, event: Started) -> State:
    n = event.players
    return State(
        players=n,
        options=event.options,
        seed=event.seed or 0,
        salt=event.salt or "",
        identities=event.identities,
        dealer=event.dealer,
        deck=event.deck,
        reserve=event.reserve,
        hands=((),) * n,
        scores=(0,) * n,
        won=((),) * n,
        start=event.dealer,
    )


def _dealt(state: State, event: Dealt) -> State:
    return replace(state, hands=event.hands, phase=PLAY, actor=state.start)


def _played(state: State, event: Played) -> State:
    seat, card = event.seat, event.card
    hands = list(state.hands)
    hand = hands[seat]
    i = hand.index(card)
    hands[seat] = hand[:i] + hand[i + 1 :]
    table = state.table + (card,)
    n = state.players
    if len(table) < 2 * n:
        return replace(state, hands=tuple(hands), table=table, actor=(state.start + len(table)) % n)
    if state.trick == TRICKS and not state.options.face_value_scoring:
        # CH-7: the last keep/kill only distributes point cards; no choices.
        return replace(state, hands=tuple(hands), table=table, phase=SCORING, actor=-1)
    return replace(state, hands=tuple(hands), table=table, free=table, phase=CHOOSE, actor=state.start)


def _chose(state: State, event: Chose) -> State:
    card = event.card
    choices = state.choices + ((card, event.keep),)
    free = state.free
    i = free.index(card)
    free = free[:i] + free[i + 1 :]
    n = state.players
    if len(choices) < 2 * n:
        return replace(state, choices=choices, free=free, actor=(state.start + len(choices)) % n)
    return replace(state, choices=choices, free=free, phase=SCORING, actor=-1)


def _close_trick(state: State, **changes) -> State:
    """Clear the table; the start player moves left (CH-2) or the game ends."""
    if state.trick == TRICKS:
        return replace(state, table=(), choices=(), phase=ENDED, actor=-1, **changes)
    start = (state.start + 1) % state.players
    return replace(state, table=(), choices=(), trick=state.trick + 1, start=start, phase=PLAY, actor=start, **changes)


def _trick_scored(state: State, event: TrickScored) -> State:
    n, start = state.players, state.start
    last = state.trick == TRICKS
    hands = list(state.hands)
    discard = state.discard
    killed: tuple[int, ...] = ()
    known = state.known
    if state.choices:
        for j, (card, keep) in enumerate(state.choices):
            if not keep:
                killed += (card,)
            elif last:  # the last trick's kept cards have no hand to join
                discard += (card,)
            else:
                seat = (start + j) % n
                hands[seat] = hands[seat] + (card,)
                known = known | {card}
    else:  # CH-7 in base scoring: the whole table is scored and discarded
        killed = state.table
    reserve = state.reserve
    if event.reserve_card >= 0:  # CH-6
        killed += (event.reserve_card,)
        reserve = reserve[1:]
    record = TrickRecord(
        state.trick, start, state.table, state.choices, event.winning_suits, event.points, event.reserve_card
    )
    if event.pick_order:  # CH-8: the killed cards wait for the scorers' picks
        return replace(
            state,
            hands=tuple(hands),
            reserve=reserve,
            discard=discard,
            known=known,
            table=(),  # the cards have gone to hands, the pool and the discard
            choices=(),
            pool=killed,
            picks=event.pick_order,
            phase=PICK,
            actor=event.pick_order[0],
            last_trick=record,
        )
    scores = tuple(a + b for a, b in zip(state.scores, event.points, strict=True))
    return _close_trick(
        state,
        hands=tuple(hands),
        reserve=reserve,
        discard=discard + killed,
        known=known,
        scores=scores,
        last_trick=record,
    )


def _picked(state: State, event: Picked) -> State:
    seat, card = event.seat, event.card
    pool = state.pool
    i = pool.index(card)
    pool = pool[:i] + pool[i + 1 :]
    won = list(state.won)
    won[seat] = won[seat] + (card,)
    scores = list(state.scores)
    scores[seat] += VALUE_OF[card]
    picks = state.picks[1:]
    if picks:
        return replace(state, pool=pool, picks=picks, won=tuple(won), scores=tuple(scores), actor=picks[0])
    # CH-5: with three scorers the fourth killed card is nobody's.
    return _close_trick(state, pool=(), picks=(), won=tuple(won), scores=tuple(scores), discard=state.discard + pool)


def _game_ended(state: State, event: GameEnded) -> State:
    return replace(state, phase=OVER, actor=-1, result=event)


# Keyed by the event's type; a table cannot tie each key to its handler's
# parameter type, so the handlers are called with `Any`.
_EVOLVE: dict[type[Event], Callable[[Any, Any], State]] = {
    Started: _started,
    Dealt: _dealt,
    Played: _played,
    Chose: _chose,
    TrickScored: _trick_scored,
    Picked: _picked,
    GameEnded: _game_ended,
}


def evolve(state: State | None, event: Event) -> State:
    return _EVOLVE[type(event)](state, event)
