"""Kabuki state and its one `evolve` (a dispatch table; pure)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
from msgspec.structs import replace

from engines.kabuki_masks.cards import EMPTY_PILES
from engines.kabuki_masks.events import (
    Event,
    GameEnded,
    Placed,
    Revealed,
    RoundEnded,
    RoundStarted,
    Started,
    Stopped,
)


class State(msgspec.Struct, frozen=True, gc=False):
    players: int
    stop_window_ms: int
    seed: int
    decks: tuple[tuple[int, ...], ...]  # private: deck order of every round
    round: int = 0
    tokens: tuple[int, ...] = ()
    banked: tuple[int, ...] = ()  # KM-6: tokens held at the end of finished rounds, summed
    piles: tuple[tuple[int, ...], ...] = EMPTY_PILES  # bottom to top
    drawn: int = 0  # cards taken from this round's deck (the revealed one included)
    revealed: int | None = None  # KM-1: the face-up card `placer` must place
    placer: int | None = None
    placements: int = 0  # placements in the game so far = the latest's number
    last_seat: int | None = None  # who made the latest placement of this round
    last_pile: int = 0
    last_at_ms: int = 0
    called: bool = False  # KM-2: Stop was called on the latest placement
    stopped_at_ms: int = 0  # that Stop's time: a round it ends ends then (KM-5)
    ended_at_ms: int | None = None  # the round is over (next one is due then)
    ended_by: int | None = None
    over: bool = False
    salt: str = ""  # private until GameEnded reveals it (provably fair deals)

    @property
    def deck(self) -> tuple[int, ...]:
        return self.decks[self.round - 1] if self.round else ()


def _started(state: State | None, e: Started) -> State:
    return State(
        players=e.players,
        stop_window_ms=e.stop_window_ms,
        seed=e.seed or 0,
        decks=e.decks,
        salt=e.salt or "",
        tokens=(0,) * e.players,
        banked=(0,) * e.players,
    )


def _round_started(s: State, e: RoundStarted) -> State:
    return replace(
        s,
        round=e.round,
        tokens=(e.tokens,) * s.players,
        piles=EMPTY_PILES,
        drawn=0,
        revealed=None,
        placer=None,
        last_seat=None,
        called=False,
        ended_at_ms=None,
        ended_by=None,
    )


def _revealed(s: State, e: Revealed) -> State:
    return replace(s, drawn=s.drawn + 1, revealed=e.card, placer=e.seat)


def _placed(s: State, e: Placed) -> State:
    card = e.card
    assert card is not None  # the log has every card; only a viewer's redacted copy lacks it
    piles = list(s.piles)
    piles[e.pile] = piles[e.pile] + (card,)
    return replace(
        s,
        piles=tuple(piles),
        revealed=None,
        placer=None,
        placements=e.placement,
        last_seat=e.seat,
        last_pile=e.pile,
        last_at_ms=e.placed_at_ms,
        called=False,
    )


def _stopped(s: State, e: Stopped) -> State:
    tokens = list(s.tokens)
    tokens[e.placer] -= e.moved
    tokens[e.caller] += e.moved - e.returned
    return replace(s, tokens=tuple(tokens), called=True, stopped_at_ms=e.at_ms)


def _round_ended(s: State, e: RoundEnded) -> State:
    return replace(
        s,
        banked=tuple(b + t for b, t in zip(s.banked, e.tokens, strict=True)),
        placer=None,
        last_seat=None,
        ended_at_ms=e.at_ms,
        ended_by=e.ended_by,
    )


def _game_ended(s: State, e: GameEnded) -> State:
    return replace(s, over=True)


# Keyed by the event's type; a table cannot tie each key to its handler's
# parameter type, so the handlers are called with `Any`.
_EVOLVE: dict[type[Event], Callable[[Any, Any], State]] = {
    Started: _started,
    RoundStarted: _round_started,
    Revealed: _revealed,
    Placed: _placed,
    Stopped: _stopped,
    RoundEnded: _round_ended,
    GameEnded: _game_ended,
}


def evolve(state: State | None, event: Event) -> State:
    return _EVOLVE[type(event)](state, event)
