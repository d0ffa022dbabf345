"""What the tournament adapters (PostgreSQL and memory) speak in: a
tournament's row in `tournaments` (the stream is the truth; the row is for
finding them) and an entrant's name as the players table holds it now.
Defined in infra (an adapter may not import the application layer) and named
by the port, services/app/ports/tournaments.py."""

from __future__ import annotations

import msgspec


class NewTournament(msgspec.Struct, frozen=True):
    tournament_id: str
    game: str
    start_ms: int
    created_by: str | None  # None: the service's own (a recurring tournament's next instance)


class TournamentRow(msgspec.Struct, frozen=True):
    tournament_id: str
    game: str
    status: str  # registering | running | finished | cancelled
    start_ms: int


class EntrantName(msgspec.Struct, frozen=True):
    """An entrant's name now; `gone` when their account was deleted."""

    player_id: str
    name: str
    gone: bool
