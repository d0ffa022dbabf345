"""Travellers: the field comparison of a duplicate deal, as bridge shows it.

At a duplicate round every table of a deal group is dealt the same cards
(engines/tournament/pairing.py: one deal seed per group, the members rotated
through the seats), so a seat of the deal is a hand, held at each table by
someone else. A traveller lists, for every seat of the deal, what each table
that held those cards scored with them and its place, and where the tables'
play of that seat first differed: the first of the seat's own decisions (its
n-th move, in the order it made them) where one table chose otherwise than
the other, with the stream version of that move at both tables, so both
replays can be opened on it (`/games/{id}/replay?at=N` shows the position
just after version N, the move list marking it).

Each table is compared with the group's first table, and the first table
with the second: in a group of two, both lines name the same pair.

Nothing here is shown of a round that has not ended: the caller
(`TournamentService.travellers`) hands in only the rounds in the
tournament's history, and answers 409 `results_embargoed` for the round in
play (services/app/games/embargo.py). `compare` is a pure function of the
tournament's state and the games' logs (`played` reads each log once)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

import engines.tournament as tn
from engines.core import Game
from services.app.integrity.feeding import Move
from services.app.integrity.replay import moves_from_log
from services.app.ports.integrity import LogEvent


class Difference(msgspec.Struct, frozen=True):
    """Where this table's play of the seat first differed from `against_table`'s."""

    against_table: int
    against_game_id: str
    move: int  # the seat's n-th decision (1-based) where the two tables chose differently
    version: int  # that move's version here (the game's last version if the seat made no n-th move here)
    against_version: int  # the same at the other table
    replay: str  # /games/{game_id}/replay?at={version}
    against_replay: str


class TravellerLine(msgspec.Struct, frozen=True):
    """One table's result with one seat's cards."""

    table: int
    game_id: str
    entrant: str  # who held the seat at this table (an entrant id)
    name: str  # their name now (a house bot's: its bot name)
    kind: str  # human | agent | bot
    score: float  # the game's own score for the seat
    place: int  # 1 = first; ties share
    forfeited: bool  # a house bot finished the seat after its strikes
    moves: int  # the seat's decisions at this table
    replay: str  # /games/{game_id}/replay?at=0
    first_difference: Difference | None  # None: the same play as the other table (or no other table)


class SeatTraveller(msgspec.Struct, frozen=True):
    seat: int  # the seat of the deal (0-based): the same cards at every table of the group
    lines: list[TravellerLine]


class DealGroup(msgspec.Struct, frozen=True):
    round: int
    group: int  # 1-based within the round
    tables: list[int]
    seats: list[SeatTraveller]


class Travellers(msgspec.Struct, frozen=True):
    tournament_id: str
    duplicate: bool
    groups: list[DealGroup]  # every deal group of the ended rounds asked for, by round then group
    withheld_round: int | None  # a duplicate round in play: compared once it ends


class Played(msgspec.Struct, frozen=True):
    """What the comparison reads of one finished game's log: every seat's
    moves (which seat did what, at which version) and the log's last version."""

    moves: list[Move]
    last_version: int


def played(game: Game, log: Sequence[LogEvent]) -> Played:
    """A finished table's log read back into moves (the engine's legal
    actions say which seat made each: services/app/integrity/replay.py)."""
    return Played(moves=moves_from_log(game, log), last_version=max((e.version for e in log), default=0))


def replay_url(game_id: str, version: int) -> str:
    return f"/games/{game_id}/replay?at={version}"


def _seat_moves(moves: Sequence[Move], seat: int) -> list[Move]:
    return [m for m in moves if m.seat == seat]


def first_difference(
    mine: Sequence[Move], theirs: Sequence[Move], my_end: int, their_end: int
) -> tuple[int, int, int] | None:
    """(n, my version, their version) of the first of one seat's moves where
    two tables chose differently; a table where the seat made fewer moves
    differs at the first one it did not make (its version: the game's end).
    None: the same choices throughout."""
    for n in range(max(len(mine), len(theirs))):
        a = mine[n] if n < len(mine) else None
        b = theirs[n] if n < len(theirs) else None
        if a is None or b is None or a.action != b.action:
            return n + 1, a.version if a else my_end, b.version if b else their_end
    return None


def compare(
    state: tn.State,
    games: Mapping[str, Played],
    names: Mapping[str, str],
    rounds: Sequence[int],
) -> list[DealGroup]:
    """The travellers of every deal group of `rounds` (ended rounds of the
    tournament's history; any other is skipped). `games`: each table's log
    read back (`played`) by game id; `names`: entrant id -> name now."""
    by_id = {e.id: e for e in state.entrants}
    out: list[DealGroup] = []
    for record in state.history:
        if record.round not in rounds:
            continue
        results = {r.table: r for r in record.results}
        groups: dict[int, list[tn.Table]] = {}
        for table in record.tables:
            if table.group is not None and table.table in results:
                groups.setdefault(table.group, []).append(table)
        for group, tables in sorted(groups.items()):
            tables.sort(key=lambda t: t.table)
            moves = {t.table: games[results[t.table].game_id].moves for t in tables}
            ends = {t.table: games[results[t.table].game_id].last_version for t in tables}
            seats = []
            for seat in range(len(tables[0].seats)):
                lines = []
                for i, table in enumerate(tables):
                    result = results[table.table]
                    entrant = table.seats[seat]
                    own = _seat_moves(moves[table.table], seat)
                    difference = None
                    if len(tables) > 1:
                        other = tables[1] if i == 0 else tables[0]
                        other_result = results[other.table]
                        found = first_difference(
                            own, _seat_moves(moves[other.table], seat), ends[table.table], ends[other.table]
                        )
                        if found is not None:
                            n, here, there = found
                            difference = Difference(
                                against_table=other.table,
                                against_game_id=other_result.game_id,
                                move=n,
                                version=here,
                                against_version=there,
                                replay=replay_url(result.game_id, here),
                                against_replay=replay_url(other_result.game_id, there),
                            )
                    who = by_id.get(entrant)
                    lines.append(
                        TravellerLine(
                            table=table.table,
                            game_id=result.game_id,
                            entrant=entrant,
                            name=names.get(entrant) or (who.name if who else entrant),
                            kind=who.kind if who else "bot",
                            score=result.scores[seat],
                            place=result.places[seat],
                            forfeited=seat in result.forfeited,
                            moves=len(own),
                            replay=replay_url(result.game_id, 0),
                            first_difference=difference,
                        )
                    )
                seats.append(SeatTraveller(seat=seat, lines=lines))
            out.append(DealGroup(round=record.round, group=group, tables=[t.table for t in tables], seats=seats))
    return out
