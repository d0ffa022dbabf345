"""The one time control of every timed seat: casual games, tournaments,
sparring and agents all use this type, so a bound is stated once.

It lives among the engines because a tournament's settings (its `tn.created`
event) carry it; the service reuses it for its request bodies, with the same bounds."""

from __future__ import annotations

from typing import Annotated

import msgspec

from engines.core import OptionsError

DAY_MS = 86_400_000
# Below this a program may still answer, nobody else can: house bots and
# agents answer in milliseconds.
MIN_MOVE_MS = 100
# Wherever a person holds (or may take) a seat: a person cannot read a table
# and move in less than a second.
PERSON_MIN_MOVE_MS = 1_000

MoveMs = Annotated[
    int,
    msgspec.Meta(
        ge=MIN_MOVE_MS,
        le=DAY_MS,
        description=f"time per move in ms ({MIN_MOVE_MS}..{DAY_MS}; at least {PERSON_MIN_MOVE_MS} where a person sits)",
    ),
]
BankMs = Annotated[int, msgspec.Meta(ge=0, le=DAY_MS, description=f"a seat's time bank in ms (0..{DAY_MS})")]


class TimeControl(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Per-move time plus a bank: time over a move's limit comes out of the
    bank, and a move later than both is played for the seat (a timeout)."""

    move_ms: MoveMs
    bank_ms: BankMs = 0

    def check_for_people(self) -> None:
        """Refuse a move time too short for a person (stable code
        `time_control_too_short`)."""
        if self.move_ms < PERSON_MIN_MOVE_MS:
            raise OptionsError(
                "time_control_too_short",
                f"where a person plays, move_ms must be at least {PERSON_MIN_MOVE_MS}",
            )


class RecordedTimeControl(TimeControl, frozen=True, forbid_unknown_fields=True):
    """A time control as a stream recorded it (`tn.created`). The bounds are
    checked when a request is decoded into `TimeControl`, never when the log
    is read: a stream written under older, looser bounds must still fold."""

    move_ms: int
    bank_ms: int = 0


# A timed seat whose time control states nothing: a tournament created
# without one (`tn.created` decodes to it, so stored logs depend on these
# values: never change them) and a recorded table time control without
# move_ms.
UNSTATED_TIME_CONTROL = RecordedTimeControl(move_ms=30_000, bank_ms=120_000)
