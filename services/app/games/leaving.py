"""No table waits for someone who will never come back. A seat whose player
leaves a game in progress (`leave_table`), deletes their account, or walks
away from an untimed game (`hand_stale_seats`, from the worker's sweep) goes
to a house bot, the same way a seat goes after its strikes
(hm.seat_handed_to_bot, services/app/games/commands.py), and is ranked last
(GameFinished.forfeited). A seat of a table not dealt yet is given to the bot
in its `seats` row (the log has no seats before the deal).

Before the deal a player who leaves frees the seat (its `seats` row goes),
and the player who created the table may cancel it (`cancel_table`). Both
lock the table's `games` row, as taking a seat does (Seating._seat): the
seat that fills the table (and so deals it) and a cancel or a leave are
decided one after the other, never both on a stale count."""

from __future__ import annotations

from services.app.errors import Conflict, Forbidden
from services.app.games.events import SeatHandedToBot
from services.app.games.service import GameService
from services.app.games.tables import SeatHolder, Table
from services.app.kernel import Decision
from services.app.players import Player
from services.infra import keys as K
from services.infra.fanout import Notice

LEAVING_BOT = "heuristic"
REASON = "account deleted"
LEFT = "left the game"
STALE = "no move for too long"


async def seats_in_play(pool, player_ids: list[str]) -> list[tuple[str, int]]:
    """(game id, seat) of every seat the players hold in a game not finished."""
    rows = await pool.fetch(
        "SELECT s.game_id::text AS game_id, s.seat FROM seats s JOIN games g ON g.game_id = s.game_id"
        " WHERE s.player_id = ANY($1::text[]::uuid[]) AND g.status IN ('open', 'playing')",
        player_ids,
    )
    return [(r["game_id"], r["seat"]) for r in rows]


async def hand_to_bot(games: GameService, game_id: str, seat: int, reason: str = REASON) -> None:
    table = await games.load(game_id)
    if table.state is None:
        await games.pool.execute(
            "UPDATE seats SET player_id = NULL, bot = $3 WHERE game_id = $1::text::uuid AND seat = $2",
            game_id,
            seat,
            LEAVING_BOT,
        )
        await games.refresh(table, fresh=True)
        if table.state is None:  # still not dealt: this copy learns the bot now
            table.record.seats[seat] = SeatHolder(seat, None, LEAVING_BOT, f"{LEAVING_BOT} bot", "bot")
            return
        # Dealt meanwhile by a process that had read the seat as the
        # player's: hand it over in the log.

    async def decide() -> Decision:
        await games.refresh(table)
        holder = table.seats[seat]
        if table.over or table.state is None or holder is None or holder.bot is not None:
            return Decision([])
        return games._command(table, seat, K.leave_command_id(seat), [SeatHandedToBot(seat, LEAVING_BOT, reason)])

    await games.kernel.run(
        table,
        decide,
        catch_up=lambda: games.refresh(table, fresh=True),
        moved_on=lambda: Conflict("version_conflict", "the game moved on; try again", version=table.version),
        attempts=10,
    )


async def _lock_undealt(conn, table: Table) -> tuple[str, int, int]:
    """The table's status, its log's version and its taken seats, with its
    `games` row locked until the transaction ends."""
    row = await conn.fetchrow(
        "SELECT g.status, st.version, (SELECT count(*) FROM seats s WHERE s.game_id = g.game_id) AS taken"
        " FROM games g JOIN streams st ON st.stream_id = g.game_id::text WHERE g.game_id = $1::text::uuid"
        " FOR UPDATE OF g",
        table.game_id,
    )
    return row["status"], row["version"], row["taken"]


async def cancel_table(games: GameService, player: Player, game_id: str) -> Table:
    """The creator calls off a table nobody has been dealt at. Cancelling
    it again changes nothing."""
    table = await games.load(game_id)
    if table.record.created_by != player.player_id:
        raise Forbidden("not_table_host", "only the player who created the table may cancel it")
    async with table.lock:
        async with games.pool.acquire() as conn, conn.transaction():
            status, version, taken = await _lock_undealt(conn, table)
            if status == "cancelled":
                table.record.status = status
                return table
            # A full table is being dealt by the call that filled it.
            if status != "open" or version > 0 or taken >= table.players:
                raise Conflict("already_started", "the cards are dealt: leave the game instead of cancelling it")
            await conn.execute("UPDATE games SET status = 'cancelled' WHERE game_id = $1::text::uuid", table.game_id)
        table.record.status = "cancelled"
    games.publisher.publish(Notice(table.game_id, 0, table.version))  # the seats' streams end now
    return table


async def leave_table(games: GameService, player: Player, game_id: str) -> Table:
    """Before the deal the seat opens again; once dealt (or being dealt) a
    house bot takes it to the end and the seat is ranked last. Leaving a game
    in progress again changes nothing (its seat is already the bot's)."""
    table = await games.load(game_id)
    seat = await games.seat_taken(table, player.player_id)
    if seat is None:
        raise Conflict("not_seated", "you hold no seat at this table")
    if table.state is None:
        async with table.lock:
            async with games.pool.acquire() as conn, conn.transaction():
                status, version, taken = await _lock_undealt(conn, table)
                if status == "cancelled":
                    raise Conflict("table_cancelled", "this table was cancelled: there is nothing to leave")
                freed = status == "open" and version == 0 and taken < table.players
                if freed:
                    await conn.execute(
                        "DELETE FROM seats WHERE game_id = $1::text::uuid AND seat = $2 AND player_id = $3::text::uuid",
                        table.game_id,
                        seat,
                        player.player_id,
                    )
            if freed:
                await games.refresh(table, fresh=True)
                return table
    await hand_to_bot(games, game_id, seat, LEFT)
    return await games.load(game_id)


async def hand_stale_seats(games: GameService, stale_s: float) -> int:
    """Untimed tables in play that have written nothing for `stale_s`: each
    seat they wait for that a person or agent holds goes to a house bot
    (ranked last), so the game plays on. Timed tables have deadlines instead
    (services/app/games/deadlines.py). Returns how many seats were handed."""
    rows = await games.pool.fetch(
        "SELECT g.game_id::text AS id FROM games g WHERE g.status = 'playing' AND g.time_control IS NULL"
        " AND EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.game_id AND s.player_id IS NOT NULL)"
        " AND (SELECT e.recorded_at FROM events e WHERE e.stream_id = g.game_id::text"
        "      ORDER BY e.version DESC LIMIT 1) < now() - make_interval(secs => $1)",
        stale_s,
    )
    handed = 0
    for row in rows:
        table = await games.load(row["id"])
        if table.state is None or table.over:
            continue
        for seat in table.game.waiting_for(table.state):
            holder = table.seats[seat]
            if holder is not None and holder.bot is None and holder.player_id is not None:
                await hand_to_bot(games, table.game_id, seat, STALE)
                handed += 1
    return handed
