"""The ports the use cases depend on, one module per concern.

The application layer reaches PostgreSQL, Redis and the clock of the
scheduler only through these Protocols; their adapters live in
services/infra (a PostgreSQL one for production, a memory one where no
database is wanted), and tests/contract holds both to one suite.

A use case that must make several writes as one decision opens a
transaction through `Transactions` and hands the opaque handle it yields to
each port method's `tx` argument; an adapter that can joins it (PostgreSQL:
the same connection inside one transaction), a memory adapter ignores it."""

from __future__ import annotations

from services.app.ports.accounts import (
    AccountStore,
    AccountSummary,
    Credentials,
    NameColumns,
    NameHolder,
    NameTaken,
    NewPlayer,
    PlayerRecord,
    ScrubbedPlayer,
    SessionRecord,
)
from services.app.ports.agents import AgentStore
from services.app.ports.caps import CapCounts
from services.app.ports.events import Commands, EventLog, StoredEvent, VersionConflict
from services.app.ports.lobby import (
    Lobby,
    NewTable,
    PlayerGameRow,
    PlayerTournamentRow,
    SeatRow,
    SeatTaken,
    TableRow,
    Undealt,
)
from services.app.ports.names import PlayerNames
from services.app.ports.ratings import FinishedRow, RatingChange, RatingRow, RatingStore
from services.app.ports.signin import AttemptCounts, SignInCounters
from services.app.ports.tournaments import TournamentStore
from services.app.ports.transactions import Transactions

__all__ = [
    "AccountStore",
    "AccountSummary",
    "Credentials",
    "NameColumns",
    "NameHolder",
    "NameTaken",
    "NewPlayer",
    "PlayerRecord",
    "ScrubbedPlayer",
    "SessionRecord",
    "AgentStore",
    "Lobby",
    "NewTable",
    "PlayerGameRow",
    "PlayerTournamentRow",
    "SeatRow",
    "SeatTaken",
    "TableRow",
    "Undealt",
    "FinishedRow",
    "PlayerNames",
    "RatingChange",
    "RatingRow",
    "RatingStore",
    "AttemptCounts",
    "CapCounts",
    "Commands",
    "EventLog",
    "SignInCounters",
    "StoredEvent",
    "TournamentStore",
    "Transactions",
    "VersionConflict",
]
