"""`hanamichi analyse --validate`: does the analysis judge play correctly?
Bot games at mixed tables (an expert, a heuristic and a random seat,
rotated), every game analysed, and per kind of bot the mean open-hand loss
per decision and the mean loss from what it knew, each with a 95% interval;
then a planted blunder (a heuristic seat that once throws the move the
open-hand playouts rate worst) must be that seat's largest mistake."""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Sequence
from typing import Any

import msgspec

from engines.core import Bot, Game
from engines.expert import heuristic_playout
from engines.registry import get_game, get_search
from services.app.analysis import analyse
from services.app.analysis.selfplay import bot_game_log, log_of

GAMES = ("kabuki-tricks", "cahoots", "tezuma-trick", "kabuki-masks")
KINDS = ("expert", "heuristic", "random")
PLAYERS = 3
BLUNDER_AT_LEAST = 2.0  # points of margin the planted move must throw away


class KindFigures(msgspec.Struct, frozen=True):
    kind: str
    decisions: int
    mean_loss: float
    interval: tuple[float, float]
    knew_mean_loss: float | None
    knew_interval: tuple[float, float] | None


class GameFigures(msgspec.Struct, frozen=True):
    game: str
    games: int
    kinds: list[KindFigures]
    blunders_planted: int
    blunders_found: int  # the planted move was its seat's largest mistake


def _interval(xs: Sequence[float]) -> tuple[float, tuple[float, float]]:
    mean = statistics.fmean(xs)
    half = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else float("inf")
    return round(mean, 3), (round(mean - half, 3), round(mean + half, 3))


def _figures(kind: str, losses: list[float], knew: list[float]) -> KindFigures:
    mean, interval = _interval(losses) if losses else (0.0, (0.0, 0.0))
    knew_mean, knew_interval = _interval(knew) if len(knew) > 1 else (None, None)
    return KindFigures(kind, len(losses), mean, interval, knew_mean, knew_interval)


class Blunderer:
    """A heuristic seat that, at its first decision where some move loses at
    least BLUNDER_AT_LEAST points of margin open-hand, plays the worst one."""

    blind = False
    observes = True

    def __init__(self, game: Game, seat: int, options: Any, state_of) -> None:
        self.game, self.seat, self.options, self.state_of = game, seat, options, state_of
        self.inner = game.bots["heuristic"](seat, options)
        self.search = get_search(game.name)
        self.planted: int | None = None  # the log length when it blundered
        self.log_length = lambda: 0

    def observe(self, event: Any) -> None:
        self.inner.observe(event)

    def act(self, view: Any, legal: Sequence[Any], rng: random.Random) -> Any:
        choice = self.inner.act(view, legal, rng)
        if self.planted is not None or len(legal) < 2 or choice is None:
            return choice
        state = self.state_of()
        leads = {}
        for i, action in enumerate(legal):
            final = heuristic_playout(
                self.game, self.search, self.options, state, self.seat, action, 0, self.search.judged_rounds
            )
            if final is not None:
                scores = self.search.scores(final)
                leads[i] = scores[self.seat] - max(x for s, x in enumerate(scores) if s != self.seat)
        if len(leads) < 2 or max(leads.values()) - min(leads.values()) < BLUNDER_AT_LEAST:
            return choice
        self.planted = self.log_length() + 1
        return legal[min(leads, key=lambda i: leads[i])]


def _blunder_game(game: Game, seed: int) -> tuple[bool, bool]:
    """(planted, found) for one game with a Blunderer at seat 0."""
    from engines.playout import Playout

    options = game.make_options({})
    holder: list[Playout] = []
    blunderer = Blunderer(game, 0, options, lambda: holder[0].state)
    blunderer.log_length = lambda: len(holder[0].log)
    bots: list[str | Bot] = [blunderer, "heuristic", "heuristic"]
    playout = Playout(game, PLAYERS, options, seed, bots)
    holder.append(playout)
    playout.run()
    if blunderer.planted is None:
        return False, False
    log = log_of(game, playout.log)
    result = analyse(f"blunder-{game.name}-{seed}", log, worlds=0)
    largest = result.seats[0].largest
    return True, bool(largest) and largest[0].version == blunderer.planted


