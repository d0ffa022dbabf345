"""Kabuki masks' Stop review: for every placement, whether a Stop would have
paid (a card beneath it on its pile matches it, KM-4) and who called; per
seat its right, wrong and missed Stops and its memory accuracy. Exact, no
search: every card is revealed when it is drawn (KM-1), so a perfect memory
knows every pile, and every seat but the placer may call (KM-2)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from engines.kabuki_masks.cards import COPIES
from engines.kabuki_masks.events import Placed, Stopped
from engines.kabuki_masks.state import State, evolve


class PlacementReview(msgspec.Struct, frozen=True):
    version: int  # the stream version of the placement
    placement: int
    placer: int
    pile: int
    card: int  # its mask is card // 5: identical masks match (KM-4)
    matches: int  # cards beneath it on its pile like it: a Stop pays when > 0
    called_by: int | None  # the first Stop's caller, if anyone called
    could_know: list[int]  # the seats that may call (all but the placer)


class MasksSeat(msgspec.Struct, frozen=True):
    seat: int
    chances: int  # others' placements this seat could judge (nobody else called first)
    right_stops: int  # called, and it paid
    wrong_stops: int  # called, nothing matched (a token back to the box)
    missed_stops: int  # a Stop would have paid and nobody called
    memory_accuracy: float  # right calls and right silences over chances


class MasksReview(msgspec.Struct, frozen=True):
    placements: list[PlacementReview]
    seats: list[MasksSeat]


def review(engine: Sequence[tuple[int, Any]]) -> MasksReview:
    """`engine`: the game's engine events with their stream versions."""
    state: State | None = None
    placements: list[PlacementReview] = []
    for version, event in engine:
        state = evolve(state, event)
        if isinstance(event, Placed) and event.card is not None:
            beneath = state.piles[event.pile][:-1]
            others = [s for s in range(state.players) if s != event.seat]
            placements.append(
                PlacementReview(
                    version,
                    event.placement,
                    event.seat,
                    event.pile,
                    event.card,
                    sum(1 for c in beneath if c // COPIES == event.card // COPIES),
                    None,
                    others,
                )
            )
        elif isinstance(event, Stopped) and placements and placements[-1].placement == event.placement:
            # KM-2: the first call recorded wins; the log holds no later one.
            placements[-1] = msgspec.structs.replace(placements[-1], called_by=event.caller)
    players = state.players if state is not None else 0
    return MasksReview(placements, [_seat(s, placements) for s in range(players)])


def _seat(seat: int, placements: Sequence[PlacementReview]) -> MasksSeat:
    chances = right = wrong = missed = silent = 0
    for p in placements:
        if p.placer == seat or p.called_by not in (None, seat):
            continue
        chances += 1
        if p.called_by == seat:
            right += p.matches > 0
            wrong += p.matches == 0
        elif p.matches > 0:
            missed += 1
        else:
            silent += 1
    accuracy = (right + silent) / chances if chances else 1.0
    return MasksSeat(seat, chances, right, wrong, missed, round(accuracy, 3))
