"""The travellers' comparison (services/app/tournaments/travellers.py) over
hand-made logs: two tables of one deal played move by move here, the same
choices at both except where the test makes one table choose otherwise.
What the comparison reads back from the stored logs (which seat did what,
at which version) is held to what was played, recorded as it was played."""

from __future__ import annotations

import msgspec

import engines.tournament as tn
from engines.core import Chance, Ctx
from engines.registry import get_game
from engines.tournament.state import RoundRecord
from services.app.ports.integrity import LogEvent
from services.app.tournaments.travellers import compare, played

GAME = get_game("kabuki-tricks")
SEATS = 4


def _play(seed: int, deviate: tuple[int, int] | None) -> tuple[list[LogEvent], dict[int, list[tuple[int, bytes]]]]:
    """A whole game of the deal `seed`: every seat takes its first legal
    action, except at `deviate` = (seat, n): that seat's n-th move with a
    choice takes its last one. Returns the log and, per seat, (version,
    action) of each of its moves as played."""
    events = GAME.start(SEATS, GAME.options_type(), Chance(seed, salt="00"))
    state = GAME.fold(events)
    log = list(events)
    played: dict[int, list[tuple[int, bytes]]] = {s: [] for s in range(SEATS)}
    counts = dict.fromkeys(range(SEATS), 0)
    deviated = False
    while not GAME.is_over(state):
        seat = min(GAME.to_act(state))
        legal = GAME.legal_actions(state, seat)
        counts[seat] += 1
        action = legal[0]
        if deviate and not deviated and seat == deviate[0] and counts[seat] >= deviate[1] and len(legal) > 1:
            action, deviated = legal[-1], True
        decided = GAME.decide(state, seat, action, Ctx(0))
        played[seat].append((len(log) + 1, msgspec.json.encode(action)))
        log.extend(decided)
        state = GAME.fold(decided, state)
    assert deviate is None or deviated
    stored = [LogEvent(v, type(e).__struct_config__.tag, msgspec.json.encode(e)) for v, e in enumerate(log, start=1)]
    # A service event of the stream, as the store keeps it after the last move: not a move.
    stored.append(LogEvent(len(stored) + 1, "hm.game_finished", b"{}"))
    return stored, played


def _expected(mine: list[tuple[int, bytes]], theirs: list[tuple[int, bytes]], ends: tuple[int, int]):
    for n in range(max(len(mine), len(theirs))):
        a = mine[n] if n < len(mine) else None
        b = theirs[n] if n < len(theirs) else None
        if a is None or b is None or a[1] != b[1]:
            return n + 1, a[0] if a else ends[0], b[0] if b else ends[1]
    return None


def _state(results: list[tn.TableFinished]) -> tn.State:
    settings = tn.make_settings(
        {
            "game": GAME.name,
            "start_ms": 0,
            "table_size": SEATS,
            "format": "swiss",
            "rounds": 2,
            "duplicate": True,
            "seed": 1,
            "salt": "00",
        },
        GAME,
    )
    tables = (
        tn.Table(table=1, seats=("a", "b", "c", "d"), deal_seed=7, group=1),
        tn.Table(table=2, seats=("d", "a", "b", "c"), deal_seed=7, group=1),
    )
    entrants = tuple(tn.Entrant(id=x, name=f"bot {x}", kind="bot") for x in "abcd")
    record = RoundRecord(round=1, tables=tables, byes=(), results=tuple(results))
    return tn.State(settings=settings, status="running", entrants=entrants, round=2, history=(record,))


def _result(table: int, game_id: str, log: list[LogEvent]) -> tn.TableFinished:
    state = GAME.fold(msgspec.json.decode(e.data, type=GAME.event_type) for e in log if e.type.startswith("kt."))
    result = GAME.result(state)
    return tn.TableFinished(
        round=1,
        table=table,
        game_id=game_id,
        places=tuple(result.places),
        scores=tuple(float(s) for s in result.scores),
        forfeited=(2,) if table == 2 else (),
    )


def test_the_first_difference_is_the_first_move_where_the_tables_chose_otherwise():
    same, same_played = _play(11, None)
    other, other_played = _play(11, (1, 3))  # seat 1's third move with a choice goes the other way
    logs = {"game-1": played(GAME, same), "game-2": played(GAME, other)}
    results = [_result(1, "game-1", same), _result(2, "game-2", other)]
    [group] = compare(_state(results), logs, {"a": "Ana"}, [1])
    assert (group.round, group.group, group.tables) == (1, 1, [1, 2])
    assert [s.seat for s in group.seats] == [0, 1, 2, 3]
    ends = (len(same), len(other))
    differed = 0
    for seat in group.seats:
        one, two = seat.lines
        assert (one.table, one.game_id, two.table, two.game_id) == (1, "game-1", 2, "game-2")
        # Who held these cards at each table, and what the tables' records say they made of them.
        assert one.entrant == ("a", "b", "c", "d")[seat.seat] and two.entrant == ("d", "a", "b", "c")[seat.seat]
        assert one.name == ("Ana" if one.entrant == "a" else f"bot {one.entrant}")
        assert (one.score, one.place) == (results[0].scores[seat.seat], results[0].places[seat.seat])
        assert (two.score, two.place) == (results[1].scores[seat.seat], results[1].places[seat.seat])
        assert two.forfeited is (seat.seat == 2) and not one.forfeited
        assert (one.moves, two.moves) == (len(same_played[seat.seat]), len(other_played[seat.seat]))
        assert one.replay == "/games/game-1/replay?at=0"
        expected = _expected(same_played[seat.seat], other_played[seat.seat], ends)
        if expected is None:
            assert one.first_difference is None and two.first_difference is None
            continue
        differed += 1
        n, v1, v2 = expected
        d1, d2 = one.first_difference, two.first_difference
        assert d1 is not None and d2 is not None
        assert (d1.move, d1.version, d1.against_version, d1.against_table) == (n, v1, v2, 2)
        assert (d2.move, d2.version, d2.against_version, d2.against_table) == (n, v2, v1, 1)
        assert d1.replay == f"/games/game-1/replay?at={v1}" and d1.against_replay == f"/games/game-2/replay?at={v2}"
        assert d2.replay == d1.against_replay and d2.against_replay == d1.replay
    # Seat 1 chose otherwise; before that move every seat played the same at both tables.
    seat1 = group.seats[1].lines[0].first_difference
    assert seat1 is not None and seat1.version == seat1.against_version  # the same position at both tables
    assert [v for v, _ in same_played[1]][seat1.move - 1] == seat1.version
    assert differed >= 1


def test_identical_play_has_no_difference_and_only_the_rounds_asked_for_are_compared():
    log, _ = _play(5, None)
    logs = {"game-1": played(GAME, log), "game-2": played(GAME, log)}
    state = _state([_result(1, "game-1", log), _result(2, "game-2", log)])
    [group] = compare(state, logs, {}, [1])
    assert all(line.first_difference is None for seat in group.seats for line in seat.lines)
    # The round in play (2) is not in the history: nothing of it, whatever is asked.
    assert compare(state, logs, {}, [2]) == []
