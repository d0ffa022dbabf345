"""Request types shared by the routes, with the bounds of every number a
client may send.

A value outside its type's bounds is refused by the decoder, before any
route runs: 400 `bad_request`, with a message naming the field and the bound.
Checks that need more than the value itself (the time, who sits) are 422s
with their own codes."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from engines.core import OptionsError
from engines.timecontrol import TimeControl
from services.app.errors import Unprocessable

# No game seats more than 6; 16 leaves room and still refuses nonsense (each
# game checks its own range after this).
MAX_SEATS = 16
# Far beyond any stream's length, and well inside PostgreSQL's integer.
MAX_VERSION = 1_000_000_000
# A field of entrants: bot seats cost the server a table each, so a client
# may not ask for a million of them.
MAX_ENTRANTS = 256
MAX_ROUNDS = 64
MAX_EVERY_MINUTES = 366 * 24 * 60
# Epoch milliseconds: 1970 .. 2100.
MAX_EPOCH_MS = 4_102_444_800_000
# A tournament starts at most this far ahead, and not in the past (a minute of
# clock skew is forgiven).
MAX_LEAD_MS = 366 * 86_400_000
PAST_SLACK_MS = 60_000
MAX_POINTS = 1_000_000.0

SeatCount = Annotated[int, msgspec.Meta(ge=1, le=MAX_SEATS, description="players at the table")]
SeatNumber = Annotated[int, msgspec.Meta(ge=0, le=MAX_SEATS - 1, description="a seat, 0 first")]
ClientSeed = Annotated[
    str,
    msgspec.Meta(
        max_length=64,
        pattern="^[ -~]*$",
        description="at most 64 characters of printable ASCII, mixed into the deal (engines.core.deal_seed)",
    ),
]
Version = Annotated[int, msgspec.Meta(ge=0, le=MAX_VERSION, description="a version of the game's log")]
TableSize = Annotated[int, msgspec.Meta(ge=2, le=MAX_SEATS)]
Entrants = Annotated[int, msgspec.Meta(ge=2, le=MAX_ENTRANTS)]
EpochMs = Annotated[int, msgspec.Meta(ge=0, le=MAX_EPOCH_MS, description="ms since the Unix epoch")]
Points = Annotated[float, msgspec.Meta(ge=-MAX_POINTS, le=MAX_POINTS)]


def for_people(time_control: TimeControl) -> None:
    """422 `time_control_too_short` where a person may take a seat."""
    try:
        time_control.check_for_people()
    except OptionsError as err:
        raise Unprocessable(err.code, err.message) from None


class NewTournament(msgspec.Struct, forbid_unknown_fields=True):
    """`POST /api/v1/tournaments`. The seed is never a request field: the
    server draws it."""

    game: str
    start_ms: EpochMs
    table_size: TableSize = 4
    min_table_size: TableSize | None = None  # smallest table allowed; default table_size
    format: Literal["swiss", "round-robin", "knockout"] = "swiss"
    rounds: Annotated[int, msgspec.Meta(ge=0, le=MAX_ROUNDS)] = 0  # swiss: 1 or more
    options: dict[str, Any] = {}  # the game's table options
    every_minutes: Annotated[int, msgspec.Meta(ge=1, le=MAX_EVERY_MINUTES)] | None = None  # recurrence
    opens_ms: EpochMs | None = None
    closes_ms: EpochMs | None = None
    min_entrants: Entrants = 2
    max_entrants: Entrants = 64
    time_control: TimeControl | None = None  # default 30 s per move and a 120 s bank
    ranked: bool = True
    bots: Literal["fill", "none", "bots_only"] = "fill"
    fill_to: Entrants | None = None
    fill_bot: Literal["random", "memory", "heuristic", "expert"] = "heuristic"  # the game's bots (memory: Kabuki masks)
    points: dict[TableSize, Annotated[list[Points], msgspec.Meta(max_length=MAX_SEATS)]] = {}
    bye_points: Points | None = None
    duplicate: bool = False
    advance: Annotated[int, msgspec.Meta(ge=1, le=MAX_SEATS - 1)] | None = None
    # People and agents register only with this share of their last ranked
    # games finished without a hand-over (services/app/fairplay.py).
    min_completion_rate: Annotated[float, msgspec.Meta(ge=0, le=1)] | None = None

    def settings(self, now_ms: int) -> dict:
        """The raw settings for the tournament engine (which checks how the
        fields fit together); the start must lie between now and a year ahead."""
        if not now_ms - PAST_SLACK_MS <= self.start_ms <= now_ms + MAX_LEAD_MS:
            raise Unprocessable("bad_start", "start_ms must lie between now and 366 days from now")
        raw = msgspec.to_builtins(self)
        return {k: v for k, v in raw.items() if v is not None}
