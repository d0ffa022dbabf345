"""The post-game analyses in memory: the `AnalysisStore` port
(services/app/ports/analyses.py), for unit tests; tests/contract holds it to
the PostgreSQL adapter's behaviour."""

from __future__ import annotations

import msgspec

from services.infra.analysis_records import AnalysisRecord


class MemoryAnalyses:
    def __init__(self) -> None:
        self.rows: dict[tuple[str, int], AnalysisRecord] = {}
        self._seq = 0
        self._order: dict[tuple[str, int], int] = {}

    def _put(self, record: AnalysisRecord) -> AnalysisRecord:
        self.rows[(record.game_id, record.analysis_version)] = record
        return record

    async def request(
        self, game_id: str, version: int, priority: int, requested_by: str | None, now_ms: int
    ) -> AnalysisRecord:
        key = (game_id, version)
        current = self.rows.get(key)
        if current is not None:
            if priority < current.priority:
                current = self._put(msgspec.structs.replace(current, priority=priority))
            return current
        self._seq += 1
        self._order[key] = self._seq
        return self._put(
            AnalysisRecord(
                game_id=game_id,
                analysis_version=version,
                status="queued",
                priority=priority,
                requested_by=requested_by,
                requested_at_ms=now_ms,
                started_at_ms=None,
                attempts=0,
                done=0,
                total=0,
                result=None,
                elapsed_ms=None,
                error=None,
            )
        )

    def _claimable(self, r: AnalysisRecord, version: int, now_ms: int, stale_ms: int) -> bool:
        if r.analysis_version != version:
            return False
        return r.status == "queued" or (
            r.status == "running" and r.started_at_ms is not None and r.started_at_ms < now_ms - stale_ms
        )

    async def claim_next(self, version: int, now_ms: int, stale_ms: int) -> AnalysisRecord | None:
        candidates = [r for r in self.rows.values() if self._claimable(r, version, now_ms, stale_ms)]
        if not candidates:
            return None
        best = min(
            candidates,
            key=lambda r: (r.priority, r.requested_at_ms, self._order[(r.game_id, r.analysis_version)]),
        )
        return self._put(
            msgspec.structs.replace(
                best, status="running", started_at_ms=now_ms, attempts=best.attempts + 1, done=0, total=0
            )
        )

    async def progress(self, game_id: str, version: int, done: int, total: int) -> None:
        r = self.rows.get((game_id, version))
        if r is not None and r.status == "running":
            self._put(msgspec.structs.replace(r, done=done, total=total))

    async def finish(self, game_id: str, version: int, result: bytes, elapsed_ms: int) -> None:
        r = self.rows.get((game_id, version))
        if r is not None:
            normal = msgspec.json.encode(msgspec.json.decode(result))  # stored as JSON, as jsonb is
            self._put(msgspec.structs.replace(r, status="done", result=normal, elapsed_ms=elapsed_ms, error=None))

    async def fail(self, game_id: str, version: int, error: str, elapsed_ms: int, retry: bool) -> None:
        r = self.rows.get((game_id, version))
        if r is None:
            return
        self._put(
            msgspec.structs.replace(
                r,
                status="queued" if retry else "failed",
                error=error,
                elapsed_ms=elapsed_ms,
                done=0,
                total=0,
            )
        )

    async def get(self, game_id: str, version: int) -> AnalysisRecord | None:
        return self.rows.get((game_id, version))

    async def requests_since(self, requester: str, since_ms: int) -> list[int]:
        return sorted(
            r.requested_at_ms
            for r in self.rows.values()
            if r.requested_by == requester and r.requested_at_ms >= since_ms
        )

    async def pending(self, version: int, now_ms: int, stale_ms: int) -> int:
        return sum(1 for r in self.rows.values() if self._claimable(r, version, now_ms, stale_ms))
