"""One contract for the post-game analyses' records (the `AnalysisStore`
port): the memory adapter and PostgreSQL's answer the same.

Each test uses an analysis version of its own (and requesters of its own),
so on the shared session database one test's rows never meet another's, nor
the rows the service tests' workers write."""

from __future__ import annotations

import random
import time
import uuid
from typing import Any

import asyncpg
import msgspec
import pytest

from services.infra.memory_analyses import MemoryAnalyses
from services.infra.pg_analyses import PgAnalyses

STALE_MS = 300_000


@pytest.fixture
def version() -> int:
    return random.randrange(1_000_000, 2_000_000_000)


def now() -> int:
    # Whole seconds: what PostgreSQL's timestamps give back exactly.
    return int(time.time()) * 1000


def game() -> str:
    return str(uuid.uuid4())


class AnalysesContract:
    """A subclass provides a `store` fixture."""

    async def test_request_is_idempotent_and_returns_the_current_record(self, store: Any, version: int) -> None:
        g, t = game(), now()
        first = await store.request(g, version, 1, "player:a", t)
        assert (first.status, first.priority, first.requested_by, first.requested_at_ms) == ("queued", 1, "player:a", t)
        assert (first.done, first.total, first.result, first.attempts) == (0, 0, None, 0)
        again = await store.request(g, version, 1, "player:b", t + 5000)
        assert again == first
        assert await store.get(g, version) == first
        assert await store.get(g, version + 1) is None
        # A tournament's request raises the priority of a queued one, the requester stays.
        raised = await store.request(g, version, 0, None, t + 6000)
        assert (raised.priority, raised.requested_by) == (0, "player:a")

    async def test_claim_by_priority_then_request_time_and_never_twice(self, store: Any, version: int) -> None:
        t = now()
        late, early, urgent = game(), game(), game()
        await store.request(late, version, 1, None, t - 1000)
        await store.request(early, version, 1, None, t - 3000)
        await store.request(urgent, version, 0, None, t)
        assert await store.pending(version, t, STALE_MS) == 3
        order = []
        for _ in range(3):
            claimed = await store.claim_next(version, t, STALE_MS)
            assert claimed.status == "running" and claimed.started_at_ms == t and claimed.attempts == 1
            order.append(claimed.game_id)
        assert order == [urgent, early, late]
        assert await store.claim_next(version, t, STALE_MS) is None
        assert await store.pending(version, t, STALE_MS) == 0

    async def test_a_stale_running_record_is_claimed_again(self, store: Any, version: int) -> None:
        g, t = game(), now()
        await store.request(g, version, 1, None, t - 10 * STALE_MS)
        claimed = await store.claim_next(version, t - 2 * STALE_MS, STALE_MS)  # its worker died since
        assert claimed.game_id == g
        await store.progress(g, version, 3, 10)
        assert await store.claim_next(version, t - 2 * STALE_MS + STALE_MS // 2, STALE_MS) is None  # not stale yet
        assert await store.pending(version, t, STALE_MS) == 1
        again = await store.claim_next(version, t, STALE_MS)
        assert (again.game_id, again.status, again.started_at_ms, again.attempts) == (g, "running", t, 2)
        assert (again.done, again.total) == (0, 0)

    async def test_progress_finish_and_fail(self, store: Any, version: int) -> None:
        g, h, t = game(), game(), now()
        await store.request(g, version, 1, None, t)
        await store.request(h, version, 1, None, t + 1000)
        await store.progress(g, version, 1, 2)  # not running: ignored
        assert (await store.get(g, version)).done == 0
        await store.claim_next(version, t, STALE_MS)
        await store.progress(g, version, 4, 9)
        record = await store.get(g, version)
        assert (record.status, record.done, record.total) == ("running", 4, 9)
        result = {"game_id": g, "seats": [{"seat": 0, "mean_loss": 0.5}]}
        await store.finish(g, version, msgspec.json.encode(result), 1234)
        record = await store.get(g, version)
        assert (record.status, record.elapsed_ms, msgspec.json.decode(record.result)) == ("done", 1234, result)
        assert await store.claim_next(version, t + 10, STALE_MS) is not None  # h
        await store.fail(h, version, "over budget", 120_000, retry=True)
        record = await store.get(h, version)
        assert (record.status, record.error, record.attempts) == ("queued", "over budget", 1)
        assert (await store.claim_next(version, t + 20, STALE_MS)).attempts == 2
        await store.fail(h, version, "over budget again", 120_000, retry=False)
        record = await store.get(h, version)
        assert (record.status, record.error) == ("failed", "over budget again")
        assert await store.claim_next(version, t + 30, STALE_MS) is None

    async def test_requests_since_counts_one_requesters_records(self, store: Any, version: int) -> None:
        me, other, t = f"player:{uuid.uuid4()}", f"ip:{uuid.uuid4()}", now()
        await store.request(game(), version, 1, me, t - 7200_000)
        await store.request(game(), version, 1, me, t - 60_000)
        await store.request(game(), version + 1, 1, me, t)
        await store.request(game(), version, 1, other, t)
        assert await store.requests_since(me, t - 3600_000) == [t - 60_000, t]
        assert await store.requests_since(other, t - 3600_000) == [t]
        assert await store.requests_since(f"player:{uuid.uuid4()}", 0) == []


class TestMemoryAnalyses(AnalysesContract):
    @pytest.fixture
    def store(self) -> MemoryAnalyses:
        return MemoryAnalyses()


class TestPostgresAnalyses(AnalysesContract):
    @pytest.fixture
    def store(self, pool: asyncpg.Pool) -> PgAnalyses:
        return PgAnalyses(pool)
