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
from services.app.games.tables import Table
from services.app.kernel import Decision
from services.app.players import Player
from services.app.seats import SeatHolder
from services.infra import keys as K
from services.infra.fanout import Notice

LEAVING_BOT = "heuristic"
REASON = "account deleted"
LEFT = "left the game"
STALE = "no move for too long"


async def hand_to_bot(games: GameService, game_id: str, seat: int, reason: str = REASON) -> None:
    table = await games.load(game_id)
    if table.state is None:
        await games.lobby.give_seat_to_bot(game_id, seat, LEAVING_BOT)
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
        return games.command(table, seat, K.leave_command_id(seat), [SeatHandedToBot(seat, LEAVING_BOT, reason)])

    await games.kernel.run(
        table,
        decide,
        catch_up=lambda: games.refresh(table, fresh=True),
        moved_on=lambda: Conflict("version_conflict", "the game moved on; try again", version=table.version),
        attempts=10,
    )


async def cancel_table(games: GameService, player: Player, game_id: str) -> Table:
    """The creator calls off a table nobody has been dealt at. Cancelling
    it again changes nothing."""
    table = await games.load(game_id)
    if table.record.created_by != player.player_id:
        raise Forbidden("not_table_host", "only the player who created the table may cancel it")
    async with table.lock:
        async with games.transactions.transaction() as tx:
            undealt = await games.lobby.lock_undealt(table.game_id, tx)
            if undealt.status == "cancelled":
                table.record.status = undealt.status
                return table
            # A full table is being dealt by the call that filled it.
            if undealt.status != "open" or undealt.version > 0 or undealt.taken >= table.players:
                raise Conflict("already_started", "the cards are dealt: leave the game instead of cancelling it")
            await games.lobby.set_status(table.game_id, "cancelled", tx)
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
            async with games.transactions.transaction() as tx:
                undealt = await games.lobby.lock_undealt(table.game_id, tx)
                if undealt.status == "cancelled":
                    raise Conflict("table_cancelled", "this table was cancelled: there is nothing to leave")
                freed = undealt.status == "open" and undealt.version == 0 and undealt.taken < table.players
                if freed:
                    await games.lobby.free_seat(table.game_id, seat, player.player_id, tx)
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
    handed = 0
    for game_id in await games.lobby.stale_untimed(stale_s):
        table = await games.load(game_id)
        if table.state is None or table.over:
            continue
        for seat in table.game.waiting_for(table.state):
            holder = table.seats[seat]
            if holder is not None and holder.bot is None and holder.player_id is not None:
                await hand_to_bot(games, table.game_id, seat, STALE)
                handed += 1
    return handed
