"""A player who leaves for good (the account is deleted): each of their seats
goes to a house bot, the same way a seat goes after its strikes
(hm.seat_handed_to_bot, services/app/games/commands.py), so that no table
waits for someone who will never come back. A seat of a table not dealt yet
is given to the bot in its `seats` row (the log has no seats before the deal)."""

from __future__ import annotations

from services.app.errors import Conflict
from services.app.games.events import SeatHandedToBot
from services.app.games.service import GameService
from services.app.games.tables import SeatHolder
from services.app.kernel import Decision
from services.infra import keys as K

LEAVING_BOT = "heuristic"
REASON = "account deleted"


async def seats_in_play(pool, player_ids: list[str]) -> list[tuple[str, int]]:
    """(game id, seat) of every seat the players hold in a game not finished."""
    rows = await pool.fetch(
        "SELECT s.game_id::text AS game_id, s.seat FROM seats s JOIN games g ON g.game_id = s.game_id"
        " WHERE s.player_id = ANY($1::text[]::uuid[]) AND g.status <> 'finished'",
        player_ids,
    )
    return [(r["game_id"], r["seat"]) for r in rows]


async def hand_to_bot(games: GameService, game_id: str, seat: int) -> None:
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
        return games._command(table, seat, K.leave_command_id(seat), [SeatHandedToBot(seat, LEAVING_BOT, REASON)])

    await games.kernel.run(
        table,
        decide,
        catch_up=lambda: games.refresh(table, fresh=True),
        moved_on=lambda: Conflict("version_conflict", "the game moved on; try again", version=table.version),
        attempts=10,
    )
