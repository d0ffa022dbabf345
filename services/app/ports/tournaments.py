"""The tournaments' port: each tournament's row beside its stream (for
listing them and for the sweep that finds what is due), and what the
tournaments read and write of other features' rows: the entrants' names now,
and which of their tables have finished (their embargo is the lobby's). Adapters: services/infra/pg_tournaments.py
(PostgreSQL) and services/infra/memory_tournaments.py; tests/contract holds
both to one suite."""

from __future__ import annotations

from typing import Any, Protocol

from services.infra.tournament_records import EntrantName, NewTournament, TournamentRow

__all__ = ["EntrantName", "NewTournament", "TournamentRow", "TournamentStore"]


class TournamentStore(Protocol):
    # --- the tournaments' rows -------------------------------------------------

    async def insert_tournament(self, new: NewTournament, tx: Any = None) -> None:
        """Its status starts as 'registering'."""

    async def listing(self, status: str | None) -> list[TournamentRow]:
        """The newest 200 by start (latest first), of one status or all (None)."""

    async def set_status(self, tournament_id: str, status: str) -> None: ...

    async def due_to_start(self) -> list[str]:
        """Ids of the tournaments still registering whose start has come."""

    async def running(self) -> list[str]:
        """Ids of the tournaments that are running."""

    # --- other features' rows ------------------------------------------------

    async def entrant_names(self, player_ids: list[str]) -> list[EntrantName]:
        """The players among `player_ids` that have a row (in no order)."""

    async def finished_tables(self, tournament_id: str) -> list[str]:
        """Ids of the tournament's tables that have finished."""
