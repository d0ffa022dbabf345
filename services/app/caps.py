"""What one account may hold at once: tables it created that are not
finished, house bots seated at them (fewer of the costly `expert` bot), the
agents it owns, and its agents' sparring series running.

Each cap is counted from the current state in PostgreSQL at the moment of the
decision, never from a counter that could drift: finishing a table, deleting
an agent or a series' last game ending frees the slot by itself. The count
runs in the caller's transaction, after the player's advisory lock
(CAP_LOCK, hashtext of the player id), and the caller inserts in that same
transaction: two requests for the last slot, on two API processes, are
decided one after the other, and the second counts the first's row.

A refusal is 429 with a stable code (too_many_open_tables, too_many_bot_seats,
too_many_agents, too_many_sparring) and a message saying what frees a slot."""

from __future__ import annotations

from dataclasses import dataclass

from services.app.errors import ServiceError

# The advisory lock class of the caps: one lock per player in it (the
# two-key form, so it never meets the one-key locks of players.py,
# eventstore.py and db.py).
CAP_LOCK = 7_240_020
EXPERT_BOT = "expert"
# A series whose games are not all written yet is being created; past this
# it is one whose creation failed half-way, and it holds no slot.
SPARRING_CREATION_S = 600


class TooMany(ServiceError):
    status = 429


@dataclass(frozen=True)
class CapPolicy:
    """The caps (HANAMICHI_MAX_*_PER_PLAYER, services/config.py)."""

    # Tables a player created that are open or in play.
    open_tables: int = 10
    # House bots at those tables: every seat of every table the cap allows
    # (the largest game seats 6), so a person can always fill their tables.
    bot_seats: int = 60
    # Of those, `expert` bots (their search is what costs): one full table.
    expert_seats: int = 6
    agents: int = 20
    # Sparring series of all of a player's agents running at once (each is
    # up to 50 games, 100 when duplicated, started together).
    sparring: int = 3

    async def check_open_table(self, conn, player_id: str) -> None:
        """Before creating a table for `player_id` (in its transaction)."""
        await _lock(conn, player_id)
        held = await conn.fetchval(
            "SELECT count(*) FROM games WHERE created_by = $1::text::uuid AND status IN ('open', 'playing')", player_id
        )
        if held >= self.open_tables:
            raise TooMany(
                "too_many_open_tables",
                f"You already have {_count(held, 'open table')}; finish one before creating another"
                " (house bots can take its empty seats).",
            )

    async def check_bot_seat(self, conn, host_id: str, bot: str) -> None:
        """Before seating house bot `bot` at a table of `host_id` (in the
        transaction of the seat's insert)."""
        await _lock(conn, host_id)
        row = await conn.fetchrow(
            "SELECT count(*) AS bots, count(*) FILTER (WHERE s.bot = $2) AS experts"
            " FROM seats s JOIN games g ON g.game_id = s.game_id"
            " WHERE g.created_by = $1::text::uuid AND g.status IN ('open', 'playing') AND s.bot IS NOT NULL",
            host_id,
            EXPERT_BOT,
        )
        if row["bots"] >= self.bot_seats:
            raise TooMany(
                "too_many_bot_seats",
                f"Your unfinished tables already seat {_count(row['bots'], 'house bot')}; finish a table first.",
            )
        if bot == EXPERT_BOT and row["experts"] >= self.expert_seats:
            raise TooMany(
                "too_many_bot_seats",
                f"Your unfinished tables already seat {_count(row['experts'], 'expert bot')}, the most one"
                " person may have (they are costly to run); seat another bot, or finish a table first.",
            )

    async def check_agent(self, conn, owner_id: str) -> None:
        """Before registering an agent of `owner_id` (in its transaction)."""
        await _lock(conn, owner_id)
        held = await conn.fetchval(
            "SELECT count(*) FROM agents WHERE owner_id = $1::text::uuid AND status <> 'deleted'", owner_id
        )
        if held >= self.agents:
            raise TooMany(
                "too_many_agents",
                f"You already have {_count(held, 'agent')}; delete one before registering another.",
            )

    async def check_sparring(self, conn, owner_id: str) -> None:
        """Before starting a sparring series of an agent of `owner_id` (in
        the transaction of the series' row). A series runs until every one
        of its games is finished."""
        await _lock(conn, owner_id)
        held = await conn.fetchval(
            "SELECT count(*) FROM sparring sp JOIN agents a ON a.agent_id = sp.agent_id"
            " WHERE a.owner_id = $1::text::uuid AND EXISTS ("
            "   SELECT 1 FROM unnest(sp.game_ids || coalesce(sp.bot_game_ids, '{}')) AS t(game_id)"
            "   LEFT JOIN games g ON g.game_id = t.game_id"
            "   WHERE g.status IN ('open', 'playing')"
            "      OR (g.game_id IS NULL AND sp.created_at > now() - make_interval(secs => $2)))",
            owner_id,
            float(SPARRING_CREATION_S),
        )
        if held >= self.sparring:
            raise TooMany(
                "too_many_sparring",
                f"Your agents already have {_count(held, 'sparring series', 'sparring series')} running;"
                " wait for one to finish.",
            )


async def _lock(conn, player_id: str) -> None:
    await conn.execute("SELECT pg_advisory_xact_lock($1, hashtext($2))", CAP_LOCK, player_id)


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"
