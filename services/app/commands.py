"""Commands: what someone asks the service to do, as data. A route or a job
builds one and hands it to the message bus (services/app/bus.py), which
passes it to its one handler (the table of handlers is in
services/bootstrap.py). A command names who asks and what; it holds no
service and decides nothing."""

from __future__ import annotations

from typing import Any

import msgspec

from services.app.players import Player
from services.app.seats import SeatHolder


class CreateTable(msgspec.Struct, frozen=True):
    """A person opens a table in the lobby (the first seat is not taken for them)."""

    player: Player
    game: str
    players: int
    options: dict[str, Any]
    ranked: bool
    time_control: dict | None = None
    bot_delay_ms: int | None = None


class CreateSeatedTable(msgspec.Struct, frozen=True):
    """A table whose every seat is assigned (a tournament's, a sparring
    series'), dealt at once. Idempotent by `game_id`."""

    game_id: str
    game: str
    options: dict[str, Any]
    ranked: bool
    seed: int
    seats: list[SeatHolder]
    tournament_id: str | None = None
    time_control: dict | None = None
    embargoed: bool = False


class TakeSeat(msgspec.Struct, frozen=True):
    player: Player
    game_id: str
    seat: int | None = None  # None: the first open one
    client_seed: str | None = None  # the seat's entropy for the deal (engines.core.deal_seed)


class SendClientSeed(msgspec.Struct, frozen=True):
    """A seated player adds entropy to the deal, before it."""

    player: Player
    game_id: str
    client_seed: str


class SeatBot(msgspec.Struct, frozen=True):
    """The table's creator seats a house bot."""

    player: Player
    game_id: str
    seat: int | None
    bot: str


class LeaveTable(msgspec.Struct, frozen=True):
    player: Player
    game_id: str


class CancelTable(msgspec.Struct, frozen=True):
    player: Player
    game_id: str


class PlayAgain(msgspec.Struct, frozen=True):
    """A person of a finished game asks to play it again with the same seats."""

    player: Player
    game_id: str


class SubmitAction(msgspec.Struct, frozen=True):
    """A person's or agent's move over the API."""

    player: Player
    game_id: str
    action: Any  # as sent: the game decodes it
    command_id: str
    expected_version: int | None = None


class PlaySeatMove(msgspec.Struct, frozen=True):
    """A move the server makes for a seat it plays (a house bot; an agent's
    move the worker fetched): `action` is the engine's or as an agent sent it."""

    game_id: str
    seat: int
    action: Any
    command_id: str
    received_ms: int | None = None


class PlayDefaultMove(msgspec.Struct, frozen=True):
    """A seat did not move in time, or its agent failed: its default move is
    played, if the table still waits for it at `due_version`."""

    game_id: str
    seat: int
    reason: str
    due_version: int | None = None
    detail: str = ""
    strike_limit: int | None = None  # None: the seat's own (services/app/seatclock.py)


class FireTimer(msgspec.Struct, frozen=True):
    """A table's timed transition is due (KM-5); with `at_version`, only if
    the table is still there (KM-5a)."""

    game_id: str
    at_version: int | None = None


class HandSeatToBot(msgspec.Struct, frozen=True):
    """A seat whose player left (or deleted their account) goes to a house bot."""

    game_id: str
    seat: int
    reason: str


class JoinQuickPlay(msgspec.Struct, frozen=True):
    """A person asks to be seated at a game of `game` for `players`, now
    (services/app/games/quickplay.py); `bots_now`: without waiting for people."""

    player: Player
    game: str
    players: int
    bots_now: bool = False
    client_seed: str | None = None


class WithdrawQuickPlay(msgspec.Struct, frozen=True):
    player: Player
    ticket_id: str


class CreateTournament(msgspec.Struct, frozen=True):
    """A tournament announced with its settings (`player` None: the service's own)."""

    player: Player | None
    settings: dict[str, Any]


class RegisterEntrant(msgspec.Struct, frozen=True):
    """A person or an agent registers itself in a tournament."""

    player: Player
    tournament_id: str
    client_seed: str = ""  # its entropy for its tables' deals (engines.tournament.rules.mixed_deal_seeds)


class WithdrawEntrant(msgspec.Struct, frozen=True):
    player: Player
    tournament_id: str


class EnterAgent(msgspec.Struct, frozen=True):
    """An owner enters their agent in a tournament (the tournament's bot
    policy decides whether agents may play)."""

    owner: Player
    agent_id: str
    tournament_id: str


class WithdrawAgent(msgspec.Struct, frozen=True):
    """An owner withdraws their agent from a tournament."""

    owner: Player
    agent_id: str
    tournament_id: str


class StartTournament(msgspec.Struct, frozen=True):
    """The scheduled start (a worker job); idempotent."""

    tournament_id: str


class RecordTable(msgspec.Struct, frozen=True):
    """A finished tournament table's result into the tournament stream (a worker job)."""

    game_id: str


class ReadAnalysis(msgspec.Struct, frozen=True):
    """Someone reads a finished game's post-game analysis; one never asked
    for is requested for them (`requester`: `player:<id>` or `ip:<address>`,
    whose rate limit counts it), unless `request` is False (only a look)."""

    game_id: str
    requester: str
    request: bool = True


class RunAnalysis(msgspec.Struct, frozen=True):
    """The worker claims and runs the next queued post-game analysis (a job)."""


class CallAgent(msgspec.Struct, frozen=True):
    """Ask a push agent for its move at `version` (a worker job; `optional`:
    an offer of a move that is not owed, such as a Stop! in Kabuki masks)."""

    game_id: str
    version: int
    seat: int
    committed_ms: float
    optional: bool = False


class ExpireAgentTurn(msgspec.Struct, frozen=True):
    """A pull agent's move time (and bank) ran out, or a push call never
    finished: the default move is played for the seat (a worker job)."""

    game_id: str
    version: int
    seat: int
