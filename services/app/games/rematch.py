""" "Play again": a finished table played again by the same seats. The first
person of the finished game to ask opens the new table (its creator); the
house bots sit where they sat, and each person's seat is kept for that
person, who takes it by asking too (the others are asked to accept, not
seated unasked). Until they do, the creator may give a kept seat to a house
bot or cancel the table, as at any open table.

One rematch per table: the new table names the finished one (`rematch_of`,
unique), so of two people asking at once the second finds the first one's
table. A seat handed to a house bot during the game (a person left, or ran
out of strikes) goes to that bot again; a tournament's tables are not
played again (the tournament seats its rounds)."""

from __future__ import annotations

import secrets
import uuid

import msgspec

from services.app.errors import Conflict, Forbidden
from services.app.games.seating import Seating, kept_seats
from services.app.games.tables import Table
from services.app.players import Player
from services.app.ports import NewTable, SeatRow


async def play_again(seating: Seating, player: Player, game_id: str) -> Table:
    finished = await seating.tables.get(game_id)
    await seating.refresh(finished)
    if finished.tournament_id is not None:
        raise Conflict("tournament_table", "a tournament's table is not played again; its next round is seated for you")
    if not finished.over:
        raise Conflict("game_not_finished", "a game can be played again once it is over")
    kept = kept_seats(finished)
    if player.player_id not in kept:
        raise Forbidden("not_at_table", "only the people who played this game to its end can play it again")
    rematch_id = await seating.lobby.rematch_for(game_id)
    if rematch_id is None:
        rematch_id = await _open(seating, player, finished)
    table = await seating.tables.get(rematch_id)
    await seating.refresh(table, fresh=True)
    if table.seat_of(player.player_id) is not None or table.record.status == "cancelled" or table.state is not None:
        return table  # asked again, cancelled by its creator, or dealt without them (a bot took the seat)
    return await seating.take_seat(player, rematch_id, kept[player.player_id])


async def _open(seating: Seating, player: Player, finished: Table) -> str:
    """The rematch table with its house bots seated; the id of the table
    that holds the rematch (another person's, if they asked first)."""
    record = finished.record
    new = NewTable(
        str(uuid.uuid4()),
        record.game.name,
        record.players,
        msgspec.to_builtins(record.options),
        record.ranked,
        secrets.randbits(62),  # a new deal: nobody replays a deal they have seen
        created_by=player.player_id,
        time_control=record.time_control,
        bot_delay_ms=record.bot_delay_ms,
        rematch_of=finished.game_id,
        salt=secrets.token_hex(32),
    )
    bots = [SeatRow(h.seat, None, h.bot) for h in finished.seats if h is not None and h.bot is not None]
    async with seating.transactions.transaction() as tx:
        await seating.caps.check_open_table(tx, player.player_id)
        for row in bots:
            assert row.bot is not None
            await seating.caps.check_bot_seat(tx, player.player_id, row.bot)
        if not await seating.lobby.insert_table(new, tx):
            created = None
        else:
            created = new.game_id
            await seating.store.create_stream(new.game_id, "game", tx)
            if bots:
                await seating.lobby.insert_seats(new.game_id, bots, tx)
    if created is not None:
        return created
    found = await seating.lobby.rematch_for(finished.game_id)
    if found is None:  # the insert lost to nothing: cannot happen but never a 500
        raise Conflict("rematch_conflict", "the rematch could not be opened; try again")
    return found
