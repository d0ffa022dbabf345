"""`hanamichi integrity --validate`: does the collusion screening catch a
planted colluding pair, and how often does it flag honest players?

All in one process, engines only (no server, no database): whole games
among house bots of several strengths seated as distinct accounts, fed to
the same pure analysis the report runs on the log
(services/app/integrity).

- Planted run, per game: `games` tables with a colluding pair at each,
  the other seats drawn from honest accounts and a house bot. The feeder
  plays, whenever it can (and with probability `feed_rate`), the move that
  feeds its partner by the screening's own measure; otherwise it plays as
  the heuristic bot. In Kabuki masks the partner calls Stop on the
  feeder's dumped masks. The report must flag feeder -> partner, and no
  other pair.
- Honest runs: `honest_runs` leagues of `games` tables of honest accounts
  only (random, heuristic, and memory at the mask table); every pair the
  report flags there is a false positive."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from engines.core import Bot, Game
from engines.expert import make_bot
from engines.kabuki_masks.actions import Stop
from engines.kabuki_masks.cards import COPIES
from engines.playout import Playout
from engines.registry import get_game
from services.app.integrity.feeding import SCREENED_GAMES, Move, feeding_actions, opportunities
from services.app.integrity.screening import FAMILY_ALPHA, MIN_SHARED_GAMES, Account, ScreenedGame, screen

PLAYERS = 4
FEEDER, PARTNER = "planted-feeder", "planted-partner"
HOUSE = "house"  # a house bot's seat: no account
HONEST_STRENGTHS = {"kabuki-masks": ("random", "memory", "heuristic")}
DEFAULT_STRENGTHS = ("random", "heuristic")


class Feeder:
    """A colluder: when one of its legal moves feeds `partner` (and another
    does not), it plays one; otherwise the honest bot underneath moves. It
    reads the true state (`state_of`): colluders share what they hold."""

    blind = False

    def __init__(
        self, game: Game, seat: int, partner: int, base: Bot, state_of: Callable[[], Any], feed_rate: float
    ) -> None:
        self.game, self.seat, self.partner, self.base = game, seat, partner, base
        self.state_of, self.feed_rate = state_of, feed_rate
        self.observes = base.observes

    def observe(self, event: Any) -> None:
        self.base.observe(event)

    def act(self, view: Any, legal: Sequence[Any], rng: random.Random) -> Any:
        feeding = feeding_actions(self.game, self.state_of(), self.seat, self.partner, legal)
        if feeding and rng.random() < self.feed_rate:
            return rng.choice(feeding)
        return self.base.act(None if self.base.blind else view, legal, rng)


class Catcher:
    """The feeder's partner at the mask table: calls Stop at once on a mask
    the feeder dumped on a pile holding one like it (KM-4)."""

    blind = False

    def __init__(self, seat: int, feeder: int, base: Bot, state_of: Callable[[], Any]) -> None:
        self.seat, self.feeder, self.base, self.state_of = seat, feeder, base, state_of
        self.observes = base.observes

    def observe(self, event: Any) -> None:
        self.base.observe(event)

    def act(self, view: Any, legal: Sequence[Any], rng: random.Random) -> Any:
        state = self.state_of()
        stop = next((a for a in legal if type(a) is Stop), None)
        if stop is not None and state.last_seat == self.feeder and not state.called:
            *covered, top = state.piles[state.last_pile]
            if any(c // COPIES == top // COPIES for c in covered):
                return stop
        return self.base.act(None if self.base.blind else view, legal, rng)


def _strength(account: str) -> str:
    return HOUSE if account == HOUSE else account.rsplit("-", 1)[0]


def play(game: Game, seated: Sequence[str], seed: int, feed_rate: float, game_id: str) -> ScreenedGame:
    """One game; `seated` names each seat's account (HOUSE: a house bot)."""
    options = game.make_options({})
    holder: list[Playout] = []

    def state_of() -> Any:
        return holder[0].state

    def honest(seat: int, kind: str) -> Bot:
        return make_bot(game, kind, seat, options, clock=time.perf_counter)

    bots: list[Bot] = []
    for seat, account in enumerate(seated):
        if account == FEEDER:
            partner = seated.index(PARTNER)
            bots.append(Feeder(game, seat, partner, honest(seat, "heuristic"), state_of, feed_rate))
        elif account == PARTNER and game.name == "kabuki-masks":
            bots.append(Catcher(seat, seated.index(FEEDER), honest(seat, "heuristic"), state_of))
        elif account in (PARTNER, HOUSE):
            bots.append(honest(seat, "heuristic"))
        else:
            bots.append(honest(seat, _strength(account)))
    moves: list[Move] = []

    def record(before: Any, seat: int | None, action: Any, events: list, after: Any) -> None:
        if seat is not None:
            moves.append(Move(len(playout.log) - len(events) + 1, seat, before, action, tuple(events)))

    playout = Playout(game, len(seated), options, seed, bots, hook=record)
    holder.append(playout)
    playout.run()
    seats = tuple(None if a == HOUSE else Account(a, "agent", a) for a in seated)
    return ScreenedGame(game_id, game.name, seats, tuple(opportunities(game, moves)))


