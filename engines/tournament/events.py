"""The tournament stream: settings, entrants and events. Tags are stable; never
rename one (stored streams and clients switch on them)."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from engines.core import OptionsError
from engines.timecontrol import UNSTATED_TIME_CONTROL, RecordedTimeControl, TimeControl  # noqa: F401 (re-exported)

Kind = Literal["human", "agent", "bot"]
Format = Literal["swiss", "round-robin", "knockout"]
BotPolicy = Literal["fill", "none", "bots_only"]

KINDS = ("human", "agent", "bot")
FORMATS = ("swiss", "round-robin", "knockout")
BOT_POLICIES = ("fill", "none", "bots_only")


class Entrant(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: str
    name: str
    kind: Kind = "human"


class Settings(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Everything fixed when a tournament is created (the `tn.created` event).

    Times are integers (ms since the epoch) handed in by the service; `seed`
    is the tournament's only source of chance (seating coins, deal seeds,
    round-robin search)."""

    game: str
    start_ms: int
    table_size: int = 4
    min_table_size: int | None = None  # smallest table the game allows; None = table_size
    format: Format = "swiss"
    rounds: int = 0  # swiss: required; round-robin: 0 = enough to meet everyone; knockout: ignored
    options: dict[str, Any] = {}  # the game's table options, raw
    every_minutes: int | None = None  # recurrence: the next instance starts this much later
    opens_ms: int | None = None  # registration window; None = open from creation
    closes_ms: int | None = None  # None = closes at start_ms
    min_entrants: int = 2
    max_entrants: int = 64
    # A tournament without one: 30 s per move and a 2-minute bank per seat.
    time_control: RecordedTimeControl = UNSTATED_TIME_CONTROL
    ranked: bool = True
    bots: BotPolicy = "fill"
    fill_to: int | None = None  # with bots="fill": fill up to this many entrants
    # The house bot that fills seats (bots "fill" or "bots_only"): one of the
    # game's bots (make_settings checks it); a default, so that tournaments
    # created before the field existed still decode.
    fill_bot: str = "heuristic"
    points: dict[int, tuple[float, ...]] = {}  # points per finish place, by table size
    bye_points: float | None = None  # None = the average of a full table's points
    duplicate: bool = False  # swiss only: groups of tables replay one deal
    advance: int | None = None  # knockout: how many per table go through
    seed: int = 0
    # The salt of the public commitment to `seed` (sha256("<seed>:<salt>"),
    # shown from creation): with one, every table's deal seed mixes in its
    # seats' client seeds (`mixed_deal_seeds`). "" for tournaments created
    # before client seeds: their deal seeds come from `seed` alone.
    salt: str = ""
    # Registration asks for this share of ranked games finished without a
    # hand-over (the service checks it; None: no minimum).
    min_completion_rate: float | None = None

    def validate(self) -> None:
        def bad(message: str) -> None:
            raise OptionsError("bad_tournament", message)

        if self.format not in FORMATS:
            bad(f"format must be one of {', '.join(FORMATS)}")
        if self.bots not in BOT_POLICIES:
            bad(f"bots must be one of {', '.join(BOT_POLICIES)}")
        if self.table_size < 2:
            bad("table_size must be at least 2")
        low = self.smallest_table
        if not 2 <= low <= self.table_size:
            bad("min_table_size must be between 2 and table_size")
        if self.format == "swiss" and self.rounds < 1:
            bad("a swiss tournament needs rounds >= 1")
        if self.rounds < 0:
            bad("rounds cannot be negative")
        if self.duplicate and self.format != "swiss":
            bad("duplicate is an option of the swiss format")
        if self.format == "knockout" and not 1 <= self.advancing < self.table_size:
            bad("advance must be at least 1 and below table_size")
        if self.min_entrants < 2:
            bad("min_entrants must be at least 2")
        if self.max_entrants < self.entrants_needed:
            bad("max_entrants must be >= min_entrants and min_table_size")
        if self.fill_to is not None and not self.entrants_needed <= self.fill_to <= self.max_entrants:
            bad("fill_to must lie between the entrants needed and max_entrants")
        if self.every_minutes is not None and self.every_minutes < 1:
            bad("every_minutes must be a positive number of minutes")
        if self.opens_ms is not None and self.opens_ms > self.registration_closes_ms:
            bad("registration opens after it closes")
        if self.registration_closes_ms > self.start_ms:
            bad("registration must close at or before the start")
        if self.bots != "bots_only":
            # People may register under every other policy (TimeControl's own
            # bounds are checked when the request is decoded).
            self.time_control.check_for_people()
        for size, row in self.points.items():
            if len(row) != size:
                bad(f"points for tables of {size} must list {size} values")
        if self.min_completion_rate is not None and not 0 <= self.min_completion_rate <= 1:
            bad("min_completion_rate is a share between 0 and 1")

    @property
    def smallest_table(self) -> int:
        return self.table_size if self.min_table_size is None else self.min_table_size

    @property
    def entrants_needed(self) -> int:
        """min_entrants, but never fewer than one table's minimum."""
        return max(self.min_entrants, self.smallest_table)

    @property
    def registration_closes_ms(self) -> int:
        return self.start_ms if self.closes_ms is None else self.closes_ms

    @property
    def advancing(self) -> int:
        """Knockout: per table, default 1 for tables of 2 or 3, else half the table."""
        if self.advance is not None:
            return self.advance
        return 1 if self.table_size <= 3 else self.table_size // 2


