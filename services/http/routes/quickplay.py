"""Play now (services/app/games/quickplay.py): `POST /api/v1/quick-play`
puts the caller in a game's pool and answers with a ticket; a `GET` of the
ticket says when and where they are seated; `DELETE` withdraws it."""

from __future__ import annotations

from typing import Annotated

import msgspec
from litestar import delete, get, post
from litestar.datastructures import State
from litestar.params import Parameter

from services.app import commands
from services.app.games.quickplay import QuickPlayPools, QuickPlayTicket
from services.app.players import Player
from services.http.lobby_stream import lobby_changed
from services.http.schemas import ClientSeed, SeatCount

TicketId = Annotated[str, Parameter(max_length=40)]


class QuickPlayRequest(msgspec.Struct, forbid_unknown_fields=True):
    game: Annotated[str, msgspec.Meta(max_length=40)]
    players: SeatCount
    # True: house bots take the empty seats at once, without waiting for people.
    bots_now: bool = False
    # This person's entropy for the deal of the table they are seated at.
    client_seed: ClientSeed | None = None


@post("/api/v1/quick-play", status_code=200, after_response=lobby_changed)
async def join_quick_play(state: State, data: QuickPlayRequest, caller: Player) -> QuickPlayTicket:
    """Wait for a ranked game of `game` for `players`: seated with the people
    waiting for the same (nearest in rating first), house bots at the seats
    nobody takes once the longest wait reaches its limit. A person already
    waiting for it gets the same ticket."""
    return await state.bus.handle(
        commands.JoinQuickPlay(caller, data.game, data.players, data.bots_now, data.client_seed)
    )


@get("/api/v1/quick-play/{ticket_id:str}")
async def read_quick_play(state: State, ticket_id: TicketId, caller: Player) -> QuickPlayTicket:
    """The caller's ticket: `seated` with `game_id` and `seat` once seated."""
    return await state.runtime.quick_play.read(caller, ticket_id)


@delete("/api/v1/quick-play/{ticket_id:str}", status_code=200, after_response=lobby_changed)
async def withdraw_quick_play(state: State, ticket_id: TicketId, caller: Player) -> QuickPlayTicket:
    """Stop waiting (409 `already_seated` once seated: leave the game instead)."""
    return await state.bus.handle(commands.WithdrawQuickPlay(caller, ticket_id))


@get("/api/v1/quick-play")
async def quick_play_pools(state: State) -> QuickPlayPools:
    """How many people wait, per game and player count."""
    return await state.runtime.quick_play.pools()


ROUTES = [join_quick_play, read_quick_play, withdraw_quick_play, quick_play_pools]
