"""The collusion screening's port: the finished games' logs it reads.
The analysis (services/app/integrity) has no SQL; the adapter is
services/infra/pg_integrity.py."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

from services.infra.integrity_records import FinishedLog, LogEvent

__all__ = ["FinishedGames", "FinishedLog", "LogEvent"]


class FinishedGames(Protocol):
    def finished_logs(self, game: str | None = None) -> AsyncIterator[FinishedLog]:
        """Every finished game's stream (of `game` only, unless None), in
        the order the games finished."""
