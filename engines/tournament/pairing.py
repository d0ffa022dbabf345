"""Pairing: pure functions from (entrants in standing order, history, seed) to
tables. Nothing here reads a clock or owns a generator: every random-looking
choice is `derive(seed, ...)` or a `random.Random` seeded from the arguments.

Table sizes (every format): a field of n is split into ceil(n / table_size)
tables as equal as possible, so tables hold table_size or fewer seats, the
bigger ones at the top (e.g. 10 at tables of 4: 4 + 3 + 3). Only when that
would make a table smaller than `min_table_size` (the game's minimum) do the
lowest-standing entrants sit out with a bye, as few as possible (5 at tables
of 4 with minimum 3: one table of 4 and one bye).

About 400 lines, kept whole: the three formats' pairings share the table
sizing, byes and the repeat-avoiding search, which make sense read together.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from functools import lru_cache

from .events import Table
from .standings import derive

Pair = tuple[str, str]


def pair(a: str, b: str) -> Pair:
    return (a, b) if a < b else (b, a)


def table_sizes(n: int, table_size: int, min_table_size: int) -> tuple[list[int], int]:
    """(table sizes, biggest first; number of byes) for a field of n."""
    for byes in range(n + 1):
        left = n - byes
        if left < min_table_size:
            continue
        count = math.ceil(left / table_size)
        base, extra = divmod(left, count)
        if base >= min_table_size:
            return [base + 1] * extra + [base] * (count - extra), byes
    return [], n


def meetings(tables_history: Sequence[Sequence[str]]) -> dict[Pair, int]:
    """How often each pair of entrants sat at one table."""
    met: dict[Pair, int] = {}
    for members in tables_history:
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                key = pair(a, b)
                met[key] = met.get(key, 0) + 1
    return met


def repeats(tables: Sequence[Sequence[str]], met: Mapping[Pair, int]) -> int:
    """Prior meetings repeated by these tables (a pair that met twice counts 2)."""
    return sum(met.get(pair(a, b), 0) for members in tables for i, a in enumerate(members) for b in members[i + 1 :])


# --- swiss ---------------------------------------------------------------------------


def _search(order: Sequence[str], sizes: Sequence[int], cost: list[list[int]], bound: int, limit: int):
    """Branch and bound, depth-first in standing order: each table opens with
    the best unseated entrant, at any of the table sizes still to fill, and
    takes the next ones in order. Returns (repeats, tables) of the first
    partition in that order with the fewest repeats below `bound` (None if
    there is none), and whether the search finished within `limit` steps (if
    not, the best found so far)."""
    n = len(order)
    seated = [False] * n
    left = {size: sizes.count(size) for size in sizes}  # tables still to fill, by size
    tables: list[list[int]] = []
    best: list = [bound, None]
    nodes = 0

    class Out(Exception):
        pass

    def fill(size: int, members: list[int], start: int, spent: int) -> None:
        nonlocal nodes
        if len(members) == size:
            tables.append(list(members))
            place(spent)
            tables.pop()
            return
        need = size - len(members)
        for j in range(start, n):
            if n - j < need:  # not enough entrants left after j
                break
            if seated[j]:
                continue
            spent_j = spent + sum(cost[j][m] for m in members)
            if spent_j >= best[0]:
                continue
            nodes += 1
            if nodes > limit:
                raise Out
            seated[j] = True
            members.append(j)
            fill(size, members, j + 1, spent_j)
            members.pop()
            seated[j] = False
            if best[0] == 0:
                return

    def place(spent: int) -> None:
        if len(tables) == len(sizes):
            best[0], best[1] = spent, [list(x) for x in tables]
            return
        first = seated.index(False)
        seated[first] = True
        for size in sorted((s for s, count in left.items() if count), reverse=True):
            left[size] -= 1
            fill(size, [first], first + 1, spent)
            left[size] += 1
            if best[0] == 0:
                break
        seated[first] = False

    complete = True
    try:
        place(0)
    except Out:
        complete = False
    found = None if best[1] is None else [[order[i] for i in table] for table in best[1]]
    return (best[0], found), complete


def _greedy(order: Sequence[str], sizes: Sequence[int], cost: list[list[int]]) -> list[list[str]]:
    """Fallback for big fields: fill tables in standing order, each seat with the
    unseated entrant adding fewest repeats, then swap across tables while that
    lowers the repeats."""
    left = list(range(len(order)))
    tables: list[list[int]] = []
    for size in sizes:
        members = [left.pop(0)]
        while len(members) < size:
            best = min(left, key=lambda j: (sum(cost[j][m] for m in members), j))
            left.remove(best)
            members.append(best)
        tables.append(members)

    def table_cost(members: list[int]) -> int:
        return sum(cost[a][b] for i, a in enumerate(members) for b in members[i + 1 :])

    improved = True
    while improved:
        improved = False
        for x in range(len(tables)):
            for y in range(x + 1, len(tables)):
                for i in range(len(tables[x])):
                    for j in range(len(tables[y])):
                        before = table_cost(tables[x]) + table_cost(tables[y])
                        tables[x][i], tables[y][j] = tables[y][j], tables[x][i]
                        if table_cost(tables[x]) + table_cost(tables[y]) < before:
                            improved = True
                        else:
                            tables[x][i], tables[y][j] = tables[y][j], tables[x][i]
    rank = {e: i for i, e in enumerate(order)}
    out = [sorted((order[i] for i in t), key=rank.__getitem__) for t in tables]
    return sorted(out, key=lambda t: rank[t[0]])


def swiss_groups(
    order: Sequence[str],
    met: Mapping[Pair, int],
    table_size: int,
    min_table_size: int,
    byes_had: Mapping[str, int] | None = None,
    node_limit: int = 20_000,
) -> tuple[list[list[str]], list[str]]:
    """Swiss: (tables as entrant lists in standing order, byes).

    `order` is the field in standing order. Byes (only when the field cannot be
    seated, see the module doc) go to the lowest-standing entrants with the
    fewest byes so far. The tables are the partition with the fewest repeated
    meetings: a depth-first search in standing order, first for no repeats at
    all (the first such partition in standing order), then branch and bound
    under a greedy fill's count. Past `node_limit` search steps (big fields,
    late rounds) the best partition found so far is taken."""
    sizes, bye_count = table_sizes(len(order), table_size, min_table_size)
    byes_had = byes_had or {}
    rank = {e: i for i, e in enumerate(order)}
    byes = sorted(order, key=lambda e: (byes_had.get(e, 0), -rank[e]))[:bye_count]
    field = [e for e in order if e not in set(byes)]
    byes.sort(key=rank.__getitem__)
    # The search recurses once per seat, so big fields are split into blocks
    # of consecutive standing (about BLOCK entrants, whole tables), each
    # paired on its own: swiss pairs near equals anyway, and Python's stack
    # stays bounded whatever the field size.
    tables: list[list[str]] = []
    start = 0
    for block in _blocks(sizes, BLOCK):
        count = sum(block)
        tables += _partition(field[start : start + count], block, met, node_limit)
        start += count
    return tables, byes


BLOCK = 64


def _blocks(sizes: Sequence[int], block: int) -> list[list[int]]:
    """Table sizes cut into runs of about `block` seats; a short tail joins the last run."""
    runs: list[list[int]] = [[]]
    for size in sizes:
        if sum(runs[-1]) >= block:
            runs.append([])
        runs[-1].append(size)
    if len(runs) > 1 and sum(runs[-1]) < block // 2:
        runs[-2] += runs.pop()
    return runs


def _partition(field: Sequence[str], sizes: Sequence[int], met: Mapping[Pair, int], node_limit: int) -> list[list[str]]:
    cost = [[met.get(pair(a, b), 0) if a != b else 0 for b in field] for a in field]
    # Nobody meets an earlier opponent, if that can be had (the usual case).
    (spent, found), complete = _search(field, sizes, cost, 1, node_limit)
    if found is not None:
        return found
    # Else the fewest repeats: bounded by a greedy fill, which also stands in
    # when the search runs out of steps (late rounds).
    greedy = _greedy(field, sizes, cost)
    (spent, found), _ = _search(field, sizes, cost, repeats(greedy, met), node_limit)
    return found if found is not None else greedy


def seat(groups: Sequence[Sequence[str]], round_no: int, seed: int, duplicate: bool = False) -> tuple[Table, ...]:
    """Tables with seat orders and deal seeds.

    Plain: each table's seat order is a seeded shuffle and each table gets a
    deal seed of its own. Duplicate: consecutive tables of one size form groups
    of (at most) that many tables; a group shares one deal seed, and table j of
    the group seats its members (standing order m0, m1, ...) rotated by
    (j + round - 1): member i holds seat (i + j + round - 1) mod size, so the
    i-th members of the group's tables each hold a different seat of the deal."""
    tables = []
    group = 0
    in_group = 0
    previous_size = None
    for number, members in enumerate(groups, start=1):
        size = len(members)
        if not duplicate:
            rng = random.Random(derive(seed, "seats", round_no, number))
            seats = list(members)
            rng.shuffle(seats)
            tables.append(Table(table=number, seats=tuple(seats), deal_seed=derive(seed, "deal", round_no, number)))
            continue
        if size != previous_size or in_group == size:
            group, in_group, previous_size = group + 1, 0, size
        offset = (in_group + round_no - 1) % size
        seats = [members[(p - offset) % size] for p in range(size)]
        tables.append(
            Table(
                table=number,
                seats=tuple(seats),
                deal_seed=derive(seed, "deal", round_no, "group", group),
                group=group,
            )
        )
        in_group += 1
    return tuple(tables)


