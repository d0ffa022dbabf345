"""The post-game analyses in PostgreSQL: the `analyses` table (migration
020), the `AnalysisStore` port (services/app/ports/analyses.py)."""

from __future__ import annotations

import asyncpg

from services.infra.analysis_records import AnalysisRecord


def _columns(a: str = "") -> str:
    return (
        f"{a}game_id::text AS game_id, {a}analysis_version AS analysis_version, {a}status AS status,"
        f" {a}priority AS priority, {a}requested_by AS requested_by,"
        f" (extract(epoch FROM {a}requested_at) * 1000)::bigint AS requested_at_ms,"
        f" (extract(epoch FROM {a}started_at) * 1000)::bigint AS started_at_ms,"
        f" {a}attempts AS attempts, {a}done AS done, {a}total AS total, {a}result::text AS result,"
        f" {a}elapsed_ms AS elapsed_ms, {a}error AS error"
    )


_COLUMNS = _columns()


def _record(row: asyncpg.Record | None) -> AnalysisRecord | None:
    if row is None:
        return None
    result = row["result"]
    return AnalysisRecord(
        game_id=row["game_id"],
        analysis_version=row["analysis_version"],
        status=row["status"],
        priority=row["priority"],
        requested_by=row["requested_by"],
        requested_at_ms=int(row["requested_at_ms"]),
        started_at_ms=None if row["started_at_ms"] is None else int(row["started_at_ms"]),
        attempts=row["attempts"],
        done=row["done"],
        total=row["total"],
        result=None if result is None else result.encode(),
        elapsed_ms=row["elapsed_ms"],
        error=row["error"],
    )


class PgAnalyses:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    async def request(
        self, game_id: str, version: int, priority: int, requested_by: str | None, now_ms: int
    ) -> AnalysisRecord:
        row = await self.pool.fetchrow(
            "INSERT INTO analyses AS a (game_id, analysis_version, priority, requested_by, requested_at)"
            " VALUES ($1::text::uuid, $2, $3, $4, to_timestamp($5::bigint / 1000.0))"
            " ON CONFLICT (game_id, analysis_version) DO UPDATE"
            " SET priority = LEAST(a.priority, EXCLUDED.priority)"
            f" RETURNING {_columns('a.')}",
            game_id,
            version,
            priority,
            requested_by,
            now_ms,
        )
        record = _record(row)
        assert record is not None
        return record

    async def claim_next(self, version: int, now_ms: int, stale_ms: int) -> AnalysisRecord | None:
        row = await self.pool.fetchrow(
            "WITH next AS ("
            "  SELECT game_id, analysis_version FROM analyses"
            "  WHERE analysis_version = $1 AND (status = 'queued'"
            "    OR (status = 'running' AND started_at < to_timestamp(($2::bigint - $3::bigint) / 1000.0)))"
            "  ORDER BY priority, requested_at LIMIT 1 FOR UPDATE SKIP LOCKED)"
            " UPDATE analyses a SET status = 'running', started_at = to_timestamp($2::bigint / 1000.0),"
            "  attempts = a.attempts + 1, done = 0, total = 0"
            " FROM next WHERE a.game_id = next.game_id AND a.analysis_version = next.analysis_version"
            f" RETURNING {_columns('a.')}",
            version,
            now_ms,
            stale_ms,
        )
        return _record(row)

    async def progress(self, game_id: str, version: int, done: int, total: int) -> None:
        await self.pool.execute(
            "UPDATE analyses SET done = $3, total = $4"
            " WHERE game_id = $1::text::uuid AND analysis_version = $2 AND status = 'running'",
            game_id,
            version,
            done,
            total,
        )

    async def finish(self, game_id: str, version: int, result: bytes, elapsed_ms: int) -> None:
        await self.pool.execute(
            "UPDATE analyses SET status = 'done', result = $3::text::jsonb, elapsed_ms = $4, error = NULL"
            " WHERE game_id = $1::text::uuid AND analysis_version = $2",
            game_id,
            version,
            result.decode(),
            elapsed_ms,
        )

    async def fail(self, game_id: str, version: int, error: str, elapsed_ms: int, retry: bool) -> None:
        await self.pool.execute(
            "UPDATE analyses SET status = CASE WHEN $5 THEN 'queued' ELSE 'failed' END,"
            " error = $3, elapsed_ms = $4, done = 0, total = 0"
            " WHERE game_id = $1::text::uuid AND analysis_version = $2",
            game_id,
            version,
            error,
            elapsed_ms,
            retry,
        )

    async def get(self, game_id: str, version: int) -> AnalysisRecord | None:
        return _record(
            await self.pool.fetchrow(
                f"SELECT {_COLUMNS} FROM analyses WHERE game_id = $1::text::uuid AND analysis_version = $2",
                game_id,
                version,
            )
        )

    async def requests_since(self, requester: str, since_ms: int) -> list[int]:
        rows = await self.pool.fetch(
            "SELECT (extract(epoch FROM requested_at) * 1000)::bigint AS at FROM analyses"
            " WHERE requested_by = $1 AND requested_at >= to_timestamp($2::bigint / 1000.0) ORDER BY requested_at",
            requester,
            since_ms,
        )
        return [int(r["at"]) for r in rows]

    async def pending(self, version: int, now_ms: int, stale_ms: int) -> int:
        return await self.pool.fetchval(
            "SELECT count(*) FROM analyses WHERE analysis_version = $1 AND (status = 'queued'"
            " OR (status = 'running' AND started_at < to_timestamp(($2::bigint - $3::bigint) / 1000.0)))",
            version,
            now_ms,
            stale_ms,
        )
