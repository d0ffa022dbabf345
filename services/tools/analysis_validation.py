"""`hanamichi analyse --validate`: does the analysis judge play correctly?

Bot games at mixed tables (an expert, a heuristic and a random seat,
rotated), every game analysed. The test of the judge is *paired*: at every
decision of every game (whoever made it), each kind of bot is asked what it
would play there, from exactly what that seat had been shown, and the
analysis's open-hand loss of that choice is taken (a random bot's: the mean
over the legal moves, its exact expectation). So every kind is judged on the
same positions, and per kind the mean loss per decision has a 95% interval.

The seats' own figures (each kind's loss over the decisions its seats made)
are printed beside them, and they do not order the bots: a seat's positions
depend on how it played. A random seat spends a Kabuki Tricks joker at once
and then mostly follows suit with a few cards, while a heuristic seat keeps
its joker and has its sixty ways to play it at every trick; an open-hand
judge finds more to regret among sixty moves than among three.

Then a planted blunder (a seat that plays the open-hand best but once
throws the move the open-hand playouts rate worst, see `Blunderer`) must
be that seat's largest mistake."""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from engines.core import Bot, Game
from engines.expert import heuristic_playout, make_bot
from engines.registry import get_game, get_search
from services.app.analysis import analyse
from services.app.analysis.judge import engine_log, lead, prepare
from services.app.analysis.masks import MasksSeat, review
from services.app.analysis.selfplay import bot_game_log, log_of
from services.tools.benchrun import mean_interval

GAMES = ("kabuki-tricks", "cahoots", "tezuma-trick", "kabuki-masks")
KINDS = ("expert", "heuristic", "random")
PLAYERS = 3
BLUNDER_AT_LEAST = 2.0  # points of margin the planted move must throw away


class KindFigures(msgspec.Struct, frozen=True):
    kind: str
    decisions: int
    mean_loss: float  # paired: the kind's choice at every decision of the games
    interval: tuple[float, float]
    seat_decisions: int  # the decisions the kind's own seats made
    seat_mean_loss: float
    seat_interval: tuple[float, float]


class GameFigures(msgspec.Struct, frozen=True):
    game: str
    games: int
    kinds: list[KindFigures]
    # Paired differences per decision, with 95% intervals:
    # heuristic - expert, random - heuristic.
    differences: list[tuple[str, float, tuple[float, float]]]
    ordered: bool  # each kind's interval lies below the next kind's mean, and each difference's above 0
    blunders_planted: int
    blunders_found: int  # the planted move was its seat's largest mistake
    # Kabuki masks: the Stop review's figures summed per kind (a Stop is a
    # chance taken, not an awaited decision, so the paired figures leave it out).
    stops: list[KindStops] | None = None


class KindStops(msgspec.Struct, frozen=True):
    kind: str
    chances: int
    right: int
    wrong: int
    missed: int
    memory_accuracy: float  # over all the kind's chances
    interval: tuple[float, float]  # 95%, by game (the games' chances are not independent within one)


def _interval(xs: Sequence[float]) -> tuple[float, tuple[float, float]]:
    if not xs:
        return 0.0, (0.0, 0.0)
    low, high = mean_interval(list(xs), digits=3)
    if low is None or high is None:  # one value: no interval
        low, high = float("-inf"), float("inf")
    return round(statistics.fmean(xs), 3), (low, high)


