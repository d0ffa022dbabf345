"""The event log in memory, for what must run without PostgreSQL (tests).

It keeps the PostgreSQL store's contract (services/infra/eventstore.py;
tests/contract runs one suite against both), so a use case exercised on it
behaves as it will in production. Two things it cannot share: a stream
created on a caller's connection does not roll back with that connection's
transaction, and nothing outlives the process.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engines import chain
from services.infra.eventstore import Appended, Commands, StoredEvent, VersionConflict


@dataclass(frozen=True)
class _Event:
    position: int
    stream_id: str
    version: int
    type: str
    data: bytes
    prev_hash: str | None = None
    hash: str | None = None
    recorded_ms: int = field(default_factory=lambda: time.time_ns() // 1_000_000)


@dataclass
class _Stream:
    kind: str
    chain_key: str | None = None  # None: unchained (PostgreSQL: a stream from before migration 018)
    head_hash: str | None = None
    events: list[_Event] = field(default_factory=list)
    # (seat, command id) -> (outcome, the first version the command wrote)
    commands: dict[tuple[int | None, str], tuple[bytes, int]] = field(default_factory=dict)


class MemoryEventStore:
    def __init__(self) -> None:
        self._streams: dict[str, _Stream] = {}
        self._log: list[_Event] = []  # every event in commit order: position p is self._log[p - 1]

    # --- writing -------------------------------------------------------------

    async def create_stream(self, stream_id: str, kind: str, conn: Any = None) -> None:
        """`conn` is accepted for the PostgreSQL store's callers and ignored.
        A stream that exists already raises ValueError (PostgreSQL: a unique violation)."""
        if stream_id in self._streams:
            raise ValueError(f"stream {stream_id} exists")
        self._streams[stream_id] = _Stream(kind, chain_key=secrets.token_hex(32))

    async def append(
        self,
        stream_id: str,
        expected: int,
        events: Sequence[tuple[str, bytes]],
        command: tuple[str, bytes] | None = None,
        seat: int | None = None,
    ) -> int:
        """`append_chained`, answering with the new version only."""
        return (await self.append_chained(stream_id, expected, events, command, seat)).version

    async def append_chained(
        self,
        stream_id: str,
        expected: int,
        events: Sequence[tuple[str, bytes]],
        command: tuple[str, bytes] | None = None,
        seat: int | None = None,
    ) -> Appended:
        """Append after `expected`; returns the new version and the events'
        hashes (engines/chain.py), or raises VersionConflict, writing nothing. A command id already recorded for
        (stream, seat) keeps its first outcome while the events are written
        all the same, as PostgreSQL's ON CONFLICT DO NOTHING does."""
        batch = [(tag, bytes(data)) for tag, data in events]  # the caller may reuse its list
        # A round trip's suspension: callers that race interleave here as
        # they would against PostgreSQL. What follows does not yield, so
        # the check and the write are one step, like the store's transaction.
        await asyncio.sleep(0)
        stream = self._streams.get(stream_id)
        if stream is None or len(stream.events) != expected:
            raise VersionConflict(stream_id, expected)
        key = stream.chain_key
        hashes = [] if key is None else chain.extend(key, stream.head_hash, expected + 1, batch)
        prev = stream.head_hash or chain.GENESIS
        for offset, (tag, data) in enumerate(batch):
            linked = hashes[offset] if hashes else None
            event = _Event(
                len(self._log) + 1, stream_id, expected + 1 + offset, tag, data, prev if linked else None, linked
            )
            prev = linked or prev
            stream.events.append(event)
            self._log.append(event)
        if hashes:
            stream.head_hash = hashes[-1]
        if command is not None:
            stream.commands.setdefault((seat, command[0]), (bytes(command[1]), expected + 1))
        return Appended(expected + len(batch), hashes)

    def unchain(self, stream_id: str) -> None:
        """Make a stream one stored before the log was chained (tests of old
        games: in PostgreSQL, a stream from before migration 018)."""
        stream = self._streams[stream_id]
        if stream.events:
            raise ValueError("only a stream with no events yet")
        stream.chain_key = None

    # --- reading -------------------------------------------------------------

    async def chain_key(self, stream_id: str) -> str | None:
        stream = self._streams.get(stream_id)
        return None if stream is None else stream.chain_key

    async def read(self, stream_id: str, after: int = 0, upto: int | None = None) -> list[StoredEvent]:
        stream = self._streams.get(stream_id)
        if stream is None:
            return []
        return [_stored(e) for e in stream.events if e.version > after and (upto is None or e.version <= upto)]

    async def read_with_commands(self, stream_id: str, after: int) -> tuple[list[StoredEvent], Commands]:
        """The events past `after` and the commands whose first version is past it."""
        return await self.read(stream_id, after), await self.commands_of(stream_id, after)

    async def version(self, stream_id: str) -> int | None:
        stream = self._streams.get(stream_id)
        return None if stream is None else len(stream.events)

    async def recorded_ms(self, stream_id: str, version: int) -> int | None:
        stream = self._streams.get(stream_id)
        if stream is None or not 0 < version <= len(stream.events):
            return None
        return stream.events[version - 1].recorded_ms

    async def versions(self, stream_ids: Sequence[str]) -> dict[str, int]:
        """Streams never created are absent."""
        return {s: len(self._streams[s].events) for s in stream_ids if s in self._streams}

    async def find_command(self, stream_id: str, command_id: str, seat: int | None = None) -> bytes | None:
        stream = self._streams.get(stream_id)
        found = None if stream is None else stream.commands.get((seat, command_id))
        return None if found is None else found[0]

    async def commands_of(self, stream_id: str, after: int = 0) -> Commands:
        """(seat, command id) -> outcome; `after`: only the commands whose first version is past it."""
        stream = self._streams.get(stream_id)
        if stream is None:
            return {}
        return {key: outcome for key, (outcome, first) in stream.commands.items() if first > after}

    async def read_all(self, after_position: int = 0, limit: int = 1000) -> list[tuple[int, str, int, str, bytes]]:
        """Every stream's events in global order: (position, stream, version,
        type, data); positions are gapless from 1, in commit order."""
        start = max(after_position, 0)
        return [(e.position, e.stream_id, e.version, e.type, e.data) for e in self._log[start : start + limit]]


def _stored(event: _Event) -> StoredEvent:
    # A new record per read: StoredEvent is mutable, and the log must not be.
    return StoredEvent(event.version, event.type, event.data, event.prev_hash, event.hash)
