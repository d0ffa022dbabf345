"""A timed table's clocks, by the rules of services/app/seatclock.py: when an
awaited seat's turn opened, its deadline and what is left of its bank, for
`GET /api/v1/games/{id}`, the deadline jobs and a person's own moves.

A turn opens when the seat can act (`opens_at`): at the commit that made it
the seat's turn, or for a Kabuki masks placer once the stop window has
passed. It lasts `move_ms`, then draws on the seat's bank; past that, the
move is played for the seat. The same for every seat kind; only where the
bank is kept differs. An agent's is in agent_turns
(services/app/agents/registry.py). A person's move records what it took in
its own command outcome (`Outcome.bank_drawn_ms`), written in the same commit
as the move, and a default move played for a person spends what was left: so
every process reads the same bank from the log, with no write of its own."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from services.app.ports import EventLog
from services.app.seatclock import ClockDefaults, SeatClockRules, SeatKind, bank_left, overdraft, seat_clock_rules

if TYPE_CHECKING:
    from services.app.agents.registry import AgentService
    from services.app.games.tables import Table


class SeatClock(msgspec.Struct):
    """One awaited seat's deadline (epoch ms) and the bank it has left beyond it."""

    seat: int
    deadline_ms: int
    bank_ms: int


def rules_at(table: Table, seat: int, defaults: ClockDefaults) -> SeatClockRules | None:
    """The clock of the seat as it is held now (None: not timed)."""
    holder = table.seats[seat]
    if holder is None:
        return None
    kind: SeatKind = "bot" if holder.bot is not None else "agent" if holder.kind == "agent" else "human"
    return seat_clock_rules(table.time_control, kind, defaults)


def is_person(table: Table, seat: int) -> bool:
    holder = table.seats[seat]
    return holder is not None and holder.bot is None and holder.kind == "human"


def opens_at(table: Table, seat: int, now: int) -> int:
    """When an awaited seat's turn is handed to it (an agent's call or
    `your_turn`, and the start of its deadline): `now` when every action the
    rules allow it is open now, else the game's next timer, when time alone
    opens the rest (a Kabuki masks placer once the stop window ends, KM-3).
    A turn is never handed over with an action `decide`
    would refuse then, nor before the seat can make its move."""
    game, state = table.game, table.state
    if game.legal_actions(state, seat, now) == game.legal_actions(state, seat):
        return now
    due = game.next_timer(state)
    return due if due is not None and due > now else now


def person_bank_left(table: Table, seat: int, rules: SeatClockRules) -> int:
    return bank_left(rules.bank_ms, table.bank_drawn(seat))


def people_due(table: Table, began_ms: int, defaults: ClockDefaults) -> dict[int, int]:
    """Each awaited person's deadline (epoch ms), bank included, on a turn
    whose commit was at `began_ms`: when their move is played for them."""
    due = {}
    for seat in table.game.waiting_for(table.state):
        rules = rules_at(table, seat, defaults) if is_person(table, seat) else None
        if rules is not None:
            due[seat] = opens_at(table, seat, began_ms) + rules.budget_ms(person_bank_left(table, seat, rules))
    return due


async def turn_began_ms(store: EventLog, table: Table) -> int:
    """When the table reached its current version (the commit's time; 0 if unknown)."""
    return await store.recorded_ms(table.game_id, table.version) or 0


async def person_overdraft(store: EventLog, table: Table, seat: int, received_ms: int, defaults: ClockDefaults) -> int:
    """What a person's move received at `received_ms`, on the table as it
    stands before the move, takes from their bank. Only a move the table
    waits for costs time: a Kabuki masks Stop made while another seat is
    awaited does not."""
    if not is_person(table, seat) or seat not in table.game.waiting_for(table.state):
        return 0
    rules = rules_at(table, seat, defaults)
    left = person_bank_left(table, seat, rules) if rules is not None else 0
    if rules is None or left == 0:
        return 0
    began = await turn_began_ms(store, table)
    if not began:
        return 0
    return overdraft(received_ms - opens_at(table, seat, began), rules.move_ms, left)


async def seat_clocks(store: EventLog, agents: AgentService, table: Table, defaults: ClockDefaults) -> list[SeatClock]:
    if table.state is None or table.over:
        return []
    began = await turn_began_ms(store, table)
    out = []
    for seat in sorted(table.game.waiting_for(table.state)):
        rules = rules_at(table, seat, defaults)
        if rules is None:
            continue  # house bots are not timed, nor people at an untimed table
        if is_person(table, seat):
            left = person_bank_left(table, seat, rules)
        else:
            left = await agents.bank_left(table.game_id, seat, rules.bank_ms)
        out.append(SeatClock(seat, opens_at(table, seat, began) + rules.move_ms, left))
    return out
