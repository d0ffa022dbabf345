"""The post-game analyses' port: one record per (game, analysis version),
which is also the queue the analysis job claims from. Adapters:
services/infra/pg_analyses.py (PostgreSQL) and
services/infra/memory_analyses.py; tests/contract/test_analyses.py holds
both to one suite."""

from __future__ import annotations

from typing import Protocol

from services.infra.analysis_records import AnalysisRecord

__all__ = ["AnalysisRecord", "AnalysisStore"]


class AnalysisStore(Protocol):
    async def request(
        self, game_id: str, version: int, priority: int, requested_by: str | None, now_ms: int
    ) -> AnalysisRecord:
        """Queue it unless a record exists (idempotent); returns the current
        record. A second request at a lower (more urgent) priority raises a
        queued record's priority; it never changes its requester."""

    async def claim_next(self, version: int, now_ms: int, stale_ms: int) -> AnalysisRecord | None:
        """The next record to run, marked running (started now, attempts + 1):
        a queued one, or a running one started more than `stale_ms` ago (its
        worker died); by priority, then request time. Two claimers never get
        the same record (FOR UPDATE SKIP LOCKED)."""

    async def progress(self, game_id: str, version: int, done: int, total: int) -> None:
        """Only while running."""

    async def finish(self, game_id: str, version: int, result: bytes, elapsed_ms: int) -> None: ...

    async def fail(self, game_id: str, version: int, error: str, elapsed_ms: int, retry: bool) -> None:
        """Failed for good, or (`retry`) queued again in its place."""

    async def get(self, game_id: str, version: int) -> AnalysisRecord | None: ...

    async def requests_since(self, requester: str, since_ms: int) -> list[int]:
        """When `requester`'s records (of any version) were requested, at or
        after `since_ms`, oldest first."""

    async def pending(self, version: int, now_ms: int, stale_ms: int) -> int:
        """How many records a claim could take now (queued, or running and stale)."""
