"""The append-only event log in PostgreSQL, with group commit.

Appends from every game in the process queue up; one flusher writes whatever
is pending in a single transaction (PostgreSQL here is bound by fsync at about
2k commits/s, and by round trips well after that), so throughput grows with
load while an idle system still commits each append at once.

Ordering for readers that follow everything: each append transaction first
takes APPEND_LOCK, a transaction-scoped advisory lock, and draws its global
positions while holding it. PostgreSQL makes a transaction visible before it
releases its locks, so positions become visible strictly in order: a reader
that has seen position p will never later find a smaller one committing. A
transaction-id watermark would not give this (a long transaction that started
early can commit late with a small id). The price is that appends from all
processes serialise on the lock; group commit is what keeps that cheap.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

import asyncpg
import msgspec

from engines import chain
from services.infra import metrics

APPEND_LOCK = 7_240_002

_APPEND_SQL = """
WITH ok AS (
    UPDATE streams s SET version = b.new_version, head_hash = b.head_hash
    FROM unnest($1::text[], $2::bigint[], $3::bigint[], $13::text[]) AS b(stream_id, expected, new_version, head_hash)
    WHERE s.stream_id = b.stream_id AND s.version = b.expected
    RETURNING s.stream_id
), written AS (
    INSERT INTO events (stream_id, version, type, data, prev_hash, hash)
    SELECT e.stream_id, e.version, e.type, e.data, e.prev_hash, e.hash
    FROM unnest($4::text[], $5::bigint[], $6::text[], $7::bytea[], $14::text[], $15::text[])
        AS e(stream_id, version, type, data, prev_hash, hash)
    WHERE e.stream_id IN (SELECT stream_id FROM ok)
    RETURNING stream_id
), commanded AS (
    INSERT INTO commands (stream_id, seat, command_id, outcome, first_version)
    SELECT c.stream_id, c.seat, c.command_id, c.outcome, c.first_version
    FROM unnest($8::text[], $9::text[], $10::bytea[], $11::int[], $12::bigint[])
        AS c(stream_id, command_id, outcome, seat, first_version)
    WHERE c.stream_id IN (SELECT stream_id FROM ok)
    ON CONFLICT DO NOTHING
    RETURNING stream_id
)
SELECT stream_id FROM ok
"""

# Read under the append lock, so the heads are the committed ones: one query
# per batch, for the streams whose head this process does not know (below).
# A stream without a key (created before migration 018) stays unchained.
_HEADS_SQL = "SELECT stream_id, head_hash, chain_key FROM streams WHERE stream_id = ANY($1::text[])"
# A stream's head at a version never changes once committed (the log is
# append-only), so the head this process wrote last is still the head if the
# stream is still at that version; and an append that expects that version
# either finds it there or is refused by the version check. So an append to a
# stream this process wrote last needs no query: a game's moves, mostly.
HEADS_KEPT = 10_000

# The commands that wrote versions past $2 (migration 009). A row without
# `first_version` (written by the previous release during an upgrade) is
# judged by its outcome, as before.
_COMMANDS_AFTER = (
    "(first_version > $2 OR first_version IS NULL AND (convert_from(outcome, 'UTF8')::jsonb ->> 'first')::bigint > $2)"
)


class VersionConflict(Exception):
    """The stream moved on since the caller read it."""

    def __init__(self, stream_id: str, expected: int, current: int | None = None) -> None:
        super().__init__(f"stream {stream_id} is not at version {expected}")
        self.stream_id = stream_id
        self.expected = expected
        self.current = current


@dataclass
class StoredEvent:
    version: int
    type: str
    data: bytes
    # The keyed hash chain (engines/chain.py); None for events stored before it.
    prev_hash: str | None = None
    hash: str | None = None


class Appended(msgspec.Struct, frozen=True):
    """What an append wrote: the new version and the hashes of its events
    (empty for an unchained stream, or an append of nothing), so a caller
    holds the chain head without another query."""

    version: int
    hashes: list[str]

    def head(self, fallback: str | None = None) -> str | None:
        return self.hashes[-1] if self.hashes else fallback


# (seat, command id) -> the command's stored outcome; seat None: the server's own commands
Commands = dict[tuple[int | None, str], bytes]


@dataclass
class _Append:
    stream_id: str
    expected: int
    events: Sequence[tuple[str, bytes]]  # (type tag, JSON)
    command: tuple[str, bytes] | None  # (command id, outcome JSON)
    seat: int | None  # the seat that sent the command: command ids are per seat (None: the server's own)
    hashes: list[str] = field(default_factory=list)  # set by the write that links them
    done: asyncio.Future = field(default_factory=lambda: asyncio.get_running_loop().create_future())


class EventStore:
    def __init__(self, pool: asyncpg.Pool, max_batch: int = 256) -> None:
        self.pool = pool
        self.max_batch = max_batch
        self._pending: list[_Append] = []
        self._wake = asyncio.Event()
        self._flusher: asyncio.Task | None = None
        self.batches = 0  # figures for the bench
        self.appends = 0
        # stream -> (version, head hash, chain key) as this process last wrote it
        self._heads: OrderedDict[str, tuple[int, str | None, str | None]] = OrderedDict()

    # --- writing -------------------------------------------------------------

    async def create_stream(
        self, stream_id: str, kind: str, conn: asyncpg.Connection | asyncpg.pool.PoolConnectionProxy | None = None
    ) -> None:
        # Every new stream is chained with a key of its own, secret until the
        # game is disclosed (engines/chain.py says why it must be keyed).
        sql = "INSERT INTO streams (stream_id, kind, chain_key) VALUES ($1, $2, $3)"
        key = secrets.token_hex(32)
        if conn is not None:
            await conn.execute(sql, stream_id, kind, key)
        else:
            await self.pool.execute(sql, stream_id, kind, key)

    async def append(
        self,
        stream_id: str,
        expected: int,
        events: Sequence[tuple[str, bytes]],
        command: tuple[str, bytes] | None = None,
        seat: int | None = None,
    ) -> int:
        """Append after `expected`; returns the new version or raises
        VersionConflict. The command id is unique per (stream, seat)."""
        return (await self.append_chained(stream_id, expected, events, command, seat)).version

    async def append_chained(
        self,
        stream_id: str,
        expected: int,
        events: Sequence[tuple[str, bytes]],
        command: tuple[str, bytes] | None = None,
        seat: int | None = None,
    ) -> Appended:
        """`append`, answering with the hashes the events were linked with."""
        item = _Append(stream_id, expected, events, command, seat)
        self._pending.append(item)
        self._wake.set()
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush_forever())
        return await item.done

    async def _flush_forever(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._pending:
                batch: list[_Append] = []
                seen: set[str] = set()
                rest: list[_Append] = []
                for item in self._pending:
                    # Two appends to one stream never share a transaction: the
                    # second must see the first's version.
                    if item.stream_id in seen or len(batch) >= self.max_batch:
                        rest.append(item)
                    else:
                        seen.add(item.stream_id)
                        batch.append(item)
                self._pending = rest
                await self._write(batch)

    async def _write(self, batch: list[_Append]) -> None:
        ids, expected, new_versions = [], [], []
        e_ids, e_versions, e_types, e_data = [], [], [], []
        c_ids, c_commands, c_outcomes, c_seats, c_firsts = [], [], [], [], []
        for item in batch:
            ids.append(item.stream_id)
            expected.append(item.expected)
            new_versions.append(item.expected + len(item.events))
            for offset, (tag, data) in enumerate(item.events, start=1):
                e_ids.append(item.stream_id)
                e_versions.append(item.expected + offset)
                e_types.append(tag)
                e_data.append(data)
            if item.command is not None:
                c_ids.append(item.stream_id)
                c_commands.append(item.command[0])
                c_outcomes.append(item.command[1])
                c_seats.append(item.seat)
                c_firsts.append(item.expected + 1)  # the first version the command wrote
        # The canonical forms do not depend on the heads: made before the
        # lock is taken, so the lock is held only for the links themselves.
        canonical = [chain.canonical_stored(tag, data) for tag, data in zip(e_types, e_data, strict=True)]
        started = time.perf_counter()
        try:
            async with self.pool.acquire() as conn, conn.transaction():
                await conn.execute("SELECT pg_advisory_xact_lock($1)", APPEND_LOCK)
                heads = await self._read_heads(conn, batch)
                new_heads, e_prev, e_hashes = _link(batch, heads, canonical)
                rows = await conn.fetch(
                    _APPEND_SQL,
                    ids,
                    expected,
                    new_versions,
                    e_ids,
                    e_versions,
                    e_types,
                    e_data,
                    c_ids,
                    c_commands,
                    c_outcomes,
                    c_seats,
                    c_firsts,
                    new_heads,
                    e_prev,
                    e_hashes,
                )
        except (asyncpg.DataError, asyncpg.IntegrityConstraintViolationError) as exc:
            # One bad append must not fail its neighbours: write them one by one.
            if len(batch) > 1:
                for item in batch:
                    await self._write([item])
                return
            batch[0].done.set_exception(exc)
            return
        except Exception as exc:  # the whole batch failed: nothing of it was written
            for item in batch:
                if not item.done.done():
                    item.done.set_exception(exc)
            return
        self.batches += 1
        self.appends += len(batch)
        metrics.since(metrics.COMMIT_SECONDS, started)
        metrics.COMMIT_BATCH_SIZE.observe(len(batch))
        committed = {r["stream_id"] for r in rows}
        for item, head in zip(batch, new_heads, strict=True):
            if item.done.done():
                continue
            if item.stream_id in committed:
                version = item.expected + len(item.events)
                self._keep_head(
                    item.stream_id, version, head, heads[item.stream_id][1] if item.stream_id in heads else None
                )
                item.done.set_result(Appended(version, item.hashes))
            else:
                self._heads.pop(item.stream_id, None)
                item.done.set_exception(VersionConflict(item.stream_id, item.expected))

    async def _read_heads(
        self, conn: asyncpg.Connection | asyncpg.pool.PoolConnectionProxy, batch: list[_Append]
    ) -> dict[str, tuple[str | None, str | None]]:
        """stream -> (head hash, chain key) for each append of the batch: from
        this process's memory when it wrote the stream last at the expected
        version, else read (under the append lock: the committed heads)."""
        heads: dict[str, tuple[str | None, str | None]] = {}
        missing = []
        for item in batch:
            known = self._heads.get(item.stream_id)
            if known is not None and known[0] == item.expected:
                heads[item.stream_id] = (known[1], known[2])
            else:
                missing.append(item.stream_id)
        if missing:
            for r in await conn.fetch(_HEADS_SQL, missing):
                heads[r["stream_id"]] = (r["head_hash"], r["chain_key"])
        return heads

    def _keep_head(self, stream_id: str, version: int, head: str | None, key: str | None) -> None:
        self._heads[stream_id] = (version, head, key)
        self._heads.move_to_end(stream_id)
        if len(self._heads) > HEADS_KEPT:
            self._heads.popitem(last=False)

    # --- reading -------------------------------------------------------------

    async def chain_key(self, stream_id: str) -> str | None:
        """The stream's secret chain key (None: unchained, or no such stream).
        Only for what a disclosed game may show (its export)."""
        return await self.pool.fetchval("SELECT chain_key FROM streams WHERE stream_id = $1", stream_id)

    async def read(self, stream_id: str, after: int = 0, upto: int | None = None) -> list[StoredEvent]:
        rows = await self.pool.fetch(
            "SELECT version, type, data, prev_hash, hash FROM events WHERE stream_id = $1 AND version > $2"
            " AND ($3::bigint IS NULL OR version <= $3) ORDER BY version",
            stream_id,
            after,
            upto,
        )
        return [StoredEvent(r["version"], r["type"], r["data"], r["prev_hash"], r["hash"]) for r in rows]

    async def read_with_commands(self, stream_id: str, after: int) -> tuple[list[StoredEvent], Commands]:
        """The events past `after` and the commands that wrote them, in one
        round trip: a process catching its table copy up (services/app/games/service.py).
        Both are index range scans: only what is new is read."""
        rows = await self.pool.fetch(
            "SELECT version, type, data, NULL::int AS seat, NULL::text AS command_id, prev_hash, hash FROM events"
            " WHERE stream_id = $1 AND version > $2"
            " UNION ALL SELECT NULL, NULL, outcome, seat, command_id, NULL, NULL FROM commands WHERE stream_id = $1 AND"
            f" {_COMMANDS_AFTER}",
            stream_id,
            after,
        )
        events = sorted(
            (
                StoredEvent(r["version"], r["type"], r["data"], r["prev_hash"], r["hash"])
                for r in rows
                if r["version"] is not None
            ),
            key=lambda e: e.version,
        )
        commands = {(r["seat"], r["command_id"]): r["data"] for r in rows if r["version"] is None}
        return events, commands

    async def version(self, stream_id: str) -> int | None:
        return await self.pool.fetchval("SELECT version FROM streams WHERE stream_id = $1", stream_id)

    async def recorded_ms(self, stream_id: str, version: int) -> int | None:
        """When that version was committed (epoch ms; None: no such event)."""
        return await self.pool.fetchval(
            "SELECT (extract(epoch FROM recorded_at) * 1000)::bigint FROM events WHERE stream_id = $1 AND version = $2",
            stream_id,
            version,
        )

    async def versions(self, stream_ids: Sequence[str]) -> dict[str, int]:
        rows = await self.pool.fetch(
            "SELECT stream_id, version FROM streams WHERE stream_id = ANY($1::text[])", list(stream_ids)
        )
        return {r["stream_id"]: r["version"] for r in rows}

    async def find_command(self, stream_id: str, command_id: str, seat: int | None = None) -> bytes | None:
        return await self.pool.fetchval(
            "SELECT outcome FROM commands WHERE stream_id = $1 AND command_id = $2 AND seat IS NOT DISTINCT FROM $3",
            stream_id,
            command_id,
            seat,
        )

    async def commands_of(self, stream_id: str, after: int = 0) -> Commands:
        """(seat, command id) -> outcome: each seat has its own command ids.
        `after`: only the commands that wrote versions past it (a catch-up)."""
        if after:
            rows = await self.pool.fetch(
                f"SELECT seat, command_id, outcome FROM commands WHERE stream_id = $1 AND {_COMMANDS_AFTER}",
                stream_id,
                after,
            )
        else:
            rows = await self.pool.fetch(
                "SELECT seat, command_id, outcome FROM commands WHERE stream_id = $1", stream_id
            )
        return {(r["seat"], r["command_id"]): r["outcome"] for r in rows}

    async def read_all(self, after_position: int = 0, limit: int = 1000) -> list[tuple[int, str, int, str, bytes]]:
        """Every stream's events in global order: (position, stream, version, type, data)."""
        rows = await self.pool.fetch(
            "SELECT position, stream_id, version, type, data FROM events WHERE position > $1"
            " ORDER BY position LIMIT $2",
            after_position,
            limit,
        )
        return [(r["position"], r["stream_id"], r["version"], r["type"], r["data"]) for r in rows]


def _link(
    batch: list[_Append], heads: dict[str, tuple[str | None, str | None]], canonical: list[bytes]
) -> tuple[list[str | None], list[str | None], list[str | None]]:
    """Each append's new head and its events' (prev_hash, hash), in the
    order of the batch's arrays. An append whose stream is not at its
    expected version is linked all the same: the version check in the same
    statement writes none of it."""
    new_heads: list[str | None] = []
    prevs: list[str | None] = []
    hashes: list[str | None] = []
    at = 0
    for item in batch:
        head, key = heads.get(item.stream_id, (None, None))
        n = len(item.events)
        if key is None:
            item.hashes = []
            new_heads.append(head)
            prevs.extend([None] * n)
            hashes.extend([None] * n)
        else:
            prev = head or chain.GENESIS
            linked: list[str] = []
            for offset, (tag, _data) in enumerate(item.events):
                linked.append(chain.link(key, prev, item.expected + 1 + offset, tag, canonical[at + offset]))
                prevs.append(prev)
                prev = linked[-1]
            hashes.extend(linked)
            item.hashes = linked
            new_heads.append(linked[-1] if linked else head)
        at += n
    return new_heads, prevs, hashes