class Table(msgspec.Struct, frozen=True, gc=False):
    """One table of a round: entrant ids per seat (seat 0 first). Start its game
    with `Chance(deal_seed)`; in duplicate every table of a `group` shares the
    seed, so they get identical deals."""

    table: int  # 1-based within the round
    seats: tuple[str, ...]
    deal_seed: int
    group: int | None = None  # duplicate: the deal group (1-based within the round)


class Placing(msgspec.Struct, frozen=True, gc=False):
    """A line of the final ranking (or of the live standings)."""

    place: int  # shared only when every tie-break is equal
    entrant: str
    points: float
    buchholz: float
    score: float
    firsts: int
    games: int
    byes: int = 0
    reached: int = 0  # knockout: the last round played (eliminated after it)
    forfeits: int = 0  # games a house bot finished for the entrant after its strikes (ranked last there)


# --- events -----------------------------------------------------------------------


class Event(msgspec.Struct, frozen=True, tag_field="type", gc=False):
    pass


class Created(Event, frozen=True, tag="tn.created"):
    settings: Settings
    at_ms: int = 0


class Registered(Event, frozen=True, tag="tn.registered"):
    entrant: Entrant
    at_ms: int = 0
    client_seed: str = ""  # the entrant's entropy for its tables' deals (engines.core.deal_seed)


class Withdrawn(Event, frozen=True, tag="tn.withdrawn"):
    entrant: str
    at_ms: int = 0


class Started(Event, frozen=True, tag="tn.started"):
    """The field, seeding order first (house bots added by fill flagged kind="bot")."""

    entrants: tuple[Entrant, ...]
    rounds: int  # planned rounds (knockout: for this field size)
    at_ms: int = 0


class Cancelled(Event, frozen=True, tag="tn.cancelled"):
    reason: str  # a stable code: "too_few_entrants", "no_entrants", "by_organiser"
    message: str = ""
    at_ms: int = 0


class RoundPaired(Event, frozen=True, tag="tn.round_paired"):
    round: int
    tables: tuple[Table, ...]
    byes: tuple[str, ...] = ()  # sit this round out (swiss/round-robin: bye points; knockout: advance)


class TableFinished(Event, frozen=True, tag="tn.table_finished"):
    round: int
    table: int
    game_id: str
    places: tuple[int, ...]  # per seat, 1 = first, ties share (forfeited seats last)
    scores: tuple[float, ...]  # per seat, the game's own score
    forfeited: tuple[int, ...] = ()  # seats a house bot took over after their strikes


class RoundEnded(Event, frozen=True, tag="tn.round_ended"):
    round: int


class Finished(Event, frozen=True, tag="tn.finished"):
    ranking: tuple[Placing, ...]


AnyEvent = Created | Registered | Withdrawn | Started | Cancelled | RoundPaired | TableFinished | RoundEnded | Finished