def paired_losses(log: Sequence[Any], game_id: str) -> tuple[dict[str, list[float]], list[tuple[int, float]]]:
    """Per kind of bot, the open-hand loss of its choice at every decision of
    the game (more than one legal move), asked of it from the seat's view;
    and (seat, loss) of each move played, as the analysis judges it."""
    judge, moves = prepare(game_id, log, worlds=0)
    game, options = judge.game, judge.options
    out: dict[str, list[float]] = {k: [] for k in KINDS}
    played_losses = []
    for move in moves:
        legal, played, projected = judge.open_hand(move, judge.rng(move))
        if len(legal) < 2 or len(projected) < 2:
            continue
        leads = {i: lead(p, move.seat) for i, p in projected.items()}
        best = max(leads.values())
        if move.own and played in leads:
            played_losses.append((move.seat, best - leads[played]))
        view = game.view(move.before, move.seat)
        seen = judge.seen(move.seat, move.version)
        rng = random.Random(f"{game_id}:{move.version}:kinds")
        for kind in ("expert", "heuristic"):
            bot = make_bot(game, kind, move.seat, options)  # the expert clockless, as the seats played
            for event in seen:
                bot.observe(event)
            choice = bot.act(view, legal, random.Random(rng.getrandbits(32)))
            i = legal.index(choice) if choice in legal else None
            if i is not None and i in leads:
                out[kind].append(best - leads[i])
        out["random"].append(statistics.fmean(best - x for x in leads.values()))
    return out, played_losses


class Blunderer:
    """A seat that plays, at each of its decisions, the move the open-hand
    playouts rate best, except at the first where some move loses at least
    BLUNDER_AT_LEAST points of margin: there it plays the worst one. Its
    other moves are then no mistakes by the open-hand judgement (in the
    trick games, whose playouts are exact, none at all), so what is tested
    is that the analysis finds the planted one, where it is, as the seat's
    largest. (A heuristic seat would not do: in Cahoots its own moves lose
    20 to 30 points open hand at the deal's first choices, as much as any
    planted one.) In Kabuki masks, whose playouts have chance, its other
    moves and its Stops are the heuristic's."""

    blind = False
    observes = True

    def __init__(
        self, game: Game, seat: int, options: Any, state_of: Callable[[], Any], log_length: Callable[[], int]
    ) -> None:
        self.game, self.seat, self.options = game, seat, options
        self.state_of, self.log_length = state_of, log_length
        self.inner = game.bots["heuristic"](seat, options)
        self.search = get_search(game.name)
        self.planted: int | None = None  # the version of its blunder's first event

    def observe(self, event: Any) -> None:
        self.inner.observe(event)

    def act(self, view: Any, legal: Sequence[Any], rng: random.Random) -> Any:
        choice = self.inner.act(view, legal, rng)
        state = self.state_of()
        if len(legal) < 2 or choice is None or self.seat not in self.game.waiting_for(state):
            return choice  # not a decision the analysis judges
        leads = {}
        for i, action in enumerate(legal):
            final = heuristic_playout(
                self.game, self.search, self.options, state, self.seat, action, 0, self.search.judged_rounds
            )
            if final is not None:
                leads[i] = lead(self.search.scores(final), self.seat)
        if len(leads) < 2:
            return choice
        if self.planted is None and max(leads.values()) - min(leads.values()) >= BLUNDER_AT_LEAST:
            self.planted = self.log_length() + 1
            return legal[min(leads, key=lambda i: leads[i])]
        if self.search.judged_playouts > 1:
            # Chance in the playouts (Kabuki masks' Stops): one playout's best
            # is not the judgement's; the heuristic's perfect memory is closer.
            return choice
        return legal[max(leads, key=lambda i: leads[i])]


def _blunder_game(game: Game, seed: int) -> tuple[bool, bool]:
    """(planted, found) for one game with a Blunderer at seat 0."""
    from engines.playout import Playout

    options = game.make_options({})
    holder: list[Playout] = []
    blunderer = Blunderer(game, 0, options, lambda: holder[0].state, lambda: len(holder[0].log))
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


