"""Tournament logic: a pure engine over the tournament's own event stream.

    events = decide(state, command, now_ms)     # or raises RuleError
    state  = fold(events)                       # evolve() over the stream
    table  = standings(state)                   # live standings / final ranking

Formats: swiss (optionally duplicate), round-robin, knockout. Pairings are
pure functions in `pairing`; points and tie-breaks in `standings`. No IO, no
clock (`now_ms` is passed in), no randomness of its own (`Settings.seed`).
"""

from __future__ import annotations

from .events import (
    AnyEvent,
    Cancelled,
    Created,
    Entrant,
    Finished,
    Placing,
    Registered,
    RoundEnded,
    RoundPaired,
    Settings,
    Started,
    Table,
    TableFinished,
    TimeControl,
    Withdrawn,
)
from .rules import (
    AnyCommand,
    Cancel,
    Create,
    RecordResult,
    Register,
    Start,
    Withdraw,
    decide,
    decode_command,
    make_settings,
    next_settings,
)
from .standings import default_points, table_points
from .state import State, evolve, fold, standing_order, standings

__all__ = [
    "AnyCommand",
    "AnyEvent",
    "Cancel",
    "Cancelled",
    "Create",
    "Created",
    "Entrant",
    "Finished",
    "Placing",
    "RecordResult",
    "Register",
    "Registered",
    "RoundEnded",
    "RoundPaired",
    "Settings",
    "Start",
    "Started",
    "State",
    "Table",
    "TableFinished",
    "TimeControl",
    "Withdraw",
    "Withdrawn",
    "decide",
    "decode_command",
    "default_points",
    "evolve",
    "fold",
    "make_settings",
    "next_settings",
    "standing_order",
    "standings",
    "table_points",
]
