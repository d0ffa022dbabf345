"""What Play now's adapters (PostgreSQL and memory) speak in: a waiting
person's ticket, as services/app/games/quickplay.py reads and writes it.
Named by the port, services/app/ports/quickplay.py."""

from __future__ import annotations

from datetime import datetime

import msgspec


class NewTicket(msgspec.Struct, frozen=True):
    ticket_id: str
    player_id: str
    game: str
    players: int
    rating: float
    bots_now: bool = False
    client_seed: str | None = None  # the person's entropy for the deal (engines.core.deal_seed)


class TicketRow(msgspec.Struct, frozen=True):
    ticket: NewTicket
    status: str  # 'waiting', 'seated', 'withdrawn'
    created_at: datetime
    game_id: str | None = None
    seat: int | None = None


class SeatedTicket(msgspec.Struct, frozen=True):
    ticket_id: str
    seat: int
