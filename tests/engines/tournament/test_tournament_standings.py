"""Points per finish, shared places, duplicate matchpoints, tie-breaks and the
batch recomputation of standings against the incremental fold."""

from __future__ import annotations

import pytest

from engines.tournament import Placing, RoundPaired, Table, TableFinished, fold, standings
from engines.tournament.standings import (
    Tally,
    bye_points,
    default_points,
    points_row,
    rank,
    round_points,
    table_points,
    tallies_from,
)
from tests.engines.tournament.tournament_helpers import settings, tournament


def test_default_points_per_table_size():
    assert default_points(2) == (1, 0)
    assert default_points(3) == (3, 1, 0)
    assert default_points(4) == (4, 2, 1, 0)
    assert default_points(5) == (5, 3, 2, 1, 0)
    assert default_points(6) == (6, 4, 3, 2, 1, 0)


def test_ties_share_the_average_of_the_places_they_cover():
    row = default_points(4)
    assert table_points([1, 2, 3, 4], row) == [4, 2, 1, 0]
    assert table_points([1, 2, 2, 4], row) == [4, 1.5, 1.5, 0]
    assert table_points([1, 1, 3, 4], row) == [3, 3, 1, 0]
    assert table_points([1, 1, 1, 1], row) == [1.75] * 4
    assert table_points([2, 2, 1], default_points(3)) == [0.5, 0.5, 3]


def test_configured_points_override_one_size_only():
    s = settings(points={4: (10, 5, 2, 0)})
    assert points_row(s, 4) == (10, 5, 2, 0)
    assert points_row(s, 3) == (3, 1, 0)
    assert bye_points(s) == pytest.approx(17 / 4)
    assert bye_points(settings(bye_points=2.0)) == 2.0


def _dup_round():
    tables = (
        Table(table=1, seats=("a", "b", "c"), deal_seed=5, group=1),
        Table(table=2, seats=("d", "e", "f"), deal_seed=5, group=1),
        Table(table=3, seats=("g", "h", "i"), deal_seed=5, group=1),
    )
    results = {
        1: TableFinished(round=1, table=1, game_id="x", places=(1, 2, 3), scores=(10, 5, 0)),
        2: TableFinished(round=1, table=2, game_id="y", places=(2, 1, 3), scores=(7, 8, 0)),
        3: TableFinished(round=1, table=3, game_id="z", places=(1, 2, 3), scores=(10, 4, 1)),
    }
    return tables, results


def test_duplicate_matchpoints_compare_the_same_seat_across_the_group():
    s = settings(table_size=3, duplicate=True)
    tables, results = _dup_round()
    one = round_points(s, tables, results, 1)
    # seat 0 held the same cards: a scored 10 vs d 7 (win) and g 10 with the same place (tie)
    assert one["a"] == pytest.approx((1 + 0.5) / 2)
    # seat 1: b 5 vs e 8 (loss), vs h 4 (win)
    assert one["b"] == pytest.approx(0.5)
    # seat 2: c 0 (3rd) vs f 0 (3rd) tie, vs i 1 loss
    assert one["c"] == pytest.approx(0.25)
    two = round_points(s, tables, results, 2)
    assert two["d"] == 0.0 and two["e"] == 1.0


def test_duplicate_table_without_finished_mates_scores_normalised_place_points():
    s = settings(table_size=3, duplicate=True)
    tables, results = _dup_round()
    alone = {1: results[1]}
    assert round_points(s, tables, alone, 1) == {"a": 1.0, "b": pytest.approx(1 / 3), "c": 0.0}


def test_rank_tie_breaks_in_order_and_places_shared_only_when_all_equal():
    tallies = {
        # a and b: equal points; b has more Buchholz
        "a": Tally(round_points={1: 4.0}, opponents=("c",), score=9, firsts=1),
        "b": Tally(round_points={1: 4.0}, opponents=("d",), score=1, firsts=1),
        "c": Tally(round_points={1: 0.0}, opponents=("a",), score=3),
        "d": Tally(round_points={1: 2.0}, opponents=("b",), score=3),
        # e and f equal on everything: a shared place, coin orders the lines
        "e": Tally(round_points={1: 1.0}, opponents=("g",), score=2),
        "f": Tally(round_points={1: 1.0}, opponents=("g",), score=2),
        "g": Tally(round_points={1: 0.0}, opponents=("e", "f"), score=2),
    }
    table = rank(list(tallies), tallies, seed=3)
    by = {p.entrant: p for p in table}
    assert [p.entrant for p in table][:3] == ["b", "a", "d"]
    assert by["b"].buchholz == 2.0 and by["a"].buchholz == 0.0
    assert by["e"].place == by["f"].place == 4
    assert (by["c"].place, by["g"].place) == (6, 7)  # Buchholz 4 (met a) beats 2
    # score breaks a tie of points and Buchholz
    t2 = {"x": Tally(round_points={1: 1.0}, score=5), "y": Tally(round_points={1: 1.0}, score=6)}
    assert [p.entrant for p in rank(["x", "y"], t2, seed=0)] == ["y", "x"]
    # then firsts
    t3 = {"x": Tally(round_points={1: 1.0}, firsts=2), "y": Tally(round_points={1: 1.0}, firsts=1)}
    assert [p.place for p in rank(["y", "x"], t3, seed=0)] == [1, 2]
    assert rank(["y", "x"], t3, seed=0)[0].entrant == "x"


