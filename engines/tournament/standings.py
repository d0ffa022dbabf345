"""Points per table finish, duplicate matchpoints, tie-breaks and rankings.

Standing order (best first), each key only breaking ties of the ones before:

1. points (table-finish points, or duplicate matchpoints, plus bye points);
2. Buchholz: the sum of every opponent's points (one term per meeting);
3. total game score (the games' own scores, summed);
4. number of first places;
5. a seeded coin per entrant (`coin(seed, id)`): it orders the list and
   seats pairings, but never splits a place: entrants equal on 1-4 share it.

Knockout ranks first by how far an entrant got (the last round played),
then by its place at that round's table, then by 1-5 above.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence

import msgspec
from msgspec.structs import replace

from .events import Placing, Settings, Table, TableFinished

EPS_DIGITS = 9  # points compare after rounding (shared places give thirds)


def derive(seed: int, *parts: object) -> int:
    """A stable 53-bit number from the seed and a key (JSON-safe everywhere)."""
    text = ":".join(str(p) for p in (seed, *parts)).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 11


def coin(seed: int, entrant: str) -> int:
    return derive(seed, "coin", entrant)


# --- points per table ----------------------------------------------------------------


def default_points(size: int) -> tuple[float, ...]:
    """2: 1/0; 3: 3/1/0; 4: 4/2/1/0; 5: 5/3/2/1/0; n: n, n-2, n-3, ..., 0."""
    if size <= 1:
        return (0.0,) * size
    if size == 2:
        return (1.0, 0.0)
    return (float(size),) + tuple(float(size - p) for p in range(2, size + 1))


def points_row(settings: Settings, size: int) -> tuple[float, ...]:
    row = settings.points.get(size)
    return tuple(float(x) for x in row) if row is not None else default_points(size)


def table_points(places: Sequence[int], row: Sequence[float]) -> list[float]:
    """Points per seat; seats tied on a place share the average of the points
    of the places they cover (two tied seconds at 4/2/1/0 get 1.5 each)."""
    out = []
    for place in places:
        tied = sum(1 for p in places if p == place)
        covered = row[place - 1 : place - 1 + tied]
        out.append(sum(covered) / tied)
    return out


def bye_points(settings: Settings) -> float:
    if settings.bye_points is not None:
        return settings.bye_points
    row = points_row(settings, settings.table_size)
    return sum(row) / len(row)


def _better(a: TableFinished, seat_a: int, b: TableFinished, seat_b: int) -> float:
    """Matchpoints of one comparison: a forfeited seat (handed to a house bot
    after its strikes) earns nothing, whatever the house bot then scored,
    and a seat that played to the end beats one that forfeited; else the
    higher game score wins, then the better place; equal on all is half."""
    if seat_a in a.forfeited:
        return 0.0
    if seat_b in b.forfeited:
        return 1.0
    ka = (a.scores[seat_a], -a.places[seat_a])
    kb = (b.scores[seat_b], -b.places[seat_b])
    return 1.0 if ka > kb else 0.5 if ka == kb else 0.0


def _earned(result: TableFinished, points: Sequence[float]) -> list[float]:
    """Place points with a forfeited seat's set to nothing: two forfeits at
    one table share no last places' points between them."""
    return [0.0 if seat in result.forfeited else p for seat, p in enumerate(points)]


def round_points(
    settings: Settings, tables: Sequence[Table], results: Mapping[int, TableFinished], table_no: int
) -> dict[str, float]:
    """The round's points of every entrant at table `table_no` (finished).

    Duplicate: each seat is compared with the same seat (the same cards) at
    every other finished table of the group; the matchpoints are normalised
    to 0..1. A table with no finished group-mate scores its place points
    divided by the top place's points (also 0..1)."""
    table = next(t for t in tables if t.table == table_no)
    result = results[table_no]
    size = len(table.seats)
    row = points_row(settings, size)
    if settings.duplicate and table.group is not None:
        mates = [
            results[t.table]
            for t in tables
            if t.group == table.group and t.table != table_no and t.table in results and len(t.seats) == size
        ]
        if mates:
            return {
                entrant: sum(_better(result, seat, other, seat) for other in mates) / len(mates)
                for seat, entrant in enumerate(table.seats)
            }
        top = row[0] or 1.0
        earned = _earned(result, table_points(result.places, row))
        return {e: p / top for e, p in zip(table.seats, earned, strict=True)}
    return dict(zip(table.seats, _earned(result, table_points(result.places, row)), strict=True))


# --- tallies ----------------------------------------------------------------------