def league(game: Game, games: int, planted: bool, seed: int, feed_rate: float) -> list[ScreenedGame]:
    strengths = HONEST_STRENGTHS.get(game.name, DEFAULT_STRENGTHS)
    rng = random.Random(seed)
    if planted:
        # The pair sits together at every table; six honest accounts and a
        # house bot fill the other seats.
        honest = [f"{strengths[i % len(strengths)]}-{i}" for i in range(6)] + [HOUSE]
    else:
        honest = [f"{strengths[i % len(strengths)]}-{i}" for i in range(8)] + [HOUSE]
    out = []
    for number in range(games):
        seated = [FEEDER, PARTNER, *rng.sample(honest, PLAYERS - 2)] if planted else rng.sample(honest, PLAYERS)
        rng.shuffle(seated)
        out.append(play(game, seated, seed * 1_000_003 + number, feed_rate, f"{game.name}-{seed}-{number}"))
    return out


class PlantedFigures(msgspec.Struct, frozen=True):
    game: str
    games: int
    feed_rate: float
    chances: int  # the feeder's chances to feed its partner
    fed: int
    expected: float
    rate: float
    expected_rate: float
    z: float
    p_value: float
    flagged: bool
    honest_pairs_screened: int  # in the planted run: the ordered pairs of two honest accounts
    honest_pairs_flagged: int
    # Pairs of one planted and one honest account: the colluders' other
    # moves are not honest play either (the partner, fed tricks, leaves
    # others more), so these may be flagged; they are counted apart.
    mixed_pairs_screened: int
    mixed_pairs_flagged: int
    # The honest-only leagues of this game: their ordered pairs, those
    # flagged, and the smallest p-value any of them got (1 if none).
    honest_run_pairs_screened: int = 0
    honest_run_pairs_flagged: int = 0
    honest_run_min_p: float = 1.0


class Validation(msgspec.Struct, frozen=True):
    games_per_run: int
    honest_runs: int
    min_shared_games: int
    family_alpha: float
    planted: list[PlantedFigures]
    honest_pairs_screened: int  # pairs of two honest accounts: the planted runs' and every pair of the honest runs
    honest_pairs_flagged: int
    false_positive_rate: float  # flagged / screened over the honest pairs
    honest_reports_with_a_flag: int  # honest-only runs (one report each) that flagged any pair
    honest_reports: int


PLANTED = frozenset({FEEDER, PARTNER})


def _planted_in(pair: Any) -> int:
    """How many of the pair's two accounts are planted colluders."""
    return (pair.giver in PLANTED) + (pair.receiver in PLANTED)


