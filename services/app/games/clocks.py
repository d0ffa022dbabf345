"""Time left on a timed table: each awaited seat's deadline and
bank, by the server's clock, for `GET /api/v1/games/{id}`.

A person's move is due `move_ms` after the turn began (the commit of the
version that made it their turn; services/app/games/deadlines.py arms the job from
it); people have no bank today. An agent's move is due `move_ms` after it,
and it may then draw on what is left of its bank (services/app/agents/registry.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from services.app.games.policy import move_ms as move_ms_of

if TYPE_CHECKING:
    from services.app.agents.registry import AgentService
    from services.app.games.tables import Table


class SeatClock(msgspec.Struct):
    """One awaited seat's deadline (epoch ms) and the bank it has left beyond it."""

    seat: int
    deadline_ms: int
    bank_ms: int


async def turn_began_ms(pool, table: Table) -> int:
    """When the table reached its current version (the commit's time)."""
    began = await pool.fetchval(
        "SELECT (extract(epoch FROM recorded_at) * 1000)::bigint FROM events WHERE stream_id = $1 AND version = $2",
        table.game_id,
        table.version,
    )
    return int(began or 0)


async def seat_clocks(pool, agents: AgentService, table: Table, time_control: dict) -> list[SeatClock]:
    if table.state is None or table.over:
        return []
    began = await turn_began_ms(pool, table)
    out = []
    for seat in sorted(table.game.waiting_for(table.state)):
        holder = table.seats[seat]
        if holder is None or holder.bot is not None:
            continue  # house bots are not timed
        if holder.kind == "agent":
            move_ms, bank_ms = agents.settings.time_control(table.time_control)
            bank_left = await agents.bank_left(table.game_id, seat, bank_ms)
        else:
            move_ms, bank_left = move_ms_of(time_control), 0
        out.append(SeatClock(seat, began + move_ms, bank_left))
    return out
