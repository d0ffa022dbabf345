"""The event log's port.

The application layer reaches the event log through `EventLog` alone: its
methods are exactly the ones services/app calls, so any adapter that keeps
them and their meaning can stand in. The adapters live in services/infra:
`EventStore` (PostgreSQL) in production, `MemoryEventStore` where no database
is wanted; tests/contract holds both to one suite. The error and the record
the port speaks in are defined beside the PostgreSQL adapter (infra may not
import app) and named here, so a use case needs no import of an adapter.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from services.infra.eventstore import Appended, Commands, StoredEvent, VersionConflict

__all__ = ["Appended", "Commands", "EventLog", "StoredEvent", "VersionConflict"]


class EventLog(Protocol):
    async def create_stream(self, stream_id: str, kind: str, conn: Any = None) -> None:
        """`conn`: the caller's open transaction, which an adapter that can
        joins (the stream then exists only if that transaction commits)."""

    async def append(
        self,
        stream_id: str,
        expected: int,
        events: Sequence[tuple[str, bytes]],
        command: tuple[str, bytes] | None = None,
        seat: int | None = None,
    ) -> int:
        """Append after version `expected` and return the new version, or
        raise VersionConflict (the stream moved on, or was never created)."""

    async def append_chained(
        self,
        stream_id: str,
        expected: int,
        events: Sequence[tuple[str, bytes]],
        command: tuple[str, bytes] | None = None,
        seat: int | None = None,
    ) -> Appended:
        """`append`, answering also with the hashes the store linked the
        events with (engines/chain.py; none for a stream stored before the chain)."""

    async def chain_key(self, stream_id: str) -> str | None:
        """The stream's secret chain key: only for a disclosed game's export."""

    async def read(self, stream_id: str, after: int = 0, upto: int | None = None) -> list[StoredEvent]: ...

    async def read_with_commands(self, stream_id: str, after: int) -> tuple[list[StoredEvent], Commands]:
        """The events past `after` and the commands that wrote them."""

    async def commands_of(self, stream_id: str, after: int = 0) -> Commands:
        """`after`: only the commands whose first version is past it."""

    async def recorded_ms(self, stream_id: str, version: int) -> int | None:
        """When that version was committed (epoch ms; None: no such event)."""
