"""Play now's pool in memory (the `QuickPlayPool` port), for use cases
tested without a database; tests/contract holds it to PgQuickPlay's
behaviour. Decisions are one at a time through MemoryTransactions."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime
from typing import Any

import msgspec

from services.infra.quickplay_records import NewTicket, SeatedTicket, TicketRow

_order = itertools.count()


class MemoryQuickPlay:
    def __init__(self) -> None:
        self.tickets: dict[str, TicketRow] = {}
        self._order: dict[str, int] = {}

    async def lock(self, game: str, players: int, tx: Any) -> None:
        return None  # the memory transaction is one at a time already

    async def join(self, new: NewTicket, tx: Any) -> TicketRow:
        for row in self.tickets.values():
            t = row.ticket
            if row.status == "waiting" and (t.player_id, t.game, t.players) == (new.player_id, new.game, new.players):
                return row
        row = TicketRow(new, "waiting", datetime.now(UTC))
        self.tickets[new.ticket_id] = row
        self._order[new.ticket_id] = next(_order)
        return row

    async def waiting(self, game: str, players: int, tx: Any = None) -> list[TicketRow]:
        rows = [
            r
            for r in self.tickets.values()
            if r.status == "waiting" and (r.ticket.game, r.ticket.players) == (game, players)
        ]
        return sorted(rows, key=lambda r: self._order[r.ticket.ticket_id])

    async def seat(self, game_id: str, seated: list[SeatedTicket], tx: Any) -> None:
        for s in seated:
            row = self.tickets.get(s.ticket_id)
            if row is not None and row.status == "waiting":
                self.tickets[s.ticket_id] = msgspec.structs.replace(row, status="seated", game_id=game_id, seat=s.seat)

    async def seated_at(self, game_id: str) -> list[TicketRow]:
        rows = [r for r in self.tickets.values() if r.status == "seated" and r.game_id == game_id]
        return sorted(rows, key=lambda r: r.seat or 0)

    async def ticket(self, ticket_id: str) -> TicketRow | None:
        return self.tickets.get(ticket_id)

    async def withdraw(self, ticket_id: str, tx: Any) -> None:
        row = self.tickets.get(ticket_id)
        if row is not None and row.status == "waiting":
            self.tickets[ticket_id] = msgspec.structs.replace(row, status="withdrawn")

    async def withdraw_player(self, player_id: str, tx: Any = None) -> None:
        for ticket_id, row in list(self.tickets.items()):
            if row.status == "waiting" and row.ticket.player_id == player_id:
                self.tickets[ticket_id] = msgspec.structs.replace(row, status="withdrawn")

    async def counts(self) -> dict[tuple[str, int], int]:
        counts: dict[tuple[str, int], int] = {}
        for r in self.tickets.values():
            if r.status == "waiting":
                key = (r.ticket.game, r.ticket.players)
                counts[key] = counts.get(key, 0) + 1
        return counts
