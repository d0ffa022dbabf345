"""A stored game's log back into moves: which seat did what, in which
state, at which stream version. The log holds events, not commands, so each
step searches the legal actions of the seats that could act (and a due
timer) for the one that gives the next logged events, as engines/verify.py
does; a genuine log always has one.

Service events say whose choice a move was: `hm.move_played_for_seat`
(the seat's time ran out or its agent failed) marks the next move as the
service's, and after `hm.seat_handed_to_bot` a house bot plays the seat."""

from __future__ import annotations

import typing
from collections.abc import Sequence
from typing import Any

import msgspec

from engines.core import Chance, Game
from engines.verify import commands_now
from services.app.integrity.feeding import Move
from services.app.ports.integrity import LogEvent


class ReplayError(ValueError):
    """The log is not one the engine can replay (never for a genuine log)."""


def event_tags(game: Game) -> frozenset[str]:
    return frozenset(t.__struct_config__.tag for t in typing.get_args(game.event_type))


def moves_from_log(game: Game, log: Sequence[LogEvent]) -> list[Move]:
    """Every seat's move in the log, in order."""
    tags = event_tags(game)
    engine: list[tuple[int, Any]] = []  # (version, event)
    forced_before: set[int] = set()  # versions of engine events the service played for a seat
    bot_from: dict[int, int] = {}  # seat -> version from which a house bot plays it
    pending_forced = False
    for record in log:
        if record.type in tags:
            if pending_forced:
                forced_before.add(record.version)
                pending_forced = False
            engine.append((record.version, msgspec.json.decode(record.data, type=game.event_type)))
        elif record.type == "hm.move_played_for_seat":
            pending_forced = True
        elif record.type == "hm.seat_handed_to_bot":
            seat = msgspec.json.decode(record.data).get("seat")
            if isinstance(seat, int):
                bot_from.setdefault(seat, record.version)
    if not engine:
        return []
    events = [e for _, e in engine]
    first = events[0]
    players, options = game.setup(first)
    start_len = len(game.start(players, options, Chance(0)))  # a deal's count of events, not its cards
    state = game.fold(events[:start_len])
    moves: list[Move] = []
    i = start_len
    while i < len(events) and not game.is_over(state):
        best: tuple[int | None, Any, list] | None = None
        for seat, action, decided in commands_now(game, state, events[i]):
            n = len(decided)
            if n and events[i : i + n] == decided and (best is None or n > len(best[2])):
                best = (seat, action, decided)
        if best is None:
            raise ReplayError(f"no legal command gives the event at version {engine[i][0]}")
        seat, action, decided = best
        version = engine[i][0]
        if seat is not None:
            own = version not in forced_before and not (seat in bot_from and bot_from[seat] < version)
            moves.append(Move(version, seat, state, action, tuple(decided), own))
        state = game.fold(decided, state)
        i += len(decided)
    return moves