# --- round-robin ------------------------------------------------------------------------


def rounds_to_meet_all(n: int, table_size: int) -> int:
    """The fewest rounds in which everyone could meet everyone (round-robin's default)."""
    if table_size == 2:
        return n - 1 if n % 2 == 0 else n
    return max(1, math.ceil((n - 1) / (table_size - 1)))


def _circle(ids: Sequence[str], rounds: int) -> list[tuple[list[list[str]], list[str]]]:
    """The circle method: with 2 seats everyone meets everyone exactly once
    in n-1 rounds (n even; odd n adds a bye), repeating after that."""
    players: list[str | None] = list(ids) + ([None] if len(ids) % 2 else [])
    m = len(players)
    out = []
    for r in range(rounds):
        k = r % (m - 1)
        rot = [players[0]] + [players[1 + (i - k) % (m - 1)] for i in range(m - 1)]
        tables: list[list[str]] = []
        byes: list[str] = []
        for i in range(m // 2):
            a, b = rot[i], rot[m - 1 - i]
            if a is not None and b is not None:
                tables.append([a, b])
            elif a is not None:  # b is the bye's None (there is one None at most)
                byes.append(a)
            elif b is not None:
                byes.append(b)
        out.append((tables, byes))
    return out


@lru_cache(maxsize=64)
def _round_robin(
    ids: tuple[str, ...], table_size: int, min_table_size: int, rounds: int, seed: int, steps: int
) -> tuple[tuple[tuple[tuple[str, ...], ...], tuple[str, ...]], ...]:
    n = len(ids)
    if table_size == 2:
        schedule = _circle(ids, rounds)
        return tuple((tuple(tuple(t) for t in tables), tuple(byes)) for tables, byes in schedule)
    sizes, bye_count = table_sizes(n, table_size, min_table_size)
    rng = random.Random(derive(seed, "round-robin"))
    # Byes rotate through the field so they spread evenly.
    count = [[0] * n for _ in range(n)]
    plan: list[tuple[list[list[int]], list[int]]] = []
    for r in range(rounds):
        byes = sorted({(r * bye_count + i) % n for i in range(bye_count)})
        left = [i for i in range(n) if i not in byes]
        rng.shuffle(left)
        tables = []
        for size in sizes:  # greedy: each seat the entrant meeting the table least
            members = [left.pop(0)]
            while len(members) < size:
                best = min(left, key=lambda j: sum(count[j][m] for m in members))
                left.remove(best)
                members.append(best)
            tables.append(members)
        for members in tables:
            for a in members:
                for b in members:
                    if a != b:
                        count[a][b] += 1
        plan.append((tables, byes))

    # Annealing over the whole schedule: swap two entrants of one round's
    # tables; the cost is the sum over pairs of meetings cubed, lowest when
    # meetings are spread evenly (cubes, not squares, so that one pair
    # meeting 3 times costs more than one more pair never meeting).
    up = [(c + 1) ** 3 - c**3 for c in range(rounds + 2)]  # cost of one more meeting
    multi = [r for r, (tables, _) in enumerate(plan) if len(tables) > 1]
    if multi:
        temperature = 1.0
        cool = (0.01 / temperature) ** (1 / steps)
        for _ in range(steps):
            r = multi[rng.randrange(len(multi))]
            tables = plan[r][0]
            x, y = rng.sample(range(len(tables)), 2)
            i, j = rng.randrange(len(tables[x])), rng.randrange(len(tables[y]))
            a, b = tables[x][i], tables[y][j]
            delta = 0
            for m in tables[x]:
                if m != a:
                    delta += up[count[b][m]] - up[count[a][m] - 1]  # b joins m, a leaves
            for m in tables[y]:
                if m != b:
                    delta += up[count[a][m]] - up[count[b][m] - 1]
            if delta <= 0 or rng.random() < math.exp(-delta / temperature):
                for m in tables[x]:
                    if m != a:
                        count[a][m] -= 1
                        count[m][a] -= 1
                        count[b][m] += 1
                        count[m][b] += 1
                for m in tables[y]:
                    if m != b:
                        count[b][m] -= 1
                        count[m][b] -= 1
                        count[a][m] += 1
                        count[m][a] += 1
                tables[x][i], tables[y][j] = b, a
            temperature *= cool
    return tuple(
        (tuple(tuple(ids[i] for i in t) for t in tables), tuple(ids[i] for i in byes)) for tables, byes in plan
    )


def round_robin(
    ids: Sequence[str], table_size: int, min_table_size: int, rounds: int, seed: int, steps: int = 60_000
) -> list[tuple[list[list[str]], list[str]]]:
    """A whole round-robin schedule: per round (tables, byes). Tables of 2: the
    circle method (everyone meets everyone once). Bigger tables: a greedy
    schedule improved by seeded annealing towards even pair meetings."""
    plan = _round_robin(tuple(ids), table_size, min_table_size, rounds, seed, steps)
    return [([list(t) for t in tables], list(byes)) for tables, byes in plan]


# --- knockout ---------------------------------------------------------------------------


def knockout_groups(order: Sequence[str], table_size: int, min_table_size: int) -> tuple[list[list[str]], list[str]]:
    """Knockout: the whole remaining field at one final table when it fits;
    else tables dealt out serpentine by standing (1st, 2nd, ... then back), so
    the strongest meet late. Byes (when the field cannot be seated) go to the
    best-standing entrants and advance."""
    if len(order) <= table_size:
        return [list(order)], []
    sizes, bye_count = table_sizes(len(order), table_size, min_table_size)
    byes = list(order[:bye_count])
    field = list(order[bye_count:])
    tables: list[list[str]] = [[] for _ in sizes]
    snake = list(range(len(sizes))) + list(reversed(range(len(sizes))))
    entrants = iter(field)
    while sum(map(len, tables)) < len(field):
        for t in snake:
            if len(tables[t]) < sizes[t] and sum(map(len, tables)) < len(field):
                tables[t].append(next(entrants))
    return tables, byes


def knockout_field_after(sizes: Sequence[int], byes: int, advance: int, min_table_size: int) -> int:
    """How many go through a round (never fewer than a table's minimum)."""
    return max(min_table_size, sum(min(advance, size - 1) for size in sizes) + byes)


def knockout_rounds(n: int, table_size: int, min_table_size: int, advance: int) -> int:
    rounds = 1
    while n > table_size:
        sizes, byes = table_sizes(n, table_size, min_table_size)
        n = knockout_field_after(sizes, byes, advance, min_table_size)
        rounds += 1
    return rounds