def validate(
    games: int = 200,
    honest_runs: int = 5,
    names: Sequence[str] = SCREENED_GAMES,
    seed: int = 1,
    feed_rate: float = 1.0,
    min_shared_games: int = MIN_SHARED_GAMES,
    family_alpha: float = FAMILY_ALPHA,
) -> Validation:
    planted_figures = []
    screened = flagged = reports_flagged = reports = 0
    for name in names:
        game = get_game(name)
        report = screen(league(game, games, True, seed, feed_rate), min_shared_games, family_alpha)
        pair = next(p for p in report.pairs if p.giver == FEEDER and p.receiver == PARTNER)
        honest = [p for p in report.pairs if _planted_in(p) == 0]
        mixed = [p for p in report.pairs if _planted_in(p) == 1]
        run_screened = run_flagged = 0
        run_min_p = 1.0
        for run in range(honest_runs):
            honest_report = screen(
                league(game, games, False, seed + 1 + run, feed_rate), min_shared_games, family_alpha
            )
            run_screened += honest_report.pairs_screened
            run_flagged += honest_report.pairs_flagged
            run_min_p = min([run_min_p, *(p.p_value for p in honest_report.pairs)])
            reports += 1
            reports_flagged += honest_report.pairs_flagged > 0
        planted_figures.append(
            PlantedFigures(
                game=name,
                games=games,
                feed_rate=feed_rate,
                chances=pair.chances,
                fed=pair.fed,
                expected=pair.expected,
                rate=pair.rate,
                expected_rate=pair.expected_rate,
                z=pair.z,
                p_value=pair.p_value,
                flagged=pair.flagged,
                honest_pairs_screened=len(honest),
                honest_pairs_flagged=sum(p.flagged for p in honest),
                mixed_pairs_screened=len(mixed),
                mixed_pairs_flagged=sum(p.flagged for p in mixed),
                honest_run_pairs_screened=run_screened,
                honest_run_pairs_flagged=run_flagged,
                honest_run_min_p=run_min_p,
            )
        )
        screened += len(honest) + run_screened
        flagged += sum(p.flagged for p in honest) + run_flagged
    return Validation(
        games_per_run=games,
        honest_runs=honest_runs,
        min_shared_games=min_shared_games,
        family_alpha=family_alpha,
        planted=planted_figures,
        honest_pairs_screened=screened,
        honest_pairs_flagged=flagged,
        false_positive_rate=round(flagged / screened, 5) if screened else 0.0,
        honest_reports_with_a_flag=reports_flagged,
        honest_reports=reports,
    )


def table(v: Validation) -> str:
    lines = [
        f"collusion screening validation: {v.games_per_run} games a run, min {v.min_shared_games} shared games,"
        f" family alpha {v.family_alpha}",
        f"{'game':<14} {'chances':>7} {'fed':>5} {'expected':>8} {'rate':>6} {'base':>6} {'z':>7}"
        f" {'p':>9} {'flagged':>7} {'honest flagged':>14} {'mixed flagged':>13} {'honest runs':>11}"
        f" {'min p':>8}",
    ]
    for p in v.planted:
        lines.append(
            f"{p.game:<14} {p.chances:>7} {p.fed:>5} {p.expected:>8.1f} {p.rate:>6.3f} {p.expected_rate:>6.3f}"
            f" {p.z:>7.2f} {p.p_value:>9.2g} {'yes' if p.flagged else 'NO':>7}"
            f" {f'{p.honest_pairs_flagged}/{p.honest_pairs_screened}':>14}"
            f" {f'{p.mixed_pairs_flagged}/{p.mixed_pairs_screened}':>13}"
            f" {f'{p.honest_run_pairs_flagged}/{p.honest_run_pairs_screened}':>11} {p.honest_run_min_p:>8.2g}"
        )
    lines.append(
        f"honest pairs flagged: {v.honest_pairs_flagged} of {v.honest_pairs_screened}"
        f" (false-positive rate {v.false_positive_rate}); honest-only reports with any flag:"
        f" {v.honest_reports_with_a_flag} of {v.honest_reports}"
    )
    return "\n".join(lines)
