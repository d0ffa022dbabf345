"""Settings from the environment, read once at the composition root.

This module is the only one of the service that reads the environment
(tests/architecture/test_environment.py holds it; the command-line tools may read
their own process's). `Settings.from_env` is read where a process starts and
handed to services/bootstrap.py, which passes each part to what needs it.
`ProcessSettings.from_env` is the one helper for what is set up before any
Settings exists, or where a library builds our object by name: the log
handler, and uvicorn's protocol class (services/http/httpserver.py), which
uvicorn instantiates itself."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from engines.timecontrol import TimeControl
from services.app.agents.settings import AgentSettings
from services.app.caps import CapPolicy
from services.app.games.quickplay import QuickPlaySettings
from services.app.seatclock import ClockDefaults
from services.app.signin import SignInPolicy


def _flag(env, name: str) -> bool:
    return env.get(name, "").lower() in ("1", "true", "yes", "on")


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
    # does not set `bot_delay_ms` (people play or watch it).
    table_bot_delay_ms: int = 700
    # An untimed table in play where nobody has moved this long: the worker's
    # sweep hands the seats it waits for to house bots (ranked last).
    stale_table_s: float = 86_400.0
    # Signs session cookies and CSRF tokens; every API process must share it.
    # Unset: one is drawn once and kept in PostgreSQL (services/app/accounts.py).
    session_secret: str | None = None
    # Encrypts push agents' signing secrets at rest (services/app/agents/secrets.py).
    # Unset: key material is drawn once and kept in PostgreSQL (development only).
    secret_key: str | None = None
    # The operator's bearer token for the admin routes (GET
    # /api/v1/admin/integrity). Unset: those routes answer 404.
    admin_token: str | None = None
    pool_size: int = 10
    # Tables a process keeps in memory (the least recently used goes past it),
    # and how long a finished one stays before it goes (it can be read again
    # from the log): what a process holds must not grow with the games played.
    table_cache_size: int = 5_000
    finished_table_linger_s: float = 30.0
    # Push and pull agents (HANAMICHI_AGENT_*, HANAMICHI_ALLOW_*_AGENTS).
    agents: AgentSettings = field(default_factory=AgentSettings)
    # Every seat's clock where a table says nothing: agents' time per move
    # and bank at untimed tables, the strike limit of every timed seat.
    clock: ClockDefaults = field(default_factory=ClockDefaults)
    # Sign-in attempts (services/app/signin.py): failed ones per name and per
    # client address in each window; past the name's, each is checked after
    # the delay (HANAMICHI_SIGNIN_*).
    signin: SignInPolicy = field(default_factory=SignInPolicy)
    # What one account may hold at once (services/app/caps.py,
    # HANAMICHI_MAX_*_PER_PLAYER).
    caps: CapPolicy = field(default_factory=CapPolicy)
    # Play now (services/app/games/quickplay.py): how long the longest waiting
    # person waits before house bots take the empty seats, and the tables'
    # time control (HANAMICHI_QUICK_PLAY_*).
    quick_play: QuickPlaySettings = field(default_factory=QuickPlaySettings)
    # A worker's poll of its queue: bounds the delay before a push agent is called.
    worker_poll_ms: int = 5
    # A spectator connection whose unsent bytes pass this is cut (services/http/broadcast.py).
    spectator_buffer_bytes: int = 256 * 1024
    # The kernel's send buffer of a spectator socket (0: the kernel's own, autotuned).
    spectator_sndbuf_bytes: int = 0
    # One access-log line per request (services/http/observe.py).
    access_log: bool = False
    # A worker's summary line, every this many seconds (workers/summary.py).
    log_summary_s: float = 300.0
    # Post-game analyses only when someone asks for one: a tournament round's
    # games are otherwise queued when the round ends.
    analyse_on_request_only: bool = False
    # New post-game analyses one player (or address) may ask for in an hour.
    analysis_requests_per_hour: int = 30
    # A standalone worker's own /metrics port (k8s); None: none.
    metrics_port: int | None = None

    def required_redis_url(self) -> str:
        """redis_url, which every process needs: Redis has no default address
        (PostgreSQL has asyncpg's, from the PG* variables)."""
        if self.redis_url is None:
            raise ValueError("REDIS_URL is not set")
        return self.redis_url

    @classmethod
    def from_env(cls) -> Settings:
        env = os.environ
        return cls(
            database_url=env.get("DATABASE_URL") or None,
            redis_url=env.get("REDIS_URL") or None,
            data_dir=Path(env.get("HANAMICHI_DATA", ".hanamichi")),
            bot_delay_ms=int(env.get("HANAMICHI_BOT_DELAY_MS", "0")),
            table_bot_delay_ms=int(env.get("HANAMICHI_TABLE_BOT_DELAY_MS", "700")),
            stale_table_s=float(env.get("HANAMICHI_STALE_TABLE_S", "86400")),
            session_secret=env.get("HANAMICHI_SESSION_SECRET") or None,
            secret_key=env.get("HANAMICHI_SECRET_KEY") or None,
            admin_token=env.get("HANAMICHI_ADMIN_TOKEN") or None,
            pool_size=int(env.get("HANAMICHI_PG_POOL", "10")),
            table_cache_size=int(env.get("HANAMICHI_TABLE_CACHE", "5000")),
            finished_table_linger_s=float(env.get("HANAMICHI_FINISHED_TABLE_LINGER_S", "30")),
            agents=agent_settings(env),
            clock=clock_defaults(env),
            signin=SignInPolicy(
                name_limit=int(env.get("HANAMICHI_SIGNIN_NAME_LIMIT", "10")),
                address_limit=int(env.get("HANAMICHI_SIGNIN_ADDRESS_LIMIT", "30")),
                window_s=int(env.get("HANAMICHI_SIGNIN_WINDOW_S", "60")),
                slow_ms=int(env.get("HANAMICHI_SIGNIN_SLOW_MS", "400")),
            ),
            caps=CapPolicy(
                open_tables=int(env.get("HANAMICHI_MAX_OPEN_TABLES_PER_PLAYER", "10")),
                bot_seats=int(env.get("HANAMICHI_MAX_BOT_SEATS_PER_PLAYER", "60")),
                expert_seats=int(env.get("HANAMICHI_MAX_EXPERT_SEATS_PER_PLAYER", "6")),
                agents=int(env.get("HANAMICHI_MAX_AGENTS_PER_PLAYER", "20")),
                sparring=int(env.get("HANAMICHI_MAX_SPARRING_PER_PLAYER", "3")),
            ),
            quick_play=QuickPlaySettings(
                fill_after_s=float(env.get("HANAMICHI_QUICK_PLAY_FILL_S", "10")),
                move_ms=int(env.get("HANAMICHI_QUICK_PLAY_MOVE_MS", "30000")),
                bank_ms=int(env.get("HANAMICHI_QUICK_PLAY_BANK_MS", "120000")),
            ),
            worker_poll_ms=int(env.get("HANAMICHI_WORKER_POLL_MS", "5")),
            spectator_buffer_bytes=int(env.get("HANAMICHI_SSE_SPECTATOR_BUFFER_BYTES", str(256 * 1024))),
            spectator_sndbuf_bytes=int(env.get("HANAMICHI_SSE_SPECTATOR_SNDBUF", "0")),
            access_log=_flag(env, "HANAMICHI_ACCESS_LOG"),
            log_summary_s=float(env.get("HANAMICHI_LOG_SUMMARY_S", "300")),
            analyse_on_request_only=_flag(env, "HANAMICHI_ANALYSE_ON_REQUEST_ONLY"),
            analysis_requests_per_hour=int(env.get("HANAMICHI_ANALYSIS_REQUESTS_PER_HOUR", "30")),
            metrics_port=int(env["HANAMICHI_METRICS_PORT"]) if env.get("HANAMICHI_METRICS_PORT") else None,
        )


def clock_defaults(env) -> ClockDefaults:
    """Every seat's clock where a table says nothing, from HANAMICHI_AGENT_MOVE_MS,
    HANAMICHI_AGENT_BANK_MS and HANAMICHI_AGENT_STRIKES (unset: ClockDefaults' own)."""
    unset = ClockDefaults()
    untimed = {
        "move_ms": int(env.get("HANAMICHI_AGENT_MOVE_MS", str(unset.agent_move_ms))),
        "bank_ms": int(env.get("HANAMICHI_AGENT_BANK_MS", str(unset.agent_bank_ms))),
    }
    try:  # the same bounds as every table's time control, checked at start-up
        msgspec.convert(untimed, TimeControl)
    except msgspec.ValidationError as err:
        raise ValueError(f"HANAMICHI_AGENT_MOVE_MS / HANAMICHI_AGENT_BANK_MS: {err}") from None
    return ClockDefaults(
        agent_move_ms=untimed["move_ms"],
        agent_bank_ms=untimed["bank_ms"],
        strike_limit=int(env.get("HANAMICHI_AGENT_STRIKES", str(unset.strike_limit))),
    )


def agent_settings(env) -> AgentSettings:
    """What agents are held to, from HANAMICHI_AGENT_* and HANAMICHI_ALLOW_*_AGENTS."""
    return AgentSettings(
        allow_http=_flag(env, "HANAMICHI_ALLOW_HTTP_AGENTS"),
        allow_private=_flag(env, "HANAMICHI_ALLOW_PRIVATE_AGENTS"),
        rate_limit=int(env.get("HANAMICHI_AGENT_RATE_LIMIT", "120")),
        rate_window_s=int(env.get("HANAMICHI_AGENT_RATE_WINDOW_S", "60")),
        secret_grace_s=float(env.get("HANAMICHI_AGENT_SECRET_GRACE_S", "600")),
    )


@dataclass(frozen=True)
class ProcessSettings:
    """What a process sets up before Settings exists, or for an object a
    library builds by name (uvicorn's protocol class, for every connection)."""

    log_level: str = "INFO"  # HANAMICHI_LOG_LEVEL
    log_text: bool = False  # HANAMICHI_LOG_FORMAT=text: plain lines instead of JSON
    # services/http/httpserver.py: a request must arrive whole within this
    # time; connections per address (0: no cap); proxies whose
    # X-Forwarded-For is trusted (comma-separated addresses or networks).
    request_timeout_s: float = 10.0
    max_connections_per_address: int = 0
    trusted_proxies: str = ""

    @classmethod
    def from_env(cls) -> ProcessSettings:
        env = os.environ
        return cls(
            log_level=(env.get("HANAMICHI_LOG_LEVEL") or "INFO").upper(),
            log_text=env.get("HANAMICHI_LOG_FORMAT", "json").lower() == "text",
            request_timeout_s=float(env.get("HANAMICHI_REQUEST_TIMEOUT_S", "10")),
            max_connections_per_address=int(env.get("HANAMICHI_MAX_CONNECTIONS_PER_ADDRESS", "0")),
            trusted_proxies=env.get("HANAMICHI_TRUSTED_PROXIES", ""),
        )
