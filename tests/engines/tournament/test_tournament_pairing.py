"""Pairing as pure functions: seating, table sizes, repeat avoidance (checked
against brute force), duplicate groups, round-robin evenness, knockout."""

from __future__ import annotations

import itertools
import random

from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from engines.tournament.pairing import (
    knockout_groups,
    knockout_rounds,
    meetings,
    pair,
    repeats,
    round_robin,
    rounds_to_meet_all,
    seat,
    swiss_groups,
    table_sizes,
)
from tests.engines.tournament.tournament_helpers import tournament


def ids(n: int) -> list[str]:
    return [f"e{i:02d}" for i in range(n)]


def check_seating(field, tables, byes, table_size, min_table_size):
    seated = [e for t in tables for e in t]
    assert sorted(seated + list(byes)) == sorted(field), "everyone seated or on a bye, exactly once"
    assert all(min_table_size <= len(t) <= table_size for t in tables)


# --- table sizes --------------------------------------------------------------


def test_table_sizes_examples():
    assert table_sizes(16, 4, 4) == ([4, 4, 4, 4], 0)
    assert table_sizes(10, 4, 3) == ([4, 3, 3], 0)
    assert table_sizes(10, 4, 4) == ([4, 4], 2)
    assert table_sizes(5, 4, 3) == ([4], 1)
    assert table_sizes(7, 2, 2) == ([2, 2, 2], 1)
    assert table_sizes(6, 5, 3) == ([3, 3], 0)


@given(st.integers(2, 80), st.integers(2, 6), st.data())
def test_table_sizes_fit_and_byes_are_minimal(n, k, data):
    m = data.draw(st.integers(2, k))
    if n < m:
        return
    sizes, byes = table_sizes(n, k, m)
    assert sum(sizes) + byes == n
    assert all(m <= s <= k for s in sizes)
    assert sizes == sorted(sizes, reverse=True) and (not sizes or sizes[0] - sizes[-1] <= 1)
    # minimal byes: no partition of n - b' (b' < byes) into sizes m..k exists
    for fewer in range(byes):
        left = n - fewer
        assert not any(c * m <= left <= c * k for c in range(1, left + 1))


# --- swiss ----------------------------------------------------------------------


def random_history(field, rng, rounds, k):
    tables = []
    for _ in range(rounds):
        order = list(field)
        rng.shuffle(order)
        tables += [order[i : i + k] for i in range(0, len(order) - k + 1, k)]
    return meetings(tables)


@hsettings(max_examples=60, deadline=None)
@given(st.integers(2, 40), st.integers(2, 5), st.integers(0, 3), st.randoms(use_true_random=False), st.data())
def test_swiss_seats_everyone_once_within_table_sizes(n, k, rounds, rng, data):
    m = data.draw(st.integers(2, k))
    if n < m:
        return
    field = ids(n)
    rng.shuffle(field)
    met = random_history(field, rng, rounds, k)
    tables, byes = swiss_groups(field, met, k, m)
    check_seating(field, tables, byes, k, m)
    assert len(byes) == table_sizes(n, k, m)[1]
    # tables keep standing order: each opens with the best entrant not above it
    rank = {e: i for i, e in enumerate(field)}
    assert [min(rank[e] for e in t) for t in tables] == sorted(min(rank[e] for e in t) for t in tables)


def brute_force_min_repeats(field, sizes, met):
    """The fewest repeats over every partition of `field` into tables of `sizes`."""
    best = None

    def go(left, sizes, spent):
        nonlocal best
        if best is not None and spent >= best:
            return
        if not sizes:
            best = spent
            return
        first, rest = left[0], left[1:]
        # The first entrant may sit at a table of any of the sizes left.
        for size in sorted(set(sizes), reverse=True):
            remaining = list(sizes)
            remaining.remove(size)
            for others in itertools.combinations(rest, size - 1):
                table = (first,) + others
                cost = repeats([table], met)
                go([e for e in rest if e not in others], remaining, spent + cost)

    go(list(field), list(sizes), 0)
    return best


@hsettings(max_examples=400, deadline=None)
@given(st.integers(4, 9), st.integers(2, 4), st.integers(1, 4), st.randoms(use_true_random=False), st.data())
def test_swiss_repeats_are_the_fewest_possible_brute_force(n, k, rounds, rng, data):
    m = data.draw(st.integers(2, k))
    if n < m:
        return
    field = ids(n)
    met = random_history(field, rng, rounds, k)
    tables, byes = swiss_groups(field, met, k, m)
    seated = [e for e in field if e not in byes]
    sizes = sorted((len(t) for t in tables), reverse=True)
    assert repeats(tables, met) == brute_force_min_repeats(seated, sizes, met)


