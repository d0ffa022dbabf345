"""Settings from the environment, read once at the composition root."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from services.app.agents.settings import AgentSettings


@dataclass(frozen=True)
class Settings:
    database_url: str | None = None
    redis_url: str | None = None
    data_dir: Path = Path(".hanamichi")
    # Largest request body the API reads (bigger ones are refused with 413).
    max_body_bytes: int = 64 * 1024
    # How often each process re-checks PostgreSQL for events its SSE clients
    # have not seen (a publish that never happened, Redis flushed or trimmed).
    resync_interval_s: float = 1.0
    sse_keepalive_s: float = 10.0
    # Delay before a house bot moves, so people can follow the table.
    bot_delay_ms: int = 0
    # The house-bot delay of a table created with POST /api/v1/games that
    # does not set `bot_delay_ms` (people play or watch it; issue 14).
    table_bot_delay_ms: int = 700
    # Signs session cookies and CSRF tokens; every API process must share it.
    # Unset: one is drawn once and kept in PostgreSQL (services/app/accounts.py).
    session_secret: str | None = None
    pool_size: int = 10
    # Push and pull agents (HANAMICHI_AGENT_*, HANAMICHI_ALLOW_*_AGENTS): read
    # from the environment with the rest unless given.
    agents: AgentSettings = field(default_factory=AgentSettings.from_env)
    # A worker's poll of its queue: bounds the delay before a push agent is called.
    worker_poll_ms: int = 5

    @classmethod
    def from_env(cls) -> "Settings":
        env = os.environ
        return cls(
            database_url=env.get("DATABASE_URL") or None,
            redis_url=env.get("REDIS_URL") or None,
            data_dir=Path(env.get("HANAMICHI_DATA", ".hanamichi")),
            bot_delay_ms=int(env.get("HANAMICHI_BOT_DELAY_MS", "0")),
            table_bot_delay_ms=int(env.get("HANAMICHI_TABLE_BOT_DELAY_MS", "700")),
            session_secret=env.get("HANAMICHI_SESSION_SECRET") or None,
            pool_size=int(env.get("HANAMICHI_PG_POOL", "10")),
            agents=AgentSettings.from_env(),
            worker_poll_ms=int(env.get("HANAMICHI_WORKER_POLL_MS", "5")),
        )
