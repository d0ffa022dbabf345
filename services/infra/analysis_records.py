"""The rows of the analyses' port (services/app/ports/analyses.py)."""

from __future__ import annotations

import msgspec


class AnalysisRecord(msgspec.Struct, frozen=True):
    game_id: str
    analysis_version: int
    status: str  # "queued" | "running" | "done" | "failed"
    priority: int  # 0: a tournament's game, 1: requested
    requested_by: str | None
    requested_at_ms: int
    started_at_ms: int | None
    attempts: int  # claims so far
    done: int
    total: int
    result: bytes | None  # the Analysis JSON (services/app/analysis/report.py), when done
    elapsed_ms: int | None
    error: str | None
