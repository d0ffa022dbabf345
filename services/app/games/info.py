"""A table as one reader may see it (`GET /api/v1/games/{id}` and every
route that answers a table): seats, who acts, the reader's legal actions and
view, the result once disclosed, the time control in force. The embargo
(duplicate tournaments) and the agents' default time control apply here."""

from __future__ import annotations

import time
from typing import Any

import msgspec

from engines.core import commitment
from services.app.games import embargo
from services.app.games.clocks import SeatClock
from services.app.games.service import result_shown
from services.app.games.tables import Table, engine_events
from services.app.games.turns import legal_now
from services.app.players import Player
from services.app.seatclock import ClockDefaults, untimed_agent_time_control


class SeatInfo(msgspec.Struct):
    seat: int
    taken: bool
    name: str | None = None
    kind: str | None = None  # 'human', 'agent', 'bot'
    bot: str | None = None


class GameInfo(msgspec.Struct):
    game_id: str
    game: str
    status: str  # 'open', 'playing', 'finished', 'cancelled' (by its creator, before the deal)
    version: int
    players: int
    ranked: bool
    options: dict[str, Any]
    seats: list[SeatInfo]
    your_seat: int | None
    to_act: list[int]
    legal_actions: list[Any]
    view: Any
    result: Any = None
    time_control: dict | None = None
    bot_delay_ms: int | None = None  # None: the server's setting (tournaments, sparring: instant)
    # The server's clock when this was read, so a page counts deadlines down
    # by the server's time, not the browser's.
    server_time_ms: int = 0
    # On a timed table in play: each awaited seat's deadline (epoch ms) and
    # the time bank it has left beyond it.
    clock: list[SeatClock] | None = None
    # Streams open on this table without a seat, over every API process
    # (services/infra/watchers.py); None when it cannot be counted (Redis down).
    spectators: int | None = None
    # The viewer created this table: before the deal they may seat house
    # bots at its open seats or cancel it.
    you_created: bool = False
    # A finished table: the table that plays it again ("Play again",
    # POST /api/v1/games/{id}/rematch), once someone asked; else None.
    rematch: str | None = None
    tournament_id: str | None = None  # a tournament's table (its rounds are seated by the tournament)
    # The server's commitment to its seed, sha256("<seed>:<salt>"), public
    # from the table's creation: the seats' client seeds are mixed in at the
    # deal (POST /api/v1/games/{id}/client-seed). None: dealt from the
    # server's seed alone, committed in the first event (tournament tables).
    commitment: str | None = None


def effective_time_control(table: Table, clock: ClockDefaults) -> dict | None:
    """The table's own time control; a table without one that seats an agent
    shows the defaults the agent is actually held to."""
    if table.time_control is not None:
        return table.time_control
    if any(h is not None and h.kind == "agent" for h in table.seats):
        return untimed_agent_time_control(clock)
    return None


def game_info(table: Table, player: Player | None, clock: ClockDefaults) -> GameInfo:
    """`clock`: the clock defaults (Settings.clock); agents' are shown as
    the time control of a table without one that seats an agent."""
    game = table.game
    seat = table.seat_of(player.player_id) if player else None
    started = table.state is not None
    over = table.over
    state = table.state
    if over and not table.disclosed:
        # Embargoed (duplicate tournaments): the game as it stood before its end.
        state = game.fold(engine_events(table.events[: table.visible_version]))
    return GameInfo(
        game_id=table.game_id,
        game=game.name,
        status=_status(table),
        version=table.version,
        players=table.players,
        ranked=table.record.ranked,
        options=msgspec.to_builtins(table.record.options),
        seats=[
            SeatInfo(i, h is not None, h.name if h else None, h.kind if h else None, h.bot if h else None)
            for i, h in enumerate(table.seats)
        ],
        your_seat=seat,
        to_act=sorted(game.to_act(table.state)) if started and not over else [],
        legal_actions=(
            legal_now(table, seat)
            if started and not over and seat is not None and seat in game.to_act(table.state)
            else []
        ),
        view=game.view(state, seat) if started and not embargo.withheld(table, seat) else None,
        result=result_shown(table) if table.disclosed else None,
        time_control=effective_time_control(table, clock),
        bot_delay_ms=table.record.bot_delay_ms,
        server_time_ms=int(time.time() * 1000),
        you_created=player is not None and table.record.created_by == player.player_id,
        tournament_id=table.tournament_id,
        commitment=commitment(table.record.seed, table.record.salt) if table.record.salt is not None else None,
    )


def _status(table: Table) -> str:
    if table.over:
        return "finished"
    if table.state is not None:
        return "playing"
    return "cancelled" if table.record.status == "cancelled" else "open"
