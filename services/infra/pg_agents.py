"""The agents in PostgreSQL: `agents`, `agent_turns`, `sparring`,
`agent_entries` and the key material in `app_secrets` (the `AgentStore`
port, services/app/ports/agents.py), and what an agent's stream, turn log
and sparring report read of `seats`, `games`, `tournaments` and `commands`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import asyncpg
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
from services.infra.pg import on


def _agent(row: Any) -> AgentRow:
    return AgentRow(
        str(row["agent_id"]),
        str(row["owner_id"]),
        row["name"],
        tuple(row["games"]),
        row["mode"],
        row["endpoint"],
        row["sealed_secret"],
        row["status"],
        row["created_at"],
        row["previous_sealed_secret"],
        row["previous_secret_until"],
    )


class PgAgents:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    # --- secrets at rest ---------------------------------------------------------

    async def shared_secret(self, name: str, drawn: bytes) -> bytes:
        await self.pool.execute(
            "INSERT INTO app_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
            name,
            drawn,
        )
        return await self.pool.fetchval("SELECT value FROM app_secrets WHERE name = $1", name)

    async def plaintext_secrets(self) -> list[tuple[str, str]]:
        rows = await self.pool.fetch("SELECT agent_id, secret FROM agents WHERE secret IS NOT NULL")
        return [(str(r["agent_id"]), r["secret"]) for r in rows]

    async def seal_secret(self, agent_id: str, plaintext: str, sealed: str) -> None:
        await self.pool.execute(
            "UPDATE agents SET sealed_secret = $3, secret = NULL WHERE agent_id = $1::text::uuid AND secret = $2",
            agent_id,
            plaintext,
            sealed,
        )

    # --- agents ------------------------------------------------------------------

    async def insert_agent(self, new: NewAgent, tx: Any = None) -> AgentRow:
        row = await on(self.pool, tx).fetchrow(
            "INSERT INTO agents (agent_id, owner_id, name, games, mode, endpoint, sealed_secret)"
            " VALUES ($1::text::uuid, $2::text::uuid, $3, $4, $5, $6, $7) RETURNING *",
            new.agent_id,
            new.owner_id,
            new.name,
            new.games,
            new.mode,
            new.endpoint,
            new.sealed_secret,
        )
        return _agent(row)

    async def agent(self, agent_id: str) -> AgentRow | None:
        row = await self.pool.fetchrow("SELECT * FROM agents WHERE agent_id = $1::text::uuid", agent_id)
        return _agent(row) if row else None

    async def agents_of(self, owner_id: str) -> list[AgentRow]:
        rows = await self.pool.fetch(
            "SELECT * FROM agents WHERE owner_id = $1::text::uuid AND status <> 'deleted' ORDER BY created_at",
            owner_id,
        )
        return [_agent(r) for r in rows]

    async def set_status(self, agent_id: str, status: str, tx: Any = None) -> AgentRow | None:
        row = await on(self.pool, tx).fetchrow(
            "UPDATE agents SET status = $2 WHERE agent_id = $1::text::uuid RETURNING *", agent_id, status
        )
        return _agent(row) if row else None

    async def set_secrets(
        self, agent_id: str, sealed: str, previous: str | None, previous_until: datetime | None
    ) -> None:
        await self.pool.execute(
            "UPDATE agents SET sealed_secret = $2, previous_sealed_secret = $3, previous_secret_until = $4"
            " WHERE agent_id = $1::text::uuid",
            agent_id,
            sealed,
            previous,
            previous_until,
        )

    async def mode(self, agent_id: str) -> str | None:
        return await self.pool.fetchval("SELECT mode FROM agents WHERE agent_id = $1::text::uuid", agent_id)

    async def enter(self, agent_id: str, tournament_id: str) -> None:
        await self.pool.execute(
            "INSERT INTO agent_entries (agent_id, tournament_id) VALUES ($1::text::uuid, $2::text::uuid)"
            " ON CONFLICT DO NOTHING",
            agent_id,
            tournament_id,
        )

    # --- turns (agent_turns) ---------------------------------------------------

    async def for_turn(self, agent_id: str, game_id: str, seat: int) -> tuple[AgentRow, int] | None:
        row = await self.pool.fetchrow(
            "SELECT a.*, (SELECT coalesce(sum(overdraft_ms), 0) FROM agent_turns t"
            " WHERE t.game_id = $2::text::uuid AND t.seat = $3) AS bank_used"
            " FROM agents a WHERE a.agent_id = $1::text::uuid",
            agent_id,
            game_id,
            seat,
        )
        return (_agent(row), int(row["bank_used"])) if row else None

    async def bank_used(self, game_id: str, seat: int) -> int:
        used = await self.pool.fetchval(
            "SELECT coalesce(sum(overdraft_ms), 0) FROM agent_turns WHERE game_id = $1::text::uuid AND seat = $2",
            game_id,
            seat,
        )
        return int(used)

    async def open_turn(self, game_id: str, seat: int, upto_version: int) -> OpenTurn | None:
        row = await self.pool.fetchrow(
            "SELECT version, sent_ms FROM agent_turns WHERE game_id = $1::text::uuid AND seat = $2"
            " AND outcome = 'pending' AND version <= $3 ORDER BY version DESC LIMIT 1",
            game_id,
            seat,
            upto_version,
        )
        return None if row is None else OpenTurn(row["version"], row["sent_ms"])

    async def note_refusal(self, game_id: str, agent_id: str, detail: str) -> None:
        await self.pool.execute(
            "UPDATE agent_turns SET detail = $3 WHERE game_id = $1::text::uuid AND agent_id = $2::text::uuid"
            " AND outcome = 'pending'",
            game_id,
            agent_id,
            detail,
        )

    async def open_turn_detail(self, game_id: str, version: int, seat: int) -> str | None:
        return await self.pool.fetchval(
            "SELECT detail FROM agent_turns WHERE game_id = $1::text::uuid AND version = $2 AND seat = $3"
            " AND outcome = 'pending'",
            game_id,
            version,
            seat,
        )

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
        await self.pool.execute(
            "UPDATE agent_turns SET outcome = $4, used_ms = $5, overdraft_ms = $6, answered_ms = $7,"
            " done_ms = extract(epoch FROM clock_timestamp()) * 1000, detail = coalesce($8, detail)"
            " WHERE game_id = $1::text::uuid AND version = $2 AND seat = $3 AND outcome = 'pending'",
            game_id,
            version,
            seat,
            outcome,
            used_ms,
            overdraft_ms,
            answered_ms,
            detail,
        )

    async def record_turn(self, turn: TurnRecord) -> None:
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute("SET LOCAL synchronous_commit TO OFF")
            await conn.execute(
                "INSERT INTO agent_turns (game_id, version, seat, agent_id, committed_ms, sent_ms, answered_ms,"
                " done_ms, used_ms, overdraft_ms, outcome, detail, answer)"
                " VALUES ($1::text::uuid, $2, $3, $4::text::uuid, $5, $6, $7, $8, $9, $10, $11, $12, $13)"
                " ON CONFLICT (game_id, version, seat) DO UPDATE SET done_ms = EXCLUDED.done_ms,"
                " outcome = EXCLUDED.outcome, detail = EXCLUDED.detail, answer = EXCLUDED.answer",
                turn.game_id,
                turn.version,
                turn.seat,
                turn.agent_id,
                turn.committed_ms,
                turn.sent_ms,
                turn.answered_ms,
                turn.done_ms,
                turn.used_ms,
                turn.overdraft_ms,
                turn.outcome,
                turn.detail,
                turn.answer,
            )

    async def turn_log(self, agent_id: str, game_id: str | None, before: float | None, limit: int) -> list[TurnLogRow]:
        # The window runs over all the seat's turns in the game before the
        # page is cut, so a page's bank figures do not depend on the page.
        rows = await self.pool.fetch(
            "WITH t AS (SELECT *, sum(overdraft_ms) OVER (PARTITION BY game_id, seat ORDER BY version) AS"
            " bank_used_after"
            "  FROM agent_turns WHERE agent_id = $1::text::uuid AND ($2::text IS NULL OR game_id = $2::text::uuid))"
            " SELECT t.game_id::text AS game_id, t.version, t.seat, t.sent_ms, t.answered_ms, t.done_ms, t.used_ms,"
            " t.overdraft_ms, t.outcome, t.detail, t.answer, t.bank_used_after, g.game, g.time_control::text AS"
            " time_control"
            " FROM t JOIN games g ON g.game_id = t.game_id"
            " WHERE ($3::float8 IS NULL OR t.sent_ms < $3::float8)"
            " ORDER BY t.sent_ms DESC, t.game_id, t.version DESC LIMIT $4",
            agent_id,
            game_id,
            before,
            limit,
        )
        return [
            TurnLogRow(
                r["game_id"],
                r["version"],
                r["seat"],
                r["sent_ms"],
                r["answered_ms"],
                r["done_ms"],
                r["used_ms"],
                r["overdraft_ms"],
                r["outcome"],
                r["detail"],
                r["answer"],
                int(r["bank_used_after"]),
                r["game"],
                msgspec.json.decode(r["time_control"]) if r["time_control"] else None,
            )
            for r in rows
        ]

    # --- sparring ----------------------------------------------------------------

    async def insert_sparring(self, new: NewSparring, tx: Any = None) -> None:
        await on(self.pool, tx).execute(
            "INSERT INTO sparring (sparring_id, agent_id, game, game_ids, seats, settings, bot_game_ids)"
            " VALUES ($1::text::uuid, $2::text::uuid, $3, $4::text[]::uuid[], $5, $6::jsonb, $7::text[]::uuid[])",
            new.sparring_id,
            new.agent_id,
            new.game,
            new.game_ids,
            new.seats,
            msgspec.json.encode(new.settings).decode(),
            new.bot_game_ids,
        )

    async def sparring(self, sparring_id: str, agent_id: str) -> SparringRow | None:
        row = await self.pool.fetchrow(
            "SELECT sparring_id::text AS sparring_id, game, game_ids::text[] AS game_ids, seats, settings::text AS"
            " settings,"
            " bot_game_ids::text[] AS bot_game_ids FROM sparring"
            " WHERE sparring_id = $1::text::uuid AND agent_id = $2::text::uuid",
            sparring_id,
            agent_id,
        )
        if row is None:
            return None
        return SparringRow(
            row["sparring_id"],
            row["game"],
            list(row["game_ids"]),
            list(row["seats"]),
            msgspec.json.decode(row["settings"]),
            None if row["bot_game_ids"] is None else list(row["bot_game_ids"]),
        )

    async def sparring_of(self, agent_id: str) -> list[SparringSummary]:
        rows = await self.pool.fetch(
            "SELECT s.sparring_id::text AS sparring_id, s.game, s.settings::text AS settings,"
            " extract(epoch FROM s.created_at) * 1000 AS created_ms,"
            " cardinality(s.game_ids) + coalesce(cardinality(s.bot_game_ids), 0) AS tables,"
            " (SELECT count(*) FROM games g WHERE g.status = 'finished'"
            "   AND (g.game_id = ANY(s.game_ids) OR g.game_id = ANY(coalesce(s.bot_game_ids, '{}')))) AS finished"
            " FROM sparring s WHERE s.agent_id = $1::text::uuid ORDER BY s.created_at DESC",
            agent_id,
        )
        return [
            SparringSummary(
                r["sparring_id"],
                r["game"],
                msgspec.json.decode(r["settings"]),
                int(r["created_ms"]),
                r["tables"],
                r["finished"],
            )
            for r in rows
        ]

    async def answer_times(self, game_ids: list[str], agent_id: str) -> list[float]:
        rows = await self.pool.fetch(
            "SELECT answered_ms - sent_ms AS answer_ms FROM agent_turns"
            " WHERE game_id = ANY($1::text[]::uuid[]) AND agent_id = $2::text::uuid AND answered_ms IS NOT NULL",
            game_ids,
            agent_id,
        )
        return [r["answer_ms"] for r in rows]

    async def command_ids(self, game_ids: list[str], seats: list[int]) -> list[str]:
        rows = await self.pool.fetch(
            "SELECT c.command_id FROM commands c JOIN unnest($1::text[], $2::int[]) AS u(g, s)"
            " ON c.stream_id = u.g AND c.seat = u.s",
            game_ids,
            seats,
        )
        return [r["command_id"] for r in rows]

    # --- an agent's stream --------------------------------------------------------

    async def live_seats(self, agent_id: str) -> list[tuple[str, int]]:
        rows = await self.pool.fetch(
            "SELECT g.game_id::text AS game_id, s.seat FROM seats s JOIN games g ON g.game_id = s.game_id"
            " WHERE s.player_id = $1::text::uuid AND g.status IN ('open', 'playing')",
            agent_id,
        )
        return [(r["game_id"], r["seat"]) for r in rows]

    async def invitations(self, agent_id: str) -> list[Invitation]:
        rows = await self.pool.fetch(
            "SELECT t.tournament_id::text AS id, t.game, t.status, extract(epoch FROM t.start_at) * 1000 AS start_ms"
            " FROM agent_entries e JOIN tournaments t ON t.tournament_id = e.tournament_id"
            " WHERE e.agent_id = $1::text::uuid AND t.status IN ('registering', 'running')",
            agent_id,
        )
        return [Invitation(r["id"], r["game"], r["status"], int(r["start_ms"])) for r in rows]
