"""A game's SSE stream (GET /api/v1/games/{id}/stream, services/http/routes/games.py):
every event the viewer may see, in order, with `turn` and `end` messages;
a spectator's stream is the shared public feed (services/http/broadcast.py)."""

from __future__ import annotations

from contextlib import aclosing

import msgspec
from litestar.datastructures import State
from litestar.response import ServerSentEventMessage

from services.app.games import embargo
from services.app.games.service import GameService
from services.app.games.tables import Table
from services.app.games.turns import TurnTeller
from services.app.players import Player
from services.http import broadcast
from services.http.sse import KEEPALIVE
from services.infra.watchers import Watching


async def game_sse(state: State, games: GameService, table: Table, player: Player | None, last: int, cycle=None):
    """Every event the viewer may see after `last`, once, in order; gaps in
    the Redis fast path are filled from PostgreSQL."""
    encode = msgspec.json.encode
    turns = TurnTeller(state.hub)  # `turn` events, again when time alone changes them
    viewer = table.seat_of(player.player_id) if player else None
    # A player who opened the stream before taking a seat gets that seat's
    # events from the moment they sit. Seats are taken
    # only before the start, so the check ends once the game has started.
    seat_pending = player is not None and viewer is None and table.state is None
    if viewer is None and not seat_pending and cycle is not None:
        # A spectator: the shared public feed. Seats stay here, never cut.
        async with aclosing(broadcast.spectator_sse(state, games, table, last, cycle)) as messages:
            async for message in messages:
                yield message
        return
    backlog = table.version  # GEN-1: what was written before the stream opened is history
    # A stream without a seat is a spectator's: counted while it is open.
    async with (
        Watching(state.runtime.watchers, table.game_id, viewer is None) as watching,
        aclosing(state.hub.watch(table.game_id, state.settings.sse_keepalive_s)) as notices,
    ):
        async for notice in notices:
            if notice is None:
                yield KEEPALIVE
                continue
            if notice.last > table.version:
                await games.refresh(table)  # written by another process, or a resync nudge
            elif table.state is None and notice.last == 0:
                await games.read_seats(table)  # before the deal: a seat changed, or the table was cancelled
            if table.record.status == "cancelled" and table.state is None:
                yield ServerSentEventMessage(
                    data=encode({"version": table.version, "status": "cancelled"}).decode(), event="end"
                )
                return
            await games.check_embargo(table)
            if seat_pending and player is not None:  # seat_pending is only ever set for a player
                viewer = await games.seat_taken(table, player.player_id)
                seat_pending = viewer is None and table.state is None
                if viewer is not None:
                    watching.seated()
            upto = embargo.visible_upto(table, viewer)  # nothing of an embargoed table without a seat at it
            for item in broadcast.catch_up(games, table, viewer, last, upto, backlog):
                yield broadcast.game_message(item)
            last = max(last, upto)
            started = table.state is not None  # a seat's stream may open before the deal
            if viewer is not None and started and last == table.version and not table.over:
                # The seat's own stream says when it may act, with its legal
                # actions: a client (or bot) needs no polling GET.
                legal = turns.turn(table, viewer, last)
                if legal is not None:
                    # `chain_head`: the log's hash at the version the turn is
                    # for, a receipt the seat may keep (docs/fairness.md).
                    told = {"version": last, "legal_actions": legal, "chain_head": table.chain_head(last)}
                    yield ServerSentEventMessage(data=encode(told).decode(), event="turn")
            if table.disclosed and last >= table.version:
                # A seat's last receipt: the head of the whole log.
                ended = {"version": last, "status": "finished", "chain_head": table.chain_head(last)}
                yield ServerSentEventMessage(data=encode(ended).decode(), event="end", id=last)
                return
