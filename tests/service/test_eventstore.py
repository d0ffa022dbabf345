"""The event log itself, against real PostgreSQL: append-only, optimistic
versions, a global order that readers can follow without skipping a late
commit, and migrations applied once."""

from __future__ import annotations

import asyncio
import contextlib
import uuid

import asyncpg
import pytest

from services.infra.db import create_pool, migrate, migration_files
from services.infra.eventstore import APPEND_LOCK, EventStore, VersionConflict

pytestmark = pytest.mark.asyncio(loop_scope="session")


def _sid(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


async def _close(store: EventStore) -> None:
    if store._flusher is not None:
        store._flusher.cancel()
        with contextlib.suppress(BaseException):
            await store._flusher
    await store.pool.close()


async def _new_store(database_url: str, size: int = 10) -> EventStore:
    return EventStore(await create_pool(database_url, size))


# --- append-only ---------------------------------------------------------------


async def test_events_cannot_be_updated_deleted_or_truncated(database_url):
    store = await _new_store(database_url)
    try:
        sid = _sid("ro")
        await store.create_stream(sid, "game")
        assert await store.append(sid, 0, [("t.one", b'{"n":1}'), ("t.two", b'{"n":2}')]) == 2
        before = await store.pool.fetch("SELECT position, version, type, data FROM events WHERE stream_id = $1", sid)
        assert len(before) == 2

        statements = [
            ("UPDATE events SET data = 'x'::bytea WHERE stream_id = $1", (sid,)),
            ("UPDATE events SET type = 'forged' WHERE stream_id = $1 AND version = 1", (sid,)),
            ("DELETE FROM events WHERE stream_id = $1", (sid,)),
            ("DELETE FROM events", ()),
            ("TRUNCATE events CASCADE", ()),
            ("TRUNCATE events", ()),
        ]
        async with store.pool.acquire() as conn:
            for sql, args in statements:
                with pytest.raises(asyncpg.PostgresError) as info:
                    await conn.execute(sql, *args)
                assert "append-only" in str(info.value), (sql, info.value)
                assert info.value.sqlstate == "42501", (sql, info.value.sqlstate)
            # Inside an explicit transaction too (no way round the trigger by batching).
            with pytest.raises(asyncpg.PostgresError):
                async with conn.transaction():
                    await conn.execute("INSERT INTO streams (stream_id, kind) VALUES ($1, 'game')", _sid("x"))
                    await conn.execute("DELETE FROM events WHERE stream_id = $1", sid)

        after = await store.pool.fetch("SELECT position, version, type, data FROM events WHERE stream_id = $1", sid)
        assert [tuple(r) for r in after] == [tuple(r) for r in before]
        assert [(e.version, e.type, e.data) for e in await store.read(sid)] == [
            (1, "t.one", b'{"n":1}'),
            (2, "t.two", b'{"n":2}'),
        ]
    finally:
        await _close(store)


# --- optimistic versions ---------------------------------------------------------


async def test_a_stale_expected_version_raises_and_writes_nothing(database_url):
    store = await _new_store(database_url)
    try:
        sid = _sid("stale")
        await store.create_stream(sid, "game")
        assert await store.append(sid, 0, [("a", b"1")], ("cmd-1", b"{}")) == 1
        assert await store.append(sid, 1, [("b", b"2"), ("c", b"3")], ("cmd-2", b"{}")) == 3

        async def snapshot():
            rows = await store.pool.fetch(
                "SELECT position, version, type, data FROM events WHERE stream_id = $1 ORDER BY version", sid
            )
            cmds = await store.commands_of(sid)
            return [tuple(r) for r in rows], cmds, await store.version(sid)

        before = await snapshot()
        for stale in (0, 1, 2, 4, 100):
            with pytest.raises(VersionConflict) as info:
                await store.append(sid, stale, [("evil", b"x"), ("evil", b"y")], (f"stale-{stale}", b"{}"))
            assert info.value.stream_id == sid and info.value.expected == stale
        assert await snapshot() == before
        assert await store.find_command(sid, "stale-1") is None

        # A stale append sharing a group-commit batch with good ones fails
        # alone: the others are written, it is not.
        others = [_sid("batch") for _ in range(5)]
        for other in others:
            await store.create_stream(other, "game")
        results = await asyncio.gather(
            store.append(sid, 1, [("evil", b"z")], ("stale-batch", b"{}")),
            *(store.append(o, 0, [("ok", b"1")], ("c", b"{}")) for o in others),
            return_exceptions=True,
        )
        assert isinstance(results[0], VersionConflict)
        assert results[1:] == [1] * len(others)
        assert await snapshot() == before
        assert await store.versions(others) == {o: 1 for o in others}

        # Two concurrent appends at the same expected version: exactly one wins.
        results = await asyncio.gather(
            *(store.append(sid, 3, [("race", str(i).encode())]) for i in range(10)), return_exceptions=True
        )
        assert results.count(4) == 1
        assert sum(isinstance(r, VersionConflict) for r in results) == 9
        events = await store.read(sid)
        assert [e.version for e in events] == [1, 2, 3, 4]
        assert await store.version(sid) == 4

        # Appending to a stream that does not exist writes nothing either.
        ghost = _sid("ghost")
        with pytest.raises(VersionConflict):
            await store.append(ghost, 0, [("a", b"1")])
        assert await store.read(ghost) == []
    finally:
        await _close(store)


# --- the global order --------------------------------------------------------------


async def _late_commit(database_url: str, stream_id: str, hold_s: float, positions: list[int]) -> None:
    """Imitate the append protocol by hand on a connection of its own, but
    hold the transaction open after the position was drawn."""
    conn = await asyncpg.connect(database_url)
    try:
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", APPEND_LOCK)
            version = await conn.fetchval(
                "UPDATE streams SET version = version + 1 WHERE stream_id = $1 RETURNING version", stream_id
            )
            position = await conn.fetchval(
                "INSERT INTO events (stream_id, version, type, data) VALUES ($1, $2, 'late', $3) RETURNING position",
                stream_id,
                version,
                b'{"late":true}',
            )
            positions.append(position)
            await asyncio.sleep(hold_s)
    finally:
        await conn.close()


async def test_a_reader_following_read_all_sees_every_event_once_in_order(database_url):
    main = await _new_store(database_url, size=10)
    # Other "processes": stores with pools of their own.
    others = [await _new_store(database_url, size=3) for _ in range(2)]
    reader_pool = await asyncpg.create_pool(database_url, min_size=1, max_size=2)
    reader = EventStore(reader_pool)
    try:
        start = await reader_pool.fetchval("SELECT coalesce(max(position), 0) FROM events")
        writers, per_writer = 8, 200
        other_writers, per_other = 2, 100
        lates, late_stream = 4, _sid("late")
        await main.create_stream(late_stream, "game")

        main_streams = [_sid(f"w{i}") for i in range(writers)]
        other_streams = [[_sid(f"o{j}-{i}") for i in range(other_writers)] for j in range(len(others))]
        for sid in main_streams:
            await main.create_stream(sid, "game")
        for j, store in enumerate(others):
            for sid in other_streams[j]:
                await store.create_stream(sid, "game")
        expected_total = writers * per_writer + len(others) * other_writers * per_other + lates

        async def write(store: EventStore, sid: str, n: int) -> None:
            version = 0
            for i in range(n):
                version = await store.append(sid, version, [("e", f'{{"i":{i}}}'.encode())])

        late_positions: list[int] = []

        async def late_commits() -> None:
            for _ in range(lates):
                await asyncio.sleep(0.05)
                await _late_commit(database_url, late_stream, 0.3, late_positions)

        seen: list[tuple[int, str, int]] = []
        done = asyncio.Event()

        async def follow() -> None:
            after = start
            while True:
                batch = await reader.read_all(after, limit=97)
                for position, sid, version, _type, _data in batch:
                    assert position > after, f"position {position} after {after}"
                    after = position
                    seen.append((position, sid, version))
                if not batch:
                    if done.is_set() and len(seen) >= expected_total:
                        return
                    if done.is_set():
                        # Everything is committed: one more empty read means a skip.
                        final = await reader.read_all(after, limit=1000)
                        if not final:
                            return
                        continue
                    await asyncio.sleep(0.001)

        follower = asyncio.create_task(follow())
        tasks = [write(main, sid, per_writer) for sid in main_streams]
        for j, store in enumerate(others):
            tasks += [write(store, sid, per_other) for sid in other_streams[j]]
        await asyncio.wait_for(asyncio.gather(*tasks, late_commits()), 60)
        done.set()
        await asyncio.wait_for(follower, 30)

        positions = [p for p, _, _ in seen]
        assert positions == sorted(positions) and len(set(positions)) == len(positions)
        assert len(seen) == expected_total, f"reader saw {len(seen)} of {expected_total}"
        keys = {(sid, v) for _, sid, v in seen}
        assert len(keys) == expected_total
        for sid in main_streams:
            assert {v for _, s, v in seen if s == sid} == set(range(1, per_writer + 1))
        for streams in other_streams:
            for sid in streams:
                assert {v for _, s, v in seen if s == sid} == set(range(1, per_other + 1))
        assert [v for _, s, v in seen if s == late_stream] == list(range(1, lates + 1))
        assert sorted(late_positions) == [p for p, s, _ in seen if s == late_stream]

        # What the reader saw is exactly the log (positions included).
        rows = await reader_pool.fetch(
            "SELECT position, stream_id, version FROM events WHERE position > $1 ORDER BY position", start
        )
        assert [tuple(r) for r in rows] == seen
        # Versions within each stream follow the global order too.
        last: dict[str, int] = {}
        for _, sid, version in seen:
            assert version == last.get(sid, 0) + 1
            last[sid] = version
        assert main.batches < main.appends, "group commit should batch concurrent appends"
    finally:
        await reader_pool.close()
        for store in (main, *others):
            await _close(store)


async def test_a_long_held_position_blocks_readers_from_seeing_later_ones(database_url):
    """While one appender holds a drawn position uncommitted, nothing after it
    becomes visible: the reader never has to guess whether a gap will fill."""
    store = await _new_store(database_url)
    try:
        late, quick = _sid("hold"), _sid("quick")
        await store.create_stream(late, "game")
        await store.create_stream(quick, "game")
        start = await store.pool.fetchval("SELECT coalesce(max(position), 0) FROM events")
        positions: list[int] = []
        holder = asyncio.create_task(_late_commit(database_url, late, 0.6, positions))
        while not positions:
            await asyncio.sleep(0.005)
        quick_append = asyncio.create_task(store.append(quick, 0, [("q", b"1")]))
        await asyncio.sleep(0.3)
        # The holder's position is drawn but not committed; the quick append
        # waits. Other tests' tables may commit into this database meanwhile:
        # what came before the held position may show, nothing at or after it.
        assert [row[0] for row in await store.read_all(start) if row[0] >= positions[0]] == []
        assert not quick_append.done()
        await holder
        assert await asyncio.wait_for(quick_append, 10) == 1
        seen = [row for row in await store.read_all(start) if row[1] in (late, quick)]
        assert [(s, v) for _, s, v, _, _ in seen] == [(late, 1), (quick, 1)]
        assert seen[0][0] == positions[0] < seen[1][0]
    finally:
        await _close(store)


# --- migrations --------------------------------------------------------------------


async def test_migrations_are_applied_once_and_idempotently(database_url, servers):
    admin_url, _ = servers
    # On the session database: a second and a third create_pool change nothing.
    pools = [await create_pool(database_url, 2), await create_pool(database_url, 2)]
    try:
        rows = await pools[0].fetch("SELECT version, name FROM schema_migrations ORDER BY version")
        assert [(r["version"], r["name"]) for r in rows] == [(v, n) for v, n, _ in migration_files()]
        async with pools[1].acquire() as conn:
            assert await migrate(conn) == []
        assert (
            await pools[0].fetchval(
                "SELECT count(*) FROM pg_trigger WHERE tgrelid = 'events'::regclass AND NOT tgisinternal"
            )
            == 2
        )
    finally:
        for pool in pools:
            await pool.close()

    # On a fresh database: several processes migrating at once apply each file once.
    name = f"hanamichi_mig_{uuid.uuid4().hex[:10]}"
    admin = await asyncpg.connect(admin_url)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        head, _, query = database_url.partition("?")
        fresh_url = head.rsplit("/", 1)[0] + f"/{name}" + (f"?{query}" if query else "")
        conns = [await asyncpg.connect(fresh_url) for _ in range(4)]
        try:
            applied = await asyncio.gather(*(migrate(c) for c in conns))
            flat = [n for names in applied for n in names]
            assert sorted(flat) == [n for _, n, _ in migration_files()]
            assert await conns[0].fetchval("SELECT count(*) FROM schema_migrations") == len(migration_files())
            assert await migrate(conns[0]) == []
        finally:
            for c in conns:
                await c.close()
        pool = await create_pool(fresh_url, 2)
        try:
            store = EventStore(pool)
            sid = _sid("fresh")
            await store.create_stream(sid, "game")
            assert await store.append(sid, 0, [("a", b"1")]) == 1
        finally:
            await _close(store)
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
