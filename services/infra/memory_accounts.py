"""The accounts in memory (the `AccountStore` port): what PostgreSQL's
`players`, `sessions` and `app_secrets` rows hold, for use cases tested
without a database. tests/contract holds it to PgAccounts' behaviour.

The rows a person's data export and deletion read from tables other
features own (seats, tournaments, agents) are arranged by a test with
`add_seat`, `add_tournament` and `add_agent`."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from services.infra.account_records import (
    AccountSummary,
    Credentials,
    NameColumns,
    NameHolder,
    NameTaken,
    NewPlayer,
    PlayerRecord,
    ScrubbedPlayer,
    SessionRecord,
)

_order = itertools.count()


@dataclass
class _Player:
    player_id: str
    name: str
    kind: str
    token_hash: bytes
    password_hash: str | None
    name_key: str | None
    name_skeleton: str | None
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    deleted_at: datetime | None = None
    order: int = field(default_factory=lambda: next(_order))

    def record(self) -> PlayerRecord:
        return PlayerRecord(self.player_id, self.name, self.kind)

    def named(self, key: str, name: str) -> bool:
        # PgAccounts' BY_NAME: by key, or by lower(name) on a row not filled yet.
        return self.name_key == key or (self.name_key is None and self.name.lower() == name.lower())


@dataclass
class _Session:
    player_id: str
    expires_at: datetime
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    order: int = field(default_factory=lambda: next(_order))


class MemoryAccounts:
    def __init__(self) -> None:
        self.players: dict[str, _Player] = {}
        self.sessions: dict[bytes, _Session] = {}
        self.secrets: dict[str, bytes] = {}
        # Other features' rows, as a test arranges them.
        self.seats: list[tuple[str, int, str]] = []  # (game id, seat, player id), oldest table first
        self.tournaments: dict[str, str] = {}  # tournament id -> status
        self.agents: dict[str, dict[str, Any]] = {}  # agent id -> its row's columns

    def add_seat(self, game_id: str, seat: int, player_id: str) -> None:
        self.seats.append((game_id, seat, player_id))

    def add_tournament(self, tournament_id: str, status: str = "registering") -> None:
        self.tournaments[tournament_id] = status

    def add_agent(self, agent_id: str, name: str, endpoint: str | None, secret: str | None) -> None:
        self.agents[agent_id] = {"name": name, "endpoint": endpoint, "secret": secret}

    def _row(self, player_id: str) -> _Player | None:
        return self.players.get(player_id)

    async def shared_secret(self, name: str, drawn: bytes) -> bytes:
        return self.secrets.setdefault(name, drawn)

    async def name_holder(self, key: str, name: str, skeleton: str, tx: Any) -> NameHolder | None:
        same = next((p for p in self.players.values() if p.named(key, name)), None)
        if same is not None:
            return NameHolder(same.name, True)
        alike = next((p for p in self.players.values() if p.name_skeleton == skeleton), None)
        return None if alike is None else NameHolder(alike.name, False)

    async def insert_player(self, new: NewPlayer, tx: Any = None) -> None:
        # The unique index on lower(name).
        if any(p.name.lower() == new.name.lower() for p in self.players.values()):
            raise NameTaken(new.name)
        self.players[new.player_id] = _Player(
            new.player_id, new.name, new.kind, new.token_hash, new.password_hash, new.name_key, new.name_skeleton
        )

    async def unfilled_names(self) -> list[tuple[str, str]]:
        return [(p.player_id, p.name) for p in self.players.values() if p.name_key is None or p.name_skeleton is None]

    async def fill_names(self, rows: list[NameColumns]) -> None:
        for row in rows:
            if (player := self._row(row.player_id)) is not None:
                player.name_key, player.name_skeleton = row.name_key, row.name_skeleton

    async def current_names(self, player_ids: list[str]) -> dict[str, str]:
        return {i: p.name for i in player_ids if (p := self._row(i)) is not None}

    async def credentials_by_name(self, key: str, name: str) -> Credentials | None:
        found = sorted(
            (p for p in self.players.values() if p.named(key, name)),
            key=lambda p: (p.name != name, p.created_at, p.order),
        )
        if not found:
            return None
        p = found[0]
        return Credentials(p.player_id, p.name, p.kind, p.password_hash)

    async def player_by_token(self, token_hash: bytes) -> PlayerRecord | None:
        return next((p.record() for p in self.players.values() if p.token_hash == token_hash), None)

    async def player_by_session(self, session_hash: bytes) -> PlayerRecord | None:
        session = self.sessions.get(session_hash)
        if session is None or session.expires_at <= datetime.now(UTC):
            return None
        player = self._row(session.player_id)
        return None if player is None else player.record()

    async def password_hash(self, player_id: str) -> str | None:
        player = self._row(player_id)
        return None if player is None else player.password_hash

    async def has_password(self, player_id: str) -> bool:
        return await self.password_hash(player_id) is not None

    async def set_password(self, player_id: str, password_hash: str, tx: Any = None) -> None:
        if (player := self._row(player_id)) is not None:
            player.password_hash = password_hash

    async def set_token(self, player_id: str, token_hash: bytes, tx: Any = None) -> None:
        if (player := self._row(player_id)) is not None:
            player.token_hash = token_hash

    async def open_session(self, session_hash: bytes, player_id: str, expires_at: datetime) -> None:
        if session_hash in self.sessions:
            raise KeyError("a session with that hash exists")  # the primary key
        if player_id not in self.players:
            raise KeyError(f"no player {player_id}")  # the foreign key
        self.sessions[session_hash] = _Session(player_id, expires_at)

    async def end_session(self, session_hash: bytes) -> str | None:
        session = self.sessions.pop(session_hash, None)
        return None if session is None else session.player_id

    async def end_other_sessions(self, player_id: str, keep: bytes, tx: Any = None) -> None:
        for digest in [d for d, s in self.sessions.items() if s.player_id == player_id and d != keep]:
            del self.sessions[digest]

    async def end_sessions(self, player_ids: list[str], tx: Any = None) -> None:
        ids = set(player_ids)
        for digest in [d for d, s in self.sessions.items() if s.player_id in ids]:
            del self.sessions[digest]

    async def account(self, player_id: str) -> AccountSummary | None:
        player = self._row(player_id)
        return None if player is None else AccountSummary(player.created_at, player.password_hash is not None)

    async def sessions_of(self, player_id: str) -> list[SessionRecord]:
        mine = sorted(
            (s for s in self.sessions.values() if s.player_id == player_id), key=lambda s: (s.created_at, s.order)
        )
        return [SessionRecord(s.created_at, s.expires_at) for s in mine]

    async def seats_of(self, player_id: str) -> list[tuple[str, int]]:
        return [(game_id, seat) for game_id, seat, holder in self.seats if holder == player_id]

    async def registering_tournaments(self) -> list[str]:
        return [t for t, status in self.tournaments.items() if status == "registering"]

    async def scrub_player(self, scrubbed: ScrubbedPlayer, tx: Any = None) -> None:
        # Ratings rows: the projection writes none with a person's name
        # (services/app/ratings/projection.py), so there is none to rename here.
        player = self._row(scrubbed.player_id)
        if player is None:
            return
        player.name, player.name_key, player.name_skeleton = scrubbed.name, scrubbed.name_key, scrubbed.name_skeleton
        player.password_hash, player.token_hash = None, scrubbed.token_hash
        player.deleted_at = player.deleted_at or datetime.now(UTC)

    async def scrub_agent(self, agent_id: str, name: str, tx: Any = None) -> None:
        if (agent := self.agents.get(agent_id)) is not None:
            agent.update(name=name, endpoint=None, secret=None)