def test_points_with_thirds_still_tie():
    # 7/3 + 7/3 + 7/3 sums differ from 7 in the last bit; places must still tie
    a = Tally(round_points={1: 7 / 3, 2: 7 / 3, 3: 7 / 3})
    b = Tally(round_points={1: 7.0})
    table = rank(["a", "b"], {"a": a, "b": b}, seed=0)
    assert table[0].place == table[1].place == 1


@pytest.mark.parametrize("overrides", [{}, {"duplicate": True}, {"format": "knockout"}, {"format": "round-robin"}])
def test_incremental_fold_equals_batch_recomputation_at_every_step(overrides):
    run = tournament(16, seed=4, **overrides)
    s = run.events[0].settings
    rounds: list = []
    state = None
    for i, event in enumerate(run.events):
        state = fold([event], state)
        if isinstance(event, RoundPaired):
            rounds.append((event.round, event.tables, event.byes, []))
        elif isinstance(event, TableFinished):
            rounds[-1][3].append(event)
        if rounds:
            assert state.tallies == tallies_from(s, rounds), f"after event {i}: {event}"
    assert state == run.state
    assert standings(fold(run.events)) == run.state.ranking


def test_final_ranking_places_are_competition_ranks():
    run = tournament(16, seed=9)
    ranking = run.state.ranking
    assert all(isinstance(p, Placing) for p in ranking)
    assert ranking[0].place == 1
    for i, p in enumerate(ranking):
        assert p.place <= i + 1
        if i and p.place != ranking[i - 1].place:
            assert p.place == i + 1


def test_a_forfeited_seat_loses_every_duplicate_comparison_and_is_counted():
    # Failing never pays: a seat handed to a house bot after its strikes is last, also
    # in duplicate matchpoints where the game score would otherwise decide.
    s = settings(table_size=3, duplicate=True)
    tables = (Table(1, ("a", "b", "c"), 1, group=1), Table(2, ("d", "e", "f"), 1, group=1))
    results = {
        1: TableFinished(round=1, table=1, game_id="g1", places=(3, 1, 2), scores=(30.0, 5.0, 0.0), forfeited=(0,)),
        2: TableFinished(round=1, table=2, game_id="g2", places=(2, 1, 3), scores=(7.0, 8.0, 0.0)),
    }
    assert round_points(s, tables, results, 1)["a"] == 0.0
    assert round_points(s, tables, results, 2)["d"] == 1.0
    tallies = tallies_from(s, [(1, tables, (), tuple(results.values()))])
    assert tallies["a"].forfeits == 1 and tallies["d"].forfeits == 0
    line = next(p for p in rank(list(tallies), tallies, 7) if p.entrant == "a")
    assert line.forfeits == 1


def test_forfeited_seats_earn_no_points_and_no_score_even_two_at_one_table():
    # Two seats handed to house bots at one table: they do not share the last
    # places' points, and the house bots' game points are not added to their
    # score tie-break (a forfeiter's 58 must not beat a working bot's 38).
    s = settings(table_size=4)
    tables = (Table(1, ("a", "b", "c", "d"), 1),)
    result = TableFinished(
        round=1, table=1, game_id="g1", places=(2, 1, 3, 3), scores=(20.0, 38.0, 29.0, 29.0), forfeited=(2, 3)
    )
    points = round_points(s, tables, {1: result}, 1)
    assert points["c"] == 0.0 and points["d"] == 0.0
    assert points["b"] > points["a"] > 0.0
    tallies = tallies_from(s, [(1, tables, (), (result,))])
    assert tallies["c"].score == 0.0 and tallies["d"].score == 0.0 and tallies["b"].score == 38.0
    ranking = rank(list(tallies), tallies, 7)
    assert [p.entrant for p in ranking][:2] == ["b", "a"]
    assert {p.entrant for p in ranking if p.place == 3} == {"c", "d"}


def test_two_forfeits_compared_in_duplicate_earn_nothing_either_way():
    s = settings(table_size=3, duplicate=True)
    tables = (Table(1, ("a", "b", "c"), 1, group=1), Table(2, ("d", "e", "f"), 1, group=1))
    results = {
        1: TableFinished(round=1, table=1, game_id="g1", places=(3, 1, 2), scores=(30.0, 5.0, 0.0), forfeited=(0,)),
        2: TableFinished(round=1, table=2, game_id="g2", places=(3, 1, 2), scores=(9.0, 8.0, 0.0), forfeited=(0,)),
    }
    assert round_points(s, tables, results, 1)["a"] == 0.0
    assert round_points(s, tables, results, 2)["d"] == 0.0
