"""The folded tournament state and `evolve`, a dispatch table keyed by event
type. Standings are part of the fold: `tallies` is updated by every pairing
and table result, `standings(state)` ranks them."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Literal

import msgspec
from msgspec.structs import replace

from .events import (
    Cancelled,
    Created,
    Entrant,
    Event,
    Finished,
    Placing,
    Registered,
    RoundEnded,
    RoundPaired,
    Settings,
    Started,
    Table,
    TableFinished,
    Withdrawn,
)
from .standings import Tally, apply_pairing, apply_result, rank

Status = Literal["registering", "running", "finished", "cancelled"]


class RoundRecord(msgspec.Struct, frozen=True, gc=False):
    round: int
    tables: tuple[Table, ...]
    byes: tuple[str, ...]
    results: tuple[TableFinished, ...]  # in table order


class State(msgspec.Struct, frozen=True):
    settings: Settings
    status: Status = "registering"
    created_ms: int = 0
    registered: tuple[Entrant, ...] = ()  # registration order
    entrants: tuple[Entrant, ...] = ()  # the field once started (bots included)
    rounds: int = 0  # planned
    round: int = 0  # the current (or last) round, 0 before the first pairing
    tables: tuple[Table, ...] = ()  # the current round's
    byes: tuple[str, ...] = ()
    results: dict[int, TableFinished] = {}  # the current round's, by table number
    round_over: bool = False  # the current round has ended
    history: tuple[RoundRecord, ...] = ()  # ended rounds
    tallies: dict[str, Tally] = {}
    ranking: tuple[Placing, ...] = ()  # once finished
    cancelled: Cancelled | None = None
    started_ms: int | None = None
    client_seeds: dict[str, str] = {}  # entrant id -> the client seed it registered with

    def entrant(self, entrant_id: str) -> Entrant | None:
        for e in self.entrants or self.registered:
            if e.id == entrant_id:
                return e
        return None

    def is_registered(self, entrant_id: str) -> bool:
        return any(e.id == entrant_id for e in self.registered)

    def finished_result(self, round_no: int, table: int) -> TableFinished | None:
        if round_no == self.round:
            return self.results.get(table)
        for record in self.history:
            if record.round == round_no:
                return next((r for r in record.results if r.table == table), None)
        return None


def _created(_s: State | None, e: Created) -> State:
    return State(settings=e.settings, created_ms=e.at_ms)


def _registered(s: State, e: Registered) -> State:
    seeds = {**s.client_seeds, e.entrant.id: e.client_seed} if e.client_seed else s.client_seeds
    return replace(s, registered=s.registered + (e.entrant,), client_seeds=seeds)


def _withdrawn(s: State, e: Withdrawn) -> State:
    seeds = {k: v for k, v in s.client_seeds.items() if k != e.entrant}
    return replace(s, registered=tuple(x for x in s.registered if x.id != e.entrant), client_seeds=seeds)


def _started(s: State, e: Started) -> State:
    return replace(
        s,
        status="running",
        entrants=e.entrants,
        rounds=e.rounds,
        started_ms=e.at_ms,
        tallies={x.id: Tally() for x in e.entrants},
    )


def _cancelled(s: State, e: Cancelled) -> State:
    return replace(s, status="cancelled", cancelled=e)


def _round_paired(s: State, e: RoundPaired) -> State:
    return replace(
        s,
        round=e.round,
        tables=e.tables,
        byes=e.byes,
        results={},
        round_over=False,
        tallies=apply_pairing(s.tallies, s.settings, e.round, e.tables, e.byes),
    )


def _table_finished(s: State, e: TableFinished) -> State:
    results = {**s.results, e.table: e}
    return replace(s, results=results, tallies=apply_result(s.tallies, s.settings, s.tables, results, e))


def _round_ended(s: State, e: RoundEnded) -> State:
    record = RoundRecord(
        round=e.round,
        tables=s.tables,
        byes=s.byes,
        results=tuple(s.results[t.table] for t in s.tables),
    )
    return replace(s, round_over=True, history=s.history + (record,))


def _finished(s: State, e: Finished) -> State:
    return replace(s, status="finished", ranking=e.ranking)


# Keyed by the event's type; a table cannot tie each key to its handler's
# parameter type, so the handlers are called with `Any`.
_EVOLVE: dict[type[Event], Callable[[Any, Any], State]] = {
    Created: _created,
    Registered: _registered,
    Withdrawn: _withdrawn,
    Started: _started,
    Cancelled: _cancelled,
    RoundPaired: _round_paired,
    TableFinished: _table_finished,
    RoundEnded: _round_ended,
    Finished: _finished,
}


def evolve(state: State | None, event: Event) -> State:
    return _EVOLVE[type(event)](state, event)


def fold(events: Iterable, state: State | None = None) -> State:
    for event in events:
        state = evolve(state, event)
    return state  # type: ignore[return-value]


def standings(state: State) -> tuple[Placing, ...]:
    """Live standings (the final ranking once finished). Before the start:
    the registered entrants, all level."""
    if state.status == "finished":
        return state.ranking
    ids = [e.id for e in (state.entrants or state.registered)]
    return rank(ids, state.tallies, state.settings.seed, knockout=state.settings.format == "knockout")


def standing_order(state: State, among: Iterable[str] | None = None) -> list[str]:
    """Entrant ids best first (the seeded coin breaks every remaining tie)."""
    keep = None if among is None else set(among)
    return [p.entrant for p in standings(state) if keep is None or p.entrant in keep]
