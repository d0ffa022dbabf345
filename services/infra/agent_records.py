"""What the agent adapters (PostgreSQL and memory) speak in: an agent's row
in `agents`, its turns in `agent_turns`, its sparring series in `sparring`,
and what its stream, reports and sparring report read of other features'
rows (seats, games, tournaments, commands). Defined in infra (an adapter may
not import the application layer) and named by the port,
services/app/ports/agents.py."""

from __future__ import annotations

from datetime import datetime

import msgspec


class AgentRow(msgspec.Struct, frozen=True):
    """An agent's row as stored: its secrets sealed (services/app/agents/secrets.py opens them)."""

    agent_id: str
    owner_id: str
    name: str
    games: tuple[str, ...]
    mode: str  # 'push', 'pull'
    endpoint: str | None
    sealed_secret: str | None
    status: str  # 'active', 'paused', 'deleted'
    created_at: datetime
    previous_sealed_secret: str | None = None
    previous_secret_until: datetime | None = None


class NewAgent(msgspec.Struct, frozen=True):
    agent_id: str
    owner_id: str
    name: str
    games: list[str]
    mode: str
    endpoint: str | None
    sealed_secret: str | None


class OpenTurn(msgspec.Struct, frozen=True):
    """A turn of a seat still pending (no outcome yet)."""

    version: int
    sent_ms: float


class TurnRecord(msgspec.Struct, frozen=True):
    """One call (or a pull agent's turn) as `agent_turns` keeps it."""

    game_id: str
    version: int
    seat: int
    agent_id: str
    committed_ms: float
    sent_ms: float
    answered_ms: float | None
    done_ms: float | None
    used_ms: int
    overdraft_ms: int
    outcome: str
    detail: str = ""
    answer: str = ""


class TurnLogRow(msgspec.Struct, frozen=True):
    """A line of an agent's turn log, with its game's name and time control
    and the bank the seat had used in that game once the turn was settled."""

    game_id: str
    version: int
    seat: int
    sent_ms: float
    answered_ms: float | None
    done_ms: float | None
    used_ms: int
    overdraft_ms: int
    outcome: str
    detail: str
    answer: str
    bank_used_after: int
    game: str
    time_control: dict | None


class NewSparring(msgspec.Struct, frozen=True):
    sparring_id: str
    agent_id: str
    game: str
    game_ids: list[str]
    seats: list[int]
    settings: dict
    bot_game_ids: list[str] | None = None


class SparringRow(msgspec.Struct, frozen=True):
    sparring_id: str
    game: str
    game_ids: list[str]
    seats: list[int]
    settings: dict
    bot_game_ids: list[str] | None


class SparringSummary(msgspec.Struct, frozen=True):
    """A series as its agent's list shows it: how many tables, how many finished."""

    sparring_id: str
    game: str
    settings: dict
    created_ms: int
    tables: int
    finished: int


class Invitation(msgspec.Struct, frozen=True):
    """A tournament the agent was entered in that registers or runs."""

    tournament_id: str
    game: str
    status: str
    start_ms: int
