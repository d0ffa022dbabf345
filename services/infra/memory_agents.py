"""The agents in memory (the `AgentStore` port): what PostgreSQL's `agents`,
`agent_turns`, `sparring`, `agent_entries` and `app_secrets` rows hold, for
use cases tested without a database. tests/contract holds it to PgAgents'
behaviour.

An agent's row refers to players kept by a MemoryAccounts when one is given
(PostgreSQL's foreign keys). What PostgreSQL joins from other features'
tables (games, seats, tournaments, commands) is arranged by a test with
`add_game`, `add_seat`, `add_tournament` and `add_command`; a secret stored
in plaintext (before migration 012) with `keep_plaintext`."""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import msgspec

from services.infra.agent_records import (
    AgentRow,
    Invitation,
    NewAgent,
    NewSparring,
    OpenTurn,
    SparringRow,
    SparringSummary,
    TurnLogRow,
    TurnRecord,
)
from services.infra.memory_accounts import MemoryAccounts

_order = itertools.count()


@dataclass
class _Agent:
    new: NewAgent
    status: str = "active"
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    previous_sealed_secret: str | None = None
    previous_secret_until: datetime | None = None
    secret: str | None = None  # plaintext, as stored before migration 012
    order: int = field(default_factory=lambda: next(_order))

    def row(self) -> AgentRow:
        n = self.new
        return AgentRow(
            n.agent_id,
            n.owner_id,
            n.name,
            tuple(n.games),
            n.mode,
            n.endpoint,
            n.sealed_secret,
            self.status,
            self.created_at,
            self.previous_sealed_secret,
            self.previous_secret_until,
        )


@dataclass
class _Turn:
    record: TurnRecord
    used_ms: int
    overdraft_ms: int
    outcome: str
    answered_ms: float | None
    done_ms: float | None
    detail: str
    answer: str


@dataclass
class _Sparring:
    new: NewSparring
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    order: int = field(default_factory=lambda: next(_order))


@dataclass
class _Game:
    game: str
    status: str
    time_control: dict | None