def test_swiss_16_entrants_tables_of_4_three_rounds_without_repeats():
    for seed in range(20):
        run = tournament(16, seed=seed, rounds=3)
        met = meetings([t.seats for r in run.state.history for t in r.tables])
        assert len(run.state.history) == 3
        assert max(met.values()) == 1, f"seed {seed}: a pair met twice"


def test_swiss_avoids_repeats_in_a_big_field_too():
    run = tournament(64, seed=1, rounds=5, max_entrants=64)
    met = meetings([t.seats for r in run.state.history for t in r.tables])
    assert max(met.values()) == 1


def test_swiss_pairs_by_standing():
    field = ids(8)
    tables, byes = swiss_groups(field, {}, 4, 4)
    assert tables == [field[:4], field[4:]] and byes == []


def test_swiss_bye_goes_to_the_lowest_without_a_bye():
    field = ids(5)
    assert swiss_groups(field, {}, 2, 2)[1] == ["e04"]
    assert swiss_groups(field, {}, 2, 2, byes_had={"e04": 1})[1] == ["e03"]


# --- seating and duplicate --------------------------------------------------------


def test_plain_seating_is_deterministic_and_seeds_differ_per_table():
    groups = [ids(8)[:4], ids(8)[4:]]
    a, b = seat(groups, 1, seed=5), seat(groups, 1, seed=5)
    assert a == b
    assert sorted(a[0].seats) == groups[0]
    assert a[0].deal_seed != a[1].deal_seed
    assert seat(groups, 2, seed=5)[0].deal_seed != a[0].deal_seed
    assert all(t.group is None for t in a)


