"""How a seat's clock runs, in one home: the time per move, the bank and the
strike limit in force for any seat, from its table's time control and who
holds the seat, and what a slow move takes from the bank.

The same time control gives the same clock to a person, a push agent and a
pull agent, at a casual table, a tournament's or a sparring series'. Who
holds the seat matters only where a table has no time control: an agent is
then held to the server's defaults (a program must never hang a table),
a person plays untimed. House bots are never timed.

The bank a seat has used is kept where its moves are recorded: an agent's in
`agent_turns` (services/app/agents/registry.py), a person's in the outcome of
each of their commands (services/app/games/clocks.py). Both are spent by
`overdraft`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import msgspec

from engines.timecontrol import UNSTATED_TIME_CONTROL

SeatKind = Literal["human", "agent", "bot"]


@dataclass(frozen=True)
class ClockDefaults:
    """What services/config.py reads from the environment, once per process
    (Settings.clock)."""

    # An agent at a table without a time control (casual games, sparring
    # without one): HANAMICHI_AGENT_MOVE_MS, HANAMICHI_AGENT_BANK_MS.
    agent_move_ms: int = 5_000
    agent_bank_ms: int = 30_000
    # Moves played for a seat in a row (timeouts, failed agent calls) before a
    # house bot takes it over, whoever holds it: HANAMICHI_AGENT_STRIKES.
    strike_limit: int = 3


class SeatClockRules(msgspec.Struct, frozen=True):
    """The clock a seat plays under: each turn lasts `move_ms` from when the
    seat can act, time beyond it comes out of the seat's `bank_ms` for the
    game, and a move later than both is played for the seat; `strike_limit`
    such moves in a row hand the seat to a house bot."""

    move_ms: int
    bank_ms: int
    strike_limit: int

    def budget_ms(self, bank_left_ms: int) -> int:
        """The longest a turn may take with `bank_left_ms` left."""
        return self.move_ms + bank_left_ms


def seat_clock_rules(time_control: dict | None, kind: SeatKind, defaults: ClockDefaults) -> SeatClockRules | None:
    """The clock of a seat held by `kind` at a table with `time_control`
    (the table's record, as stored); None: the seat is not timed."""
    if kind == "bot" or (time_control is None and kind != "agent"):
        return None
    return timed_seat_rules(time_control, defaults)


def timed_seat_rules(time_control: dict | None, defaults: ClockDefaults) -> SeatClockRules:
    """The clock of a seat that is timed (an agent's always is): the table's
    time control, else the agents' defaults."""
    if time_control is None:
        return SeatClockRules(defaults.agent_move_ms, defaults.agent_bank_ms, defaults.strike_limit)
    return SeatClockRules(
        int(time_control.get("move_ms", UNSTATED_TIME_CONTROL.move_ms)),
        # A recorded time control without a bank is one from before banks.
        int(time_control.get("bank_ms", 0)),
        defaults.strike_limit,
    )


def untimed_agent_time_control(defaults: ClockDefaults) -> dict:
    """The time control an agent is held to at a table without one, as a
    table's time control is shown."""
    return {"move_ms": defaults.agent_move_ms, "bank_ms": defaults.agent_bank_ms}


def bank_left(bank_ms: int, used_ms: int) -> int:
    return max(0, bank_ms - used_ms)


def overdraft(used_ms: float, move_ms: int, bank_left_ms: int, timed_out: bool = False) -> int:
    """What a turn that took `used_ms` from when the seat could act takes
    from the bank: the time past its move's own, never more than is left.
    A turn that ran out (`timed_out`) spends all that was left."""
    if timed_out:
        return bank_left_ms
    return min(bank_left_ms, max(0, int(used_ms) - move_ms))