class Tally(msgspec.Struct, frozen=True, gc=False):
    """One entrant's running record, folded from the stream."""

    round_points: dict[int, float] = {}  # by round (a bye's points included)
    opponents: tuple[str, ...] = ()  # one entry per meeting
    score: float = 0.0
    firsts: int = 0
    games: int = 0
    byes: int = 0
    reached: int = 0  # the last round the entrant was paired in (seated or bye)
    last_place: int = 0  # place at the last table played
    forfeits: int = 0  # games a house bot finished for it after its strikes

    @property
    def points(self) -> float:
        return sum(self.round_points[r] for r in sorted(self.round_points))


def apply_pairing(
    tallies: Mapping[str, Tally], settings: Settings, round_no: int, tables: Sequence[Table], byes: Sequence[str]
) -> dict[str, Tally]:
    out = dict(tallies)
    for table in tables:
        for entrant in table.seats:
            out[entrant] = replace(out.get(entrant, Tally()), reached=round_no)
    for entrant in byes:
        t = out.get(entrant, Tally())
        extra = {} if settings.format == "knockout" else {round_no: bye_points(settings)}
        out[entrant] = replace(t, reached=round_no, byes=t.byes + 1, round_points={**t.round_points, **extra})
    return out


def apply_result(
    tallies: Mapping[str, Tally],
    settings: Settings,
    tables: Sequence[Table],
    results: Mapping[int, TableFinished],
    result: TableFinished,
) -> dict[str, Tally]:
    """`results` already holds `result`. Duplicate: the whole group is re-scored,
    since every finished group-mate changes the others' matchpoints."""
    out = dict(tallies)
    table = next(t for t in tables if t.table == result.table)
    _add_games(out, table, result)
    rescore = [table.table]
    if settings.duplicate and table.group is not None:
        rescore = [t.table for t in tables if t.group == table.group and t.table in results]
    for number in rescore:
        for entrant, pts in round_points(settings, tables, results, number).items():
            t = out[entrant]
            out[entrant] = replace(t, round_points={**t.round_points, result.round: pts})
    return out


def _add_games(out: dict[str, Tally], table: Table, result: TableFinished) -> None:
    """Each seat's game at `table` into its tally (in place). A forfeited
    seat adds no score (the points are the house bot's) and no first."""
    for seat, entrant in enumerate(table.seats):
        t = out.get(entrant, Tally())
        own = seat not in result.forfeited
        out[entrant] = replace(
            t,
            opponents=t.opponents + tuple(e for e in table.seats if e != entrant),
            score=t.score + (result.scores[seat] if own else 0.0),
            firsts=t.firsts + (own and result.places[seat] == 1),
            games=t.games + 1,
            last_place=result.places[seat],
            forfeits=t.forfeits + (seat in result.forfeited),
        )


def tallies_from(
    settings: Settings, rounds: Iterable[tuple[int, Sequence[Table], Sequence[str], Sequence[TableFinished]]]
) -> dict[str, Tally]:
    """Batch recomputation from whole rounds (round, tables, byes, results):
    the reference the incremental fold is tested against."""
    out: dict[str, Tally] = {}
    for round_no, tables, byes, results in rounds:
        out = apply_pairing(out, settings, round_no, tables, byes)
        by_table = {r.table: r for r in results}
        for table in tables:
            if table.table not in by_table:
                continue
            _add_games(out, table, by_table[table.table])
        for table in tables:
            if table.table in by_table:
                for entrant, pts in round_points(settings, tables, by_table, table.table).items():
                    t = out[entrant]
                    out[entrant] = replace(t, round_points={**t.round_points, round_no: pts})
    return out


# --- ranking -------------------------------------------------------------------------


def _r(x: float) -> float:
    return round(x, EPS_DIGITS)


def rank(
    entrants: Sequence[str], tallies: Mapping[str, Tally], seed: int, knockout: bool = False
) -> tuple[Placing, ...]:
    """Every entrant in standing order with shared places (see the module doc)."""
    empty = Tally()
    points = {e: tallies.get(e, empty).points for e in entrants}

    def line(e: str) -> tuple:
        t = tallies.get(e, empty)
        buchholz = sum(points.get(o, 0.0) for o in t.opponents)
        head = (-t.reached, t.last_place) if knockout else ()
        return head + (-_r(points[e]), -_r(buchholz), -_r(t.score), -t.firsts), buchholz

    lines = {e: line(e) for e in entrants}
    ordered = sorted(entrants, key=lambda e: (lines[e][0], coin(seed, e), e))
    out = []
    place = 0
    previous = None
    for i, e in enumerate(ordered):
        key = lines[e][0]
        if key != previous:
            place, previous = i + 1, key
        t = tallies.get(e, empty)
        out.append(
            Placing(
                place=place,
                entrant=e,
                points=points[e],
                buchholz=lines[e][1],
                score=t.score,
                firsts=t.firsts,
                games=t.games,
                byes=t.byes,
                reached=t.reached,
                forfeits=t.forfeits,
            )
        )
    return tuple(out)
