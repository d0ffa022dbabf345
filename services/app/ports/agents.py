"""The agents' port: agents' rows (their sealed secrets, status, mode), the
turns they were asked to play (agent_turns: answer times and the time bank),
their sparring series and tournament entries, the key material their
secrets are sealed with, and what an agent's stream, turn log and sparring
report read of other features' rows (seats, games, tournaments, commands).
Adapters: services/infra/pg_agents.py (PostgreSQL) and
services/infra/memory_agents.py; tests/contract holds both to one suite.

The rules stay in services/app/agents: what may be registered, the time
bank's arithmetic, the limits of what is kept (a detail's length, a used
time's range), how a secret is sealed."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

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

__all__ = [
    "AgentRow",
    "AgentStore",
    "Invitation",
    "NewAgent",
    "NewSparring",
    "OpenTurn",
    "SparringRow",
    "SparringSummary",
    "TurnLogRow",
    "TurnRecord",
]


class AgentStore(Protocol):
    # --- secrets at rest ---------------------------------------------------------

    async def shared_secret(self, name: str, drawn: bytes) -> bytes:
        """The key material kept under `name`: `drawn` when none was kept
        before (it is kept then), else the one the first caller kept."""

    async def plaintext_secrets(self) -> list[tuple[str, str]]:
        """(agent id, secret) of the agents whose secret is still stored in plaintext."""

    async def seal_secret(self, agent_id: str, plaintext: str, sealed: str) -> None:
        """The agent's secret becomes `sealed` and its plaintext is cleared,
        only if its plaintext is still `plaintext` (processes may race)."""

    # --- agents ------------------------------------------------------------------

    async def insert_agent(self, new: NewAgent, tx: Any = None) -> AgentRow:
        """The new agent's row (status 'active'); its player's row exists already (in `tx`)."""

    async def agent(self, agent_id: str) -> AgentRow | None:
        """Deleted agents included."""

    async def agents_of(self, owner_id: str) -> list[AgentRow]:
        """The owner's agents not deleted, oldest first."""

    async def set_status(self, agent_id: str, status: str, tx: Any = None) -> AgentRow | None:
        """The row as it is now (None: no such agent)."""

    async def set_secrets(
        self, agent_id: str, sealed: str, previous: str | None, previous_until: datetime | None
    ) -> None:
        """A rotation: `sealed` signs from now on, `previous` too until `previous_until`."""

    async def mode(self, agent_id: str) -> str | None:
        """'push' or 'pull'; None when `agent_id` is no agent."""

    async def enter(self, agent_id: str, tournament_id: str) -> None:
        """The agent was entered in the tournament (kept once, however often)."""

    # --- turns (agent_turns) ---------------------------------------------------

    async def for_turn(self, agent_id: str, game_id: str, seat: int) -> tuple[AgentRow, int] | None:
        """The agent and the bank time its seat has used in the game, in one read."""

    async def bank_used(self, game_id: str, seat: int) -> int:
        """The sum of the seat's overdrafts in the game (0 when it has no turn)."""

    async def open_turn(self, game_id: str, seat: int, upto_version: int) -> OpenTurn | None:
        """The seat's latest pending turn at or before `upto_version`."""

    async def note_refusal(self, game_id: str, agent_id: str, detail: str) -> None:
        """`detail` kept on the agent's pending turns in the game."""

    async def open_turn_detail(self, game_id: str, version: int, seat: int) -> str | None:
        """The detail of that turn while it is pending (None: no pending turn)."""

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
        """Settles that turn if it is pending (done now); a None detail keeps the noted one."""

    async def record_turn(self, turn: TurnRecord) -> None:
        """Kept without waiting for the disk (accounting, not the game's
        record). A turn kept already gets the new done time, outcome, detail
        and answer; its other columns stay."""

    async def turn_log(self, agent_id: str, game_id: str | None, before: float | None, limit: int) -> list[TurnLogRow]:
        """The agent's turns (in `game_id` only, when given) sent before
        `before` (when given), newest sent first, at most `limit`. A row's
        bank_used_after counts all the seat's turns in its game up to it,
        whatever the page."""

    # --- sparring ----------------------------------------------------------------

    async def insert_sparring(self, new: NewSparring, tx: Any = None) -> None: ...

    async def sparring(self, sparring_id: str, agent_id: str) -> SparringRow | None:
        """The series, when it is that agent's."""

    async def sparring_of(self, agent_id: str) -> list[SparringSummary]:
        """The agent's series, newest first; `finished` counts its tables
        (the agent's and the house bot's twins) that are finished."""

    async def answer_times(self, game_ids: list[str], agent_id: str) -> list[float]:
        """answered - sent (ms) of the agent's answered turns in those games."""

    async def command_ids(self, game_ids: list[str], seats: list[int]) -> list[str]:
        """The ids of the commands recorded for each (game, seat) pair."""

    # --- an agent's stream --------------------------------------------------------

    async def live_seats(self, agent_id: str) -> list[tuple[str, int]]:
        """(game id, seat) of the agent's seats at tables open or in play."""

    async def invitations(self, agent_id: str) -> list[Invitation]:
        """The tournaments the agent was entered in that register or run."""