class MemoryAgents:
    def __init__(self, accounts: MemoryAccounts | None = None) -> None:
        self.accounts = accounts
        self.secrets: dict[str, bytes] = {}
        self.agents: dict[str, _Agent] = {}
        self.turns: dict[tuple[str, int, int], _Turn] = {}  # (game id, version, seat) -> turn
        self.series: dict[str, _Sparring] = {}
        self.entries: set[tuple[str, str]] = set()  # (agent id, tournament id)
        # Other features' rows, as a test arranges them.
        self.games: dict[str, _Game] = {}
        self.seats: list[tuple[str, int, str]] = []  # (game id, seat, player id)
        self.tournaments: dict[str, tuple[str, str, datetime]] = {}  # id -> (game, status, start_at)
        self.commands: list[tuple[str, int, str]] = []  # (stream id, seat, command id)

    def add_game(self, game_id: str, game: str, status: str = "playing", time_control: dict | None = None) -> None:
        self.games[game_id] = _Game(game, status, time_control)

    def add_seat(self, game_id: str, seat: int, player_id: str) -> None:
        self.seats.append((game_id, seat, player_id))

    def add_tournament(self, tournament_id: str, game: str, status: str, start_at: datetime) -> None:
        self.tournaments[tournament_id] = (game, status, start_at)

    def add_command(self, stream_id: str, seat: int, command_id: str) -> None:
        self.commands.append((stream_id, seat, command_id))

    def keep_plaintext(self, agent_id: str, secret: str) -> None:
        self.agents[agent_id].secret = secret

    def _player(self, player_id: str) -> None:
        if self.accounts is not None and player_id not in self.accounts.players:
            raise KeyError(f"no player {player_id}")  # the foreign key

    def _agent(self, agent_id: str) -> _Agent:
        if agent_id not in self.agents:
            raise KeyError(f"no agent {agent_id}")  # the foreign key
        return self.agents[agent_id]

    # --- secrets at rest ---------------------------------------------------------

    async def shared_secret(self, name: str, drawn: bytes) -> bytes:
        return self.secrets.setdefault(name, drawn)

    async def plaintext_secrets(self) -> list[tuple[str, str]]:
        return [(a.new.agent_id, secret) for a in self.agents.values() if (secret := a.secret) is not None]

    async def seal_secret(self, agent_id: str, plaintext: str, sealed: str) -> None:
        agent = self.agents.get(agent_id)
        if agent is not None and agent.secret == plaintext:
            agent.new = _replace(agent.new, sealed_secret=sealed)
            agent.secret = None

    # --- agents ------------------------------------------------------------------

    async def insert_agent(self, new: NewAgent, tx: Any = None) -> AgentRow:
        if new.agent_id in self.agents:
            raise KeyError("an agent with that id exists")  # the primary key
        self._player(new.agent_id)
        self._player(new.owner_id)
        agent = _Agent(_replace(new, games=list(new.games)))
        self.agents[new.agent_id] = agent
        return agent.row()

    async def agent(self, agent_id: str) -> AgentRow | None:
        agent = self.agents.get(agent_id)
        return None if agent is None else agent.row()

    async def agents_of(self, owner_id: str) -> list[AgentRow]:
        mine = [a for a in self.agents.values() if a.new.owner_id == owner_id and a.status != "deleted"]
        return [a.row() for a in sorted(mine, key=lambda a: (a.created_at, a.order))]

    async def set_status(self, agent_id: str, status: str, tx: Any = None) -> AgentRow | None:
        agent = self.agents.get(agent_id)
        if agent is None:
            return None
        agent.status = status
        return agent.row()

    async def set_secrets(
        self, agent_id: str, sealed: str, previous: str | None, previous_until: datetime | None
    ) -> None:
        if (agent := self.agents.get(agent_id)) is not None:
            agent.new = _replace(agent.new, sealed_secret=sealed)
            agent.previous_sealed_secret, agent.previous_secret_until = previous, previous_until

    async def mode(self, agent_id: str) -> str | None:
        agent = self.agents.get(agent_id)
        return None if agent is None else agent.new.mode

    async def enter(self, agent_id: str, tournament_id: str) -> None:
        self._agent(agent_id)
        self.entries.add((agent_id, tournament_id))

    # --- turns (agent_turns) ---------------------------------------------------

    def _seat_turns(self, game_id: str, seat: int) -> list[_Turn]:
        return [t for (g, _, s), t in self.turns.items() if g == game_id and s == seat]

    async def for_turn(self, agent_id: str, game_id: str, seat: int) -> tuple[AgentRow, int] | None:
        agent = self.agents.get(agent_id)
        return None if agent is None else (agent.row(), await self.bank_used(game_id, seat))

    async def bank_used(self, game_id: str, seat: int) -> int:
        return sum(t.overdraft_ms for t in self._seat_turns(game_id, seat))

    async def open_turn(self, game_id: str, seat: int, upto_version: int) -> OpenTurn | None:
        pending = [
            t for t in self._seat_turns(game_id, seat) if t.outcome == "pending" and t.record.version <= upto_version
        ]
        if not pending:
            return None
        latest = max(pending, key=lambda t: t.record.version)
        return OpenTurn(latest.record.version, latest.record.sent_ms)

    async def note_refusal(self, game_id: str, agent_id: str, detail: str) -> None:
        for (g, _, _), turn in self.turns.items():
            if g == game_id and turn.record.agent_id == agent_id and turn.outcome == "pending":
                turn.detail = detail

    async def open_turn_detail(self, game_id: str, version: int, seat: int) -> str | None:
        turn = self.turns.get((game_id, version, seat))
        return turn.detail if turn is not None and turn.outcome == "pending" else None

    async def close_turn(
        self,
        game_id: str,
        version: int,
        seat: int,
        outcome: str,
        used_ms: int,
        overdraft_ms: int,
        answered_ms: float | None,
        detail: str | None,
    ) -> None:
        turn = self.turns.get((game_id, version, seat))
        if turn is None or turn.outcome != "pending":
            return
        turn.outcome, turn.used_ms, turn.overdraft_ms, turn.answered_ms = outcome, used_ms, overdraft_ms, answered_ms
        turn.done_ms = time.time() * 1000
        if detail is not None:
            turn.detail = detail

    async def record_turn(self, turn: TurnRecord) -> None:
        key = (turn.game_id, turn.version, turn.seat)
        kept = self.turns.get(key)
        if kept is None:
            self.turns[key] = _Turn(
                turn,
                turn.used_ms,
                turn.overdraft_ms,
                turn.outcome,
                turn.answered_ms,
                turn.done_ms,
                turn.detail,
                turn.answer,
            )
        else:  # ON CONFLICT: the settled columns only
            kept.done_ms, kept.outcome, kept.detail, kept.answer = turn.done_ms, turn.outcome, turn.detail, turn.answer

    async def turn_log(self, agent_id: str, game_id: str | None, before: float | None, limit: int) -> list[TurnLogRow]:
        mine = [
            t
            for t in self.turns.values()
            if t.record.agent_id == agent_id and (game_id is None or t.record.game_id == game_id)
        ]
        # The bank used once each turn was settled, over all of the seat's turns in the game.
        after: dict[tuple[str, int, int], int] = {}
        running: dict[tuple[str, int], int] = {}
        for t in sorted(mine, key=lambda t: t.record.version):
            r = t.record
            running[(r.game_id, r.seat)] = running.get((r.game_id, r.seat), 0) + t.overdraft_ms
            after[(r.game_id, r.version, r.seat)] = running[(r.game_id, r.seat)]
        shown = [t for t in mine if t.record.game_id in self.games and (before is None or t.record.sent_ms < before)]
        shown.sort(key=lambda t: (-t.record.sent_ms, t.record.game_id, -t.record.version))
        out = []
        for t in shown[:limit]:
            r, game = t.record, self.games[t.record.game_id]
            out.append(
                TurnLogRow(
                    r.game_id,
                    r.version,
                    r.seat,
                    r.sent_ms,
                    t.answered_ms,
                    t.done_ms,
                    t.used_ms,
                    t.overdraft_ms,
                    t.outcome,
                    t.detail,
                    t.answer,
                    after[(r.game_id, r.version, r.seat)],
                    game.game,
                    game.time_control,
                )
            )
        return out

    # --- sparring ----------------------------------------------------------------

    async def insert_sparring(self, new: NewSparring, tx: Any = None) -> None:
        if new.sparring_id in self.series:
            raise KeyError("a sparring series with that id exists")  # the primary key
        self._agent(new.agent_id)
        self.series[new.sparring_id] = _Sparring(new)

    async def sparring(self, sparring_id: str, agent_id: str) -> SparringRow | None:
        found = self.series.get(sparring_id)
        if found is None or found.new.agent_id != agent_id:
            return None
        n = found.new
        return SparringRow(
            n.sparring_id,
            n.game,
            list(n.game_ids),
            list(n.seats),
            n.settings,
            None if n.bot_game_ids is None else list(n.bot_game_ids),
        )

    async def sparring_of(self, agent_id: str) -> list[SparringSummary]:
        mine = sorted(
            (s for s in self.series.values() if s.new.agent_id == agent_id),
            key=lambda s: (s.created_at, s.order),
            reverse=True,
        )
        out = []
        for s in mine:
            n = s.new
            tables = set(n.game_ids) | set(n.bot_game_ids or [])
            finished = sum(1 for g in tables if g in self.games and self.games[g].status == "finished")
            out.append(
                SparringSummary(
                    n.sparring_id,
                    n.game,
                    n.settings,
                    int(s.created_at.timestamp() * 1000),
                    len(n.game_ids) + len(n.bot_game_ids or []),
                    finished,
                )
            )
        return out

    async def answer_times(self, game_ids: list[str], agent_id: str) -> list[float]:
        games = set(game_ids)
        return [
            t.answered_ms - t.record.sent_ms
            for t in self.turns.values()
            if t.record.game_id in games and t.record.agent_id == agent_id and t.answered_ms is not None
        ]

    async def command_ids(self, game_ids: list[str], seats: list[int]) -> list[str]:
        pairs = list(zip(game_ids, seats, strict=True))
        return [c for pair in pairs for stream, seat, c in self.commands if (stream, seat) == pair]

    # --- an agent's stream --------------------------------------------------------

    async def live_seats(self, agent_id: str) -> list[tuple[str, int]]:
        return [
            (game_id, seat)
            for game_id, seat, holder in self.seats
            if holder == agent_id and game_id in self.games and self.games[game_id].status in ("open", "playing")
        ]

    async def invitations(self, agent_id: str) -> list[Invitation]:
        out = []
        for entered, tournament_id in self.entries:
            if entered != agent_id or tournament_id not in self.tournaments:
                continue
            game, status, start_at = self.tournaments[tournament_id]
            if status in ("registering", "running"):
                out.append(Invitation(tournament_id, game, status, int(start_at.timestamp() * 1000)))
        return out


def _replace(struct: Any, **changes: Any) -> Any:
    return msgspec.structs.replace(struct, **changes)