def validate_game(name: str, games: int, seed: int, blunders: int = 20) -> GameFigures:
    game = get_game(name)
    paired: dict[str, list[float]] = {k: [] for k in KINDS}
    seats: dict[str, list[float]] = {k: [] for k in KINDS}
    reviewed: dict[str, list[MasksSeat]] = {k: [] for k in KINDS}
    for number in range(games):
        seated = [KINDS[(number + s) % len(KINDS)] for s in range(PLAYERS)]
        game_id = f"validate-{name}-{seed}-{number}"
        log = bot_game_log(game, seated, seed * 1_000_003 + number)
        by_kind, played = paired_losses(log, game_id)
        for kind, losses in by_kind.items():
            paired[kind] += losses
        for seat, loss in played:
            seats[seated[seat]].append(loss)
        if name == "kabuki-masks":
            for figures in review(engine_log(game, log)).seats:
                reviewed[seated[figures.seat]].append(figures)
    kinds = []
    for k in KINDS:
        mean, interval = _interval(paired[k])
        seat_mean, seat_interval = _interval(seats[k])
        kinds.append(KindFigures(k, len(paired[k]), mean, interval, len(seats[k]), seat_mean, seat_interval))
    differences = []
    for worse, better in (("heuristic", "expert"), ("random", "heuristic")):
        # The expert and the heuristic answer at the same decisions, except
        # where one of them chose a move the rules refuse (never, in practice).
        n = min(len(paired[worse]), len(paired[better]))
        d = [a - b for a, b in zip(paired[worse][:n], paired[better][:n], strict=True)]
        differences.append((f"{worse} - {better}", *_interval(d)))
    ordered = all(a.interval[1] < b.mean_loss for a, b in zip(kinds, kinds[1:], strict=False)) and all(
        low > 0 for _, _, (low, _) in differences
    )
    planted = found = 0
    for number in range(blunders):
        p, f = _blunder_game(game, seed * 7_000_003 + number)
        planted += p
        found += f
    stops = [_stops(k, reviewed[k]) for k in KINDS] if name == "kabuki-masks" else None
    return GameFigures(name, games, kinds, differences, ordered, planted, found, stops)


def _stops(kind: str, seats: list[MasksSeat]) -> KindStops:
    chances = sum(s.chances for s in seats)
    right_calls_and_silences = sum(s.memory_accuracy * s.chances for s in seats)
    _, interval = _interval([s.memory_accuracy for s in seats if s.chances])
    return KindStops(
        kind,
        chances,
        sum(s.right_stops for s in seats),
        sum(s.wrong_stops for s in seats),
        sum(s.missed_stops for s in seats),
        round(right_calls_and_silences / chances, 3) if chances else 1.0,
        interval,
    )


def validate(games: int, seed: int, names: Sequence[str] = GAMES) -> list[GameFigures]:
    return [validate_game(name, games, seed) for name in names]


def render(report: list[GameFigures]) -> str:
    lines = [
        "open-hand loss per decision, points of margin, 95% intervals;"
        " paired: every kind asked at every decision; seats: the decisions the kind's own seats made",
        f"{'game':<14} {'bot':<10} {'decisions':>9} {'paired loss (95%)':>24}"
        f" {'decisions':>9} {'seats loss (95%)':>24}",
    ]
    for g in report:
        for k in g.kinds:
            lines.append(
                f"{g.game:<14} {k.kind:<10} {k.decisions:>9} {_shown(k.mean_loss, k.interval):>24}"
                f" {k.seat_decisions:>9} {_shown(k.seat_mean_loss, k.seat_interval):>24}"
            )
        for label, mean, interval in g.differences:
            lines.append(f"{g.game:<14} paired {label}: {_shown(mean, interval)}")
        lines.append(f"{g.game:<14} ordered expert < heuristic < random: {'yes' if g.ordered else 'NO'}")
        lines.append(
            f"{g.game:<14} planted blunders found as the largest mistake: {g.blunders_found}/{g.blunders_planted}"
        )
        for st in g.stops or []:
            lines.append(
                f"{g.game:<14} {st.kind:<10} Stops over {st.chances} chances: {st.right} right, {st.wrong} wrong,"
                f" {st.missed} missed; memory {_shown(st.memory_accuracy, st.interval)} (interval by game)"
            )
    return "\n".join(lines)


def _shown(mean: float, interval: tuple[float, float]) -> str:
    return f"{mean:.3f} [{interval[0]:.3f}, {interval[1]:.3f}]"


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
