"""Commands and `decide(state, command, now_ms)`: the events a command causes,
or a RuleError with a stable code. Pure: the time is `now_ms`, the only chance
is `settings.seed`.

Who may register (`settings.bots`):
    fill       humans and agents; house bots fill the field at the start
    none       humans and agents; no bots, too few entrants cancel
    bots_only  agents and bots (an arena for programs); no fill

About 350 lines, kept whole: every command of the tournament's state machine
with its checks, as each game's rules.py holds its own.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import msgspec

from engines.core import OptionsError, RuleError, deal_seed, valid_client_seed

from .events import (
    Cancelled,
    Created,
    Entrant,
    Finished,
    Registered,
    RoundEnded,
    RoundPaired,
    Settings,
    Started,
    Table,
    TableFinished,
    Withdrawn,
)
from .pairing import (
    knockout_field_after,
    knockout_groups,
    knockout_rounds,
    meetings,
    round_robin,
    rounds_to_meet_all,
    seat,
    swiss_groups,
    table_sizes,
)
from .state import State, evolve, standing_order, standings

ALLOWED_KINDS = {"fill": ("human", "agent"), "none": ("human", "agent"), "bots_only": ("agent", "bot")}


# --- commands --------------------------------------------------------------------


class Command(msgspec.Struct, frozen=True, tag_field="type"):
    pass


class Create(Command, frozen=True, tag="tn.create"):
    settings: Settings


class Register(Command, frozen=True, tag="tn.register"):
    entrant: Entrant
    client_seed: str = ""


class Withdraw(Command, frozen=True, tag="tn.withdraw"):
    entrant: str


class Start(Command, frozen=True, tag="tn.start"):
    pass


class RecordResult(Command, frozen=True, tag="tn.record_result"):
    round: int
    table: int
    game_id: str
    places: tuple[int, ...]
    scores: tuple[float, ...]
    forfeited: tuple[int, ...] = ()  # seats handed to a house bot after their strikes: already last in `places`


class Cancel(Command, frozen=True, tag="tn.cancel"):
    reason: str = "by_organiser"
    message: str = ""


AnyCommand = Create | Register | Withdraw | Start | RecordResult | Cancel


def decode_command(raw: Any) -> Command:
    try:
        return msgspec.convert(raw, AnyCommand, strict=False)
    except msgspec.ValidationError as exc:
        raise RuleError("bad_command", f"not a tournament command: {exc}") from None


def make_settings(raw: Any, game: Any = None) -> Settings:
    """Decode and validate settings (an OptionsError on bad input). With the
    game (an engines.core.Game) also check the table sizes and the options."""
    try:
        settings = msgspec.convert(raw, Settings, strict=False)
    except msgspec.ValidationError as exc:
        raise OptionsError("bad_tournament", f"tournament settings: {exc}") from None
    settings.validate()
    if game is not None:
        if not game.min_players <= settings.smallest_table <= settings.table_size <= game.max_players:
            raise OptionsError(
                "bad_tournament",
                f"{game.title} seats {game.min_players} to {game.max_players} players; "
                f"tables of {settings.smallest_table} to {settings.table_size} do not fit",
            )
        game.make_options(settings.options)
        if settings.fill_bot not in game.bots:
            raise OptionsError("bad_tournament", f"fill_bot must be one of {', '.join(game.bots)} for {game.title}")
    return settings


def next_settings(settings: Settings, seed: int) -> Settings | None:
    """A recurring tournament's next instance: every time shifted by
    `every_minutes`, a fresh seed (passed in). None when it does not recur."""
    if settings.every_minutes is None:
        return None
    shift = settings.every_minutes * 60_000

    def move(ms: int | None) -> int | None:
        return None if ms is None else ms + shift

    return msgspec.structs.replace(
        settings,
        start_ms=settings.start_ms + shift,
        opens_ms=move(settings.opens_ms),
        closes_ms=move(settings.closes_ms),
        seed=seed,
    )


# --- decide ------------------------------------------------------------------------


def decide(state: State | None, command: Command, now_ms: int) -> list:
    if isinstance(command, Create):
        if state is not None:
            raise RuleError("already_created", "this tournament exists already")
        command.settings.validate()
        return [Created(settings=command.settings, at_ms=now_ms)]
    if state is None:
        raise RuleError("no_tournament", "create the tournament first")
    handler = _DECIDERS.get(type(command))
    if handler is None:
        raise RuleError("bad_command", f"not a tournament command: {command!r}")
    return handler(state, command, now_ms)


def _not_over(state: State) -> None:
    if state.status == "cancelled":
        raise RuleError("tournament_cancelled", "the tournament was cancelled")
    if state.status == "finished":
        raise RuleError("tournament_over", "the tournament is over")


def _before_start(state: State) -> None:
    _not_over(state)
    if state.status != "registering":
        raise RuleError("already_started", "the tournament has started")


def _register(state: State, c: Register, now_ms: int) -> list:
    _before_start(state)
    s = state.settings
    if (s.opens_ms is not None and now_ms < s.opens_ms) or now_ms >= s.registration_closes_ms:
        raise RuleError("registration_closed", "registration is not open")
    if state.is_registered(c.entrant.id):
        raise RuleError("already_registered", "this entrant is registered already")
    if c.entrant.kind not in ALLOWED_KINDS[s.bots]:
        allowed = " and ".join(ALLOWED_KINDS[s.bots])
        raise RuleError("kind_not_allowed", f"this tournament takes {allowed} entrants, not {c.entrant.kind}")
    if len(state.registered) >= s.max_entrants:
        raise RuleError("tournament_full", f"the tournament is full ({s.max_entrants} entrants)")
    if not valid_client_seed(c.client_seed):
        raise RuleError("bad_client_seed", "a client seed is at most 64 characters of printable ASCII")
    return [Registered(entrant=c.entrant, at_ms=now_ms, client_seed=c.client_seed)]


def _withdraw(state: State, c: Withdraw, now_ms: int) -> list:
    _before_start(state)
    if not state.is_registered(c.entrant):
        raise RuleError("not_registered", "this entrant is not registered")
    return [Withdrawn(entrant=c.entrant, at_ms=now_ms)]


def fill_target(settings: Settings, registered: int) -> int:
    """With bots="fill": `fill_to` when set (and not below the field), else the
    smallest multiple of table_size >= max(registered, entrants_needed); never
    above max_entrants."""
    base = max(registered, settings.entrants_needed)
    if settings.fill_to is not None:
        target = max(settings.fill_to, registered)
    else:
        target = math.ceil(base / settings.table_size) * settings.table_size
    return max(registered, min(target, settings.max_entrants))


def bot_entrants(taken: set[str], count: int) -> list[Entrant]:
    out: list[Entrant] = []
    i = 0
    while len(out) < count:
        i += 1
        if f"bot-{i}" not in taken:
            out.append(Entrant(id=f"bot-{i}", name=f"House bot {i}", kind="bot"))
    return out


def planned_rounds(settings: Settings, n: int) -> int:
    if settings.format == "knockout":
        return knockout_rounds(n, settings.table_size, settings.smallest_table, settings.advancing)
    if settings.format == "round-robin" and settings.rounds == 0:
        return rounds_to_meet_all(n, settings.table_size)
    return settings.rounds


def _start(state: State, c: Start, now_ms: int) -> list:
    _before_start(state)
    s = state.settings
    if now_ms < s.start_ms:
        raise RuleError("too_early", f"the tournament starts at {s.start_ms}")
    field = list(state.registered)
    if not field:
        return [Cancelled(reason="no_entrants", message="nobody registered", at_ms=now_ms)]
    if s.bots == "fill":
        field += bot_entrants({e.id for e in field}, fill_target(s, len(field)) - len(field))
    if len(field) < s.entrants_needed:
        return [
            Cancelled(
                reason="too_few_entrants",
                message=f"{len(field)} registered, {s.entrants_needed} needed",
                at_ms=now_ms,
            )
        ]
    started = Started(entrants=tuple(field), rounds=planned_rounds(s, len(field)), at_ms=now_ms)
    return [started, pair_round(evolve(state, started), 1)]


def pair_round(state: State, round_no: int) -> RoundPaired:
    """The pairing of `round_no` for a running state (the previous round ended)."""
    s = state.settings
    k, low = s.table_size, s.smallest_table
    if s.format == "swiss":
        met = meetings([t.seats for r in state.history for t in r.tables])
        byes_had = {e: t.byes for e, t in state.tallies.items()}
        groups, byes = swiss_groups(standing_order(state), met, k, low, byes_had)
        tables = seat(groups, round_no, s.seed, s.duplicate)
    elif s.format == "round-robin":
        ids = [e.id for e in state.entrants]
        groups, byes = round_robin(ids, k, low, state.rounds, s.seed)[round_no - 1]
        tables = seat(groups, round_no, s.seed)
    else:
        alive = knockout_alive(state) if round_no > 1 else [e.id for e in state.entrants]
        groups, byes = knockout_groups(standing_order(state, alive), k, low)
        tables = seat(groups, round_no, s.seed)
    if s.salt:
        tables = mixed_deal_seeds(tables, state.client_seeds)
    return RoundPaired(round=round_no, tables=tables, byes=tuple(byes))


def mixed_deal_seeds(tables: tuple[Table, ...], client_seeds: dict[str, str]) -> tuple[Table, ...]:
    """Each table's deal seed with its seats' client seeds mixed in
    (`engines.core.deal_seed`, seats in seat order, "" for one that sent
    none, a house bot's included). A duplicate group mixes the client seeds
    of every table of the group, in table order, so its tables still share
    one deal."""
    members: dict[int | None, list[str]] = {}
    for t in tables:
        if t.group is not None:
            members.setdefault(t.group, []).extend(t.seats)

    def mixed(t: Table) -> int:
        seats = members[t.group] if t.group is not None else list(t.seats)
        return deal_seed(t.deal_seed, [client_seeds.get(entrant, "") for entrant in seats])

    return tuple(msgspec.structs.replace(t, deal_seed=mixed(t)) for t in tables)


def knockout_alive(state: State) -> list[str]:
    """Who goes through the last ended round: its byes, and per table the best
    `advance` places (at most size - 1; ties at the cut go to the better
    standing), topped up from the best of the rest if fewer than a table's
    minimum would remain."""
    s = state.settings
    last = state.history[-1]
    position = {e: i for i, e in enumerate(standing_order(state))}
    through = list(last.byes)
    rest = []
    for table, result in zip(last.tables, last.results, strict=True):
        ranked = sorted(
            range(len(table.seats)), key=lambda seat_no: (result.places[seat_no], position[table.seats[seat_no]])
        )
        cut = min(s.advancing, len(table.seats) - 1)
        through += [table.seats[i] for i in ranked[:cut]]
        rest += [(result.places[i], position[table.seats[i]], table.seats[i]) for i in ranked[cut:]]
    sizes = [len(t.seats) for t in last.tables]
    need = knockout_field_after(sizes, len(last.byes), s.advancing, s.smallest_table)
    rest.sort()
    through += [e for _, _, e in rest[: need - len(through)]]
    return through


def _record(state: State, c: RecordResult, now_ms: int) -> list:
    if state.status == "cancelled":
        raise RuleError("tournament_cancelled", "the tournament was cancelled")
    if state.status == "registering":
        raise RuleError("not_started", "the tournament has not started")
    if state.finished_result(c.round, c.table) is not None:
        return []  # idempotent: the table's result is in already
    if c.round != state.round or state.round_over or not any(t.table == c.table for t in state.tables):
        raise RuleError("unknown_table", f"round {c.round} has no table {c.table} awaiting a result")
    table = next(t for t in state.tables if t.table == c.table)
    n = len(table.seats)
    if len(c.places) != n or len(c.scores) != n or not all(1 <= p <= n for p in c.places):
        raise RuleError("bad_result", f"table {c.table} seats {n}: give a place (1..{n}) and a score per seat")
    if not all(0 <= s < n for s in c.forfeited):
        raise RuleError("bad_result", f"forfeited seats are numbered 0..{n - 1}")
    finished = TableFinished(
        round=c.round, table=c.table, game_id=c.game_id, places=c.places, scores=c.scores, forfeited=c.forfeited
    )
    events: list = [finished]
    state = evolve(state, finished)
    if len(state.results) < len(state.tables):
        return events
    ended = RoundEnded(round=c.round)
    events.append(ended)
    state = evolve(state, ended)
    if _more_rounds(state):
        events.append(pair_round(state, c.round + 1))
    else:
        events.append(Finished(ranking=standings(state)))
    return events


def _more_rounds(state: State) -> bool:
    if state.settings.format == "knockout":
        last = state.history[-1]
        return len(last.tables) > 1 or bool(last.byes)
    return state.round < state.rounds


def _cancel(state: State, c: Cancel, now_ms: int) -> list:
    _not_over(state)
    return [Cancelled(reason=c.reason, message=c.message, at_ms=now_ms)]


# Keyed by the command's type; each handler takes its own type, which a table cannot
# tie to its key, hence `Any`.
_DECIDERS: dict[type[Command], Callable[[State, Any, int], list]] = {
    Register: _register,
    Withdraw: _withdraw,
    Start: _start,
    RecordResult: _record,
    Cancel: _cancel,
}

# Re-exported for callers that size fields without pairing.
__all__ = [
    "AnyCommand",
    "Cancel",
    "Create",
    "RecordResult",
    "Register",
    "Start",
    "Withdraw",
    "decide",
    "decode_command",
    "fill_target",
    "make_settings",
    "next_settings",
    "pair_round",
    "planned_rounds",
    "table_sizes",
]