def validate_game(name: str, games: int, seed: int, worlds: int, blunders: int = 20) -> GameFigures:
    game = get_game(name)
    losses: dict[str, list[float]] = {k: [] for k in KINDS}
    knew: dict[str, list[float]] = {k: [] for k in KINDS}
    for number in range(games):
        seated = [KINDS[(number + s) % len(KINDS)] for s in range(PLAYERS)]
        result = analyse(
            f"validate-{name}-{seed}-{number}", bot_game_log(game, seated, seed * 1_000_003 + number), worlds=worlds
        )
        for j in result.moves:
            if j.own:
                losses[seated[j.seat]].append(j.loss)
                if j.knew_loss is not None:
                    knew[seated[j.seat]].append(j.knew_loss)
    planted = found = 0
    for number in range(blunders):
        p, f = _blunder_game(game, seed * 7_000_003 + number)
        planted += p
        found += f
    return GameFigures(name, games, [_figures(k, losses[k], knew[k]) for k in KINDS], planted, found)


def validate(games: int, seed: int, worlds: int, names: Sequence[str] = GAMES) -> list[GameFigures]:
    return [validate_game(name, games, seed, worlds) for name in names]


def render(report: list[GameFigures]) -> str:
    lines = [f"{'game':<14} {'bot':<10} {'decisions':>9} {'open-hand loss (95%)':>26} {'knew loss (95%)':>26}"]
    for g in report:
        for k in g.kinds:
            knew = (
                f"{k.knew_mean_loss:.3f} [{k.knew_interval[0]:.3f}, {k.knew_interval[1]:.3f}]"
                if k.knew_interval
                else "-"
            )
            lines.append(
                f"{g.game:<14} {k.kind:<10} {k.decisions:>9} "
                f"{k.mean_loss:>8.3f} [{k.interval[0]:.3f}, {k.interval[1]:.3f}] {knew:>26}"
            )
        lines.append(
            f"{g.game:<14} planted blunders found as the largest mistake: {g.blunders_found}/{g.blunders_planted}"
        )
    return "\n".join(lines)


class Timing(msgspec.Struct, frozen=True):
    game: str
    players: int
    decisions: int
    seconds: float
    open_hand_seconds: float
    random_playouts_per_s: float  # the engine's random playouts, timed in the same run
    equivalent_playouts: float  # seconds x random_playouts_per_s: the analysis in whole random games


def timings(players: int = 4, seed: int = 1, worlds: int | None = None) -> tuple[float, list[Timing]]:
    """One heuristic game of each trick game, analysed with the default
    method and open hand only, beside the bare Kabuki Tricks playout and
    the game's random engine playout (`hanamichi simulate --calibrate`)."""
    import time

    from services.app.analysis.judge import WORLDS
    from services.tools.simulate import calibrate

    ceiling = calibrate(players, 0.5)
    rates = {row["game"]: row["playouts_per_s"] for row in ceiling["games"]}
    out = []
    for name in ("kabuki-tricks", "cahoots", "tezuma-trick"):
        game = get_game(name)
        log = bot_game_log(game, ["heuristic"] * players, seed)
        began = time.process_time()
        result = analyse(f"timing-{name}-{seed}", log, worlds=WORLDS if worlds is None else worlds)
        seconds = time.process_time() - began
        began = time.process_time()
        analyse(f"timing-{name}-{seed}", log, worlds=0)
        open_hand = time.process_time() - began
        out.append(
            Timing(
                name,
                players,
                len(result.moves),
                round(seconds, 2),
                round(open_hand, 2),
                rates[name],
                round(seconds * rates[name], 0),
            )
        )
    return ceiling["bare_kabuki_tricks_per_s"], out


def render_timings(bare: float, rows: list[Timing]) -> str:
    lines = [f"bare pure-Python Kabuki Tricks playout: {bare:.0f}/s (same run); CPU seconds of one core"]
    for t in rows:
        lines.append(
            f"{t.game:<14} {t.players} players: {t.decisions} decisions in {t.seconds:.1f} s"
            f" (open hand alone {t.open_hand_seconds:.1f} s); random engine playouts {t.random_playouts_per_s:.0f}/s,"
            f" so the analysis costs {t.equivalent_playouts:.0f} of them"
        )
    return "\n".join(lines)