@given(st.integers(1, 40), st.integers(2, 5), st.integers(1, 6))
def test_duplicate_groups_share_a_seed_and_rotate_seats(tables_count, k, round_no):
    field = ids(tables_count * k)
    groups = [field[i : i + k] for i in range(0, len(field), k)]
    tables = seat(groups, round_no, seed=11, duplicate=True)
    by_group: dict[int, list] = {}
    for t, members in zip(tables, groups, strict=False):
        assert sorted(t.seats) == sorted(members)
        by_group.setdefault(t.group, []).append((t, members))
    assert len(by_group) == -(-tables_count // k)
    seeds = set()
    for group in by_group.values():
        assert len(group) <= k
        assert len({t.deal_seed for t, _ in group}) == 1, "one deal per group"
        seeds.add(group[0][0].deal_seed)
        # the i-th strongest member of each table holds a different seat of the deal
        for i in range(k):
            positions = [t.seats.index(members[i]) for t, members in group]
            assert len(set(positions)) == len(positions)
    assert len(seeds) == len(by_group), "groups get different deals"


def test_duplicate_group_of_four_tables_of_four_is_a_latin_square():
    field = ids(16)
    groups = [field[i : i + 4] for i in range(0, 16, 4)]
    tables = seat(groups, 1, seed=0, duplicate=True)
    rank_at_seat = [[groups[j].index(t.seats[p]) for p in range(4)] for j, t in enumerate(tables)]
    for p in range(4):
        assert sorted(row[p] for row in rank_at_seat) == [0, 1, 2, 3]


def test_duplicate_deals_are_identical_within_a_group():
    """The service starts every table with Chance(deal_seed): same seed, same deal."""
    from engines.core import Chance
    from engines.kabuki_tricks import GAME

    run = tournament(16, seed=2, duplicate=True)
    for record in run.state.history:
        for group in {t.group for t in record.tables}:
            starts = [
                GAME.new_game(4, GAME.make_options({}), Chance(t.deal_seed)) for t in record.tables if t.group == group
            ]
            assert all(s == starts[0] for s in starts)
        groups = sorted({t.group for t in record.tables})
        assert len({t.deal_seed for t in record.tables}) == len(groups)


def test_duplicate_uneven_field_groups_tables_of_one_size():
    run = tournament(11, seed=3, duplicate=True, min_table_size=3, bots="none")
    for record in run.state.history:
        for group in {t.group for t in record.tables}:
            assert len({len(t.seats) for t in record.tables if t.group == group}) == 1


# --- round-robin ------------------------------------------------------------------------


def pair_counts(field, schedule):
    met = meetings([t for tables, _ in schedule for t in tables])
    return [met.get(pair(a, b), 0) for a, b in itertools.combinations(field, 2)]


@given(st.integers(2, 16))
def test_round_robin_tables_of_two_everyone_meets_everyone_once(n):
    field = ids(n)
    rounds = rounds_to_meet_all(n, 2)
    schedule = round_robin(field, 2, 2, rounds, seed=0)
    for tables, byes in schedule:
        check_seating(field, tables, byes, 2, 2)
    assert set(pair_counts(field, schedule)) == {1}
    bye_counts = [sum(e in byes for _, byes in schedule) for e in field]
    assert set(bye_counts) == ({1} if n % 2 else {0})


def test_round_robin_perfect_schedules_where_they_exist():
    # 9 at tables of 3 in 4 rounds (Kirkman) and 16 at tables of 4 in 5 rounds
    # (affine plane): every pair meets exactly once.
    for n, k in ((9, 3), (16, 4)):
        field = ids(n)
        schedule = round_robin(field, k, k, rounds_to_meet_all(n, k), seed=1)
        assert set(pair_counts(field, schedule)) == {1}


def test_round_robin_evenness_beats_random_seating():
    for n, k, m in ((12, 4, 4), (10, 4, 3), (20, 4, 4), (12, 3, 3)):
        field = ids(n)
        rounds = rounds_to_meet_all(n, k)
        schedule = round_robin(field, k, m, rounds, seed=0)
        for tables, byes in schedule:
            check_seating(field, tables, byes, k, m)
        counts = pair_counts(field, schedule)
        assert max(counts) - min(counts) <= 2 and max(counts) <= 2
        rng = random.Random(0)
        naive = []
        for _ in range(rounds):
            order = list(field)
            rng.shuffle(order)
            sizes, _ = table_sizes(n, k, m)
            cut = list(itertools.accumulate(sizes))
            naive.append(([order[a:b] for a, b in zip([0] + cut, cut, strict=False)], []))
        assert counts.count(0) < pair_counts(field, naive).count(0)


def test_round_robin_schedule_is_deterministic_per_seed():
    field = ids(12)
    assert round_robin(field, 4, 4, 4, seed=3) == round_robin(list(field), 4, 4, 4, seed=3)


# --- knockout ----------------------------------------------------------------------------


def test_knockout_serpentine_spreads_the_top_seeds():
    tables, byes = knockout_groups(ids(16), 4, 4)
    assert byes == []
    assert [t[0] for t in tables] == ["e00", "e01", "e02", "e03"]
    assert tables[0] == ["e00", "e07", "e08", "e15"]


def test_knockout_field_that_fits_is_the_final_table():
    assert knockout_groups(ids(3), 4, 3) == ([ids(3)], [])


@hsettings(max_examples=40, deadline=None)
@given(st.integers(2, 40), st.integers(2, 5), st.integers(0, 1000), st.data())
def test_knockout_reaches_one_final_table(n, k, seed, data):
    m = data.draw(st.integers(2, k))
    advance = data.draw(st.integers(1, k - 1))
    if n < m:
        return
    run = tournament(n, seed=seed, format="knockout", table_size=k, min_table_size=m, advance=advance, bots="none")
    history = run.state.history
    assert run.state.status == "finished"
    assert len(history) == run.state.rounds == knockout_rounds(n, k, m, advance)
    final = history[-1]
    assert len(final.tables) == 1 and not final.byes
    assert all(len(r.tables) > 1 or r.byes for r in history[:-1])
    alive = {e.id for e in run.state.entrants}
    for record in history:
        playing = {e for t in record.tables for e in t.seats} | set(record.byes)
        assert playing <= alive, "only survivors play on"
        check_seating(sorted(alive), [t.seats for t in record.tables], record.byes, k, m)
        # each table sends on its best `advance` (ties at the cut by standing)
        if record is not final:
            nxt = history[history.index(record) + 1]
            nxt_field = {e for t in nxt.tables for e in t.seats} | set(nxt.byes)
            assert set(record.byes) <= nxt_field
            for t, res in zip(record.tables, record.results, strict=True):
                for s_, e in enumerate(t.seats):
                    beaten_by = sum(1 for p in res.places if p < res.places[s_])
                    if beaten_by >= advance and len(nxt_field) > m:
                        assert e not in nxt_field
            alive = nxt_field
    assert run.state.ranking[0].entrant in {e for e in final.tables[0].seats}
    top = run.state.ranking[0]
    assert top.place == 1 and final.results[0].places[final.tables[0].seats.index(top.entrant)] == 1
    # the final table's entrants rank above everyone knocked out earlier
    finalists = set(final.tables[0].seats)
    assert {p.entrant for p in run.state.ranking[: len(finalists)]} == finalists
