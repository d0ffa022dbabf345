"""The screening statistics: for every ordered pair of accounts (giver,
receiver) that shared at least `min_shared_games` tables, the feeding
chances of services/app/integrity/feeding.py, counted against what the
population did in the same kind of position.

The expected rate of one chance is the population's rate for its kind
(every seat's chances, house bots' included: they are the reference, never
suspects), scaled by how generous the giver is to everyone else and how
often everyone else feeds the receiver (each ratio shrunk towards 1 by
`PSEUDO` expected feeds). Those two factors take out what honest play
explains: a weak player who leaves tricks to whoever can take them, a
strong one who catches every mistake at a mask table. What is left is
the pair's own excess, which is what collusion is and honest play is not.

The count of feeds is then a sum of independent Bernoulli trials with the
expected rates; its upper tail (exact for small expectations, normal with
a continuity correction otherwise) is the pair's p-value. A pair is flagged
when it is below `family_alpha` divided by the number of ordered pairs
screened (Bonferroni): the chance that a report flags any honest pair is
then at most `family_alpha`, as far as the model holds; the validation
(services/tools/integrity_validation.py) measures it."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from itertools import combinations

import msgspec

from services.app.integrity.feeding import Opportunity

MIN_SHARED_GAMES = 10
FAMILY_ALPHA = 0.001
PSEUDO = 10.0  # expected feeds' worth of prior weight on each factor
EVIDENCE_LIMIT = 50  # fed moves listed per flagged pair
_EXACT_BELOW = 10.0  # variance under which the tail is summed exactly


class Account(msgspec.Struct, frozen=True):
    id: str
    kind: str  # "human" or "agent"
    name: str = ""


class ScreenedGame(msgspec.Struct, frozen=True):
    """A finished game as the screening reads it: who sat where (None: a
    house bot) and its feeding chances."""

    game_id: str
    game: str
    seats: tuple[Account | None, ...]
    chances: tuple[Opportunity, ...]


class Baseline(msgspec.Struct, frozen=True):
    kind: str  # e.g. "cahoots:play" (services/app/integrity/feeding.py)
    chances: int
    fed: int
    rate: float
    per_share: float  # the rate as a multiple of the share of choices that feed (1: as random choice)


class GameFigures(msgspec.Struct, frozen=True):
    game: str
    chances: int
    fed: int
    expected: float


class Evidence(msgspec.Struct, frozen=True):
    """A move that fed the receiver: the game and the stream version of the move."""

    game_id: str
    game: str
    version: int
    kind: str


class PairScreened(msgspec.Struct, frozen=True):
    giver: str
    receiver: str
    giver_name: str
    receiver_name: str
    shared_games: int
    chances: int
    fed: int
    expected: float  # feeds the population, the giver's and the receiver's habits predict
    rate: float
    expected_rate: float
    z: float
    p_value: float
    flagged: bool
    by_game: list[GameFigures]
    evidence: list[Evidence]  # only for a flagged pair


class IntegrityReport(msgspec.Struct, frozen=True):
    games: int
    accounts: int
    min_shared_games: int
    family_alpha: float
    p_threshold: float  # family_alpha / pairs_screened
    pairs_screened: int  # ordered (giver, receiver) pairs
    pairs_flagged: int
    baselines: list[Baseline]
    pairs: list[PairScreened]  # most suspicious first
    skipped: int = 0  # finished games the screening could not read (an unknown game, a log that does not replay)


def _tail(expected: Sequence[float], observed: int) -> float:
    """P(X >= observed) for X a sum of Bernoulli trials with these rates."""
    if observed <= 0:
        return 1.0
    mean = sum(expected)
    var = sum(q * (1 - q) for q in expected)
    if var >= _EXACT_BELOW:
        z = (observed - 0.5 - mean) / math.sqrt(var)
        return 0.5 * math.erfc(z / math.sqrt(2))
    # below[k] = P(X = k) for k < observed: P(X >= observed) = 1 - sum.
    below = [1.0] + [0.0] * (observed - 1)
    for q in expected:
        for k in range(observed - 1, 0, -1):
            below[k] = below[k] * (1 - q) + below[k - 1] * q
        below[0] *= 1 - q
    return max(0.0, 1.0 - sum(below))


def screen(
    games: Iterable[ScreenedGame],
    min_shared_games: int = MIN_SHARED_GAMES,
    family_alpha: float = FAMILY_ALPHA,
) -> IntegrityReport:
    games = list(games)
    names: dict[str, str] = {}
    shared: dict[frozenset[str], int] = defaultdict(int)
    for g in games:
        present = {a.id for a in g.seats if a is not None}
        for a in g.seats:
            if a is not None:
                names[a.id] = a.name
        for x, y in combinations(sorted(present), 2):
            shared[frozenset((x, y))] += 1

    # Population rate per kind: every chance, house bots' included, as a
    # multiple of the share of choices that feed (random choice's rate).
    counts: dict[str, list[float]] = defaultdict(lambda: [0, 0, 0.0])
    for g in games:
        for c in g.chances:
            row = counts[c.kind]
            row[0] += 1
            row[1] += c.fed
            row[2] += c.share
    scale = {kind: fed / shares if shares else 0.0 for kind, (_, fed, shares) in counts.items()}

    def base(c: Opportunity) -> float:
        return min(0.999, c.share * scale[c.kind])

    # Observed and expected feeds per (giver, receiver, game); a house bot is "".
    observed: dict[tuple[str, str, str], int] = defaultdict(int)
    expected: dict[tuple[str, str, str], float] = defaultdict(float)
    for g in games:
        for c in g.chances:
            key = (_id(g.seats[c.giver]), _id(g.seats[c.receiver]), g.game)
            observed[key] += c.fed
            expected[key] += base(c)

    # Totals per (giver, game) and per (receiver, game): a factor that
    # leaves one pair out is the total less that pair's own cell.
    given: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    taken: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    for (x, y, z), o in observed.items():
        for total in (given[(x, z)], taken[(y, z)]):
            total[0] += o
            total[1] += expected[(x, y, z)]

    def factor(giver: str, receiver: str, game: str, of_giver: bool) -> float:
        """How much more than the population the giver feeds everyone but
        the receiver (`of_giver`), or everyone but the giver feeds the
        receiver, shrunk towards 1."""
        o, e = given[(giver, game)] if of_giver else taken[(receiver, game)]
        cell = (giver, receiver, game)
        return (o - observed.get(cell, 0) + PSEUDO) / (e - expected.get(cell, 0.0) + PSEUDO)

    rivals: dict[tuple[str, int], list[str]] = defaultdict(list)
    for g in games:
        for c in g.chances:
            if c.exclusive:
                rivals[(g.game_id, c.version)].append(_id(g.seats[c.receiver]))

    def rate_of(g: ScreenedGame, c: Opportunity, giver: str, receiver: str) -> float:
        strength = factor(giver, receiver, g.game, False)
        if c.exclusive:
            # The receiver's strength among the rivals at that table.
            others = rivals[(g.game_id, c.version)]
            strength *= len(others) / sum(factor(giver, r, g.game, False) for r in others)
        return min(0.999, max(0.001, base(c) * factor(giver, receiver, g.game, True) * strength))

    screened = [
        (giver, receiver)
        for pair, n in shared.items()
        if n >= min_shared_games
        for giver, receiver in (sorted(pair), sorted(pair, reverse=True))
    ]
    threshold = family_alpha / len(screened) if screened else family_alpha
    trials: dict[tuple[str, str], list[tuple[ScreenedGame, Opportunity]]] = defaultdict(list)
    wanted = set(screened)
    for g in games:
        for c in g.chances:
            pair = (_id(g.seats[c.giver]), _id(g.seats[c.receiver]))
            if pair in wanted:
                trials[pair].append((g, c))

    pairs = []
    for giver, receiver in screened:
        qs: list[float] = []
        by_game: dict[str, list[float]] = defaultdict(lambda: [0, 0, 0.0])
        for g, c in trials[(giver, receiver)]:
            q = rate_of(g, c, giver, receiver)
            qs.append(q)
            row = by_game[g.game]
            row[0] += 1
            row[1] += c.fed
            row[2] += q
        fed = sum(int(c.fed) for _, c in trials[(giver, receiver)])
        mean = sum(qs)
        var = sum(q * (1 - q) for q in qs)
        p_value = _tail(qs, fed)
        flagged = p_value <= threshold
        evidence = (
            [Evidence(g.game_id, g.game, c.version, c.kind) for g, c in trials[(giver, receiver)] if c.fed][
                :EVIDENCE_LIMIT
            ]
            if flagged
            else []
        )
        pairs.append(
            PairScreened(
                giver=giver,
                receiver=receiver,
                giver_name=names.get(giver, ""),
                receiver_name=names.get(receiver, ""),
                shared_games=shared[frozenset((giver, receiver))],
                chances=len(qs),
                fed=fed,
                expected=round(mean, 3),
                rate=round(fed / len(qs), 4) if qs else 0.0,
                expected_rate=round(mean / len(qs), 4) if qs else 0.0,
                z=round((fed - mean) / math.sqrt(var), 2) if var > 0 else 0.0,
                p_value=p_value,
                flagged=flagged,
                by_game=[GameFigures(name, int(n), int(f), round(e, 3)) for name, (n, f, e) in sorted(by_game.items())],
                evidence=evidence,
            )
        )
    pairs.sort(key=lambda p: (p.p_value, -p.z, p.giver, p.receiver))
    return IntegrityReport(
        games=len(games),
        accounts=len(names),
        min_shared_games=min_shared_games,
        family_alpha=family_alpha,
        p_threshold=threshold,
        pairs_screened=len(screened),
        pairs_flagged=sum(p.flagged for p in pairs),
        baselines=[
            Baseline(k, int(n), int(f), round(f / n, 4), round(f / sh, 4)) for k, (n, f, sh) in sorted(counts.items())
        ],
        pairs=pairs,
    )


def _id(account: Account | None) -> str:
    return account.id if account is not None else ""
