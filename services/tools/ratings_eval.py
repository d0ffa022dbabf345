"""`hanamichi ratings evaluate`: how well rating models predict results.

Games are taken in the order they were played: the first part only trains
the ratings; each later (held-out) game is first predicted from the ratings
as they stand, then rated. Per model it reports, over the held-out games:

- `pairwise_error`: the share of pairs of seats (not tied) that the ratings
  put in the wrong order (mu, higher first);
- `winner_log_loss`: minus the log of the probability the model gave the
  actual winner (predict_win; shared wins split);
- `kendall_tau`: rank correlation of the predicted and actual order;
- `order_settled_after`: the games per player after which the mean rating of
  each known strength class is ordered as the classes are (random <
  heuristic < expert) and stays so; None if it never settles.

Beside them: `naive` (every order equally likely: error 0.5, log-loss
log n, tau 0) and `ceiling`, what knowing each seat's strength class
gives: pairs ordered by class, the winner's probability from the class's
win rate in the training games. The gap between the ceiling and 0 is the
luck of the game itself.

The games come from a league of house bots of known strength played here
(`--games`, `--bots`), or with `--from-log` from the ranked games in the
database (then without classes: no ceiling, no settling)."""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from itertools import combinations
from typing import Any

from openskill.models import BradleyTerryFull, PlackettLuce, ThurstoneMostellerFull

STRENGTH = {"random": 0, "heuristic": 1, "memory": 1, "expert": 2}
DEFAULT_TAU = 25 / 300  # openskill's drift per game


def models() -> dict[str, Any]:
    """The models compared: three families, with openskill's drift and without."""
    out: dict[str, Any] = {}
    for name, cls in (
        ("plackett-luce", PlackettLuce),
        ("thurstone-mosteller", ThurstoneMostellerFull),
        ("bradley-terry", BradleyTerryFull),
    ):
        out[name] = cls(tau=DEFAULT_TAU)
        out[f"{name} (no drift)"] = cls(tau=0.0)
    return out


Game = list[tuple[str, int]]  # (player id, place) per seat; 1 = first, ties share


def league(game_name: str, players: int, games: int, bots: Sequence[str], per_class: int, seed: int) -> list[Game]:
    """`games` games among `per_class` bots of each kind in `bots`, seats
    drawn at random each game (a player id is `kind#n`)."""
    from engines.expert import make_bot
    from engines.playout import Playout
    from engines.registry import get_game

    game = get_game(game_name)
    options = game.make_options({})
    pool = [f"{kind}#{n}" for kind in bots for n in range(per_class)]
    rng = random.Random(seed)
    out: list[Game] = []
    for number in range(games):
        seated = rng.sample(pool, players)
        made = [
            make_bot(game, p.split("#")[0], seat, options, clock=time.perf_counter) for seat, p in enumerate(seated)
        ]
        state = Playout(game, players, options, seed * 1_000_003 + number, made).run()
        out.append(list(zip(seated, game.result(state).places, strict=True)))
    return out


def _pairs(game: Game) -> list[tuple[int, int]]:
    return [(i, j) for i, j in combinations(range(len(game)), 2) if game[i][1] != game[j][1]]


def _tau(predicted: Sequence[float], game: Game) -> float:
    """Kendall's tau-b of higher-is-better predictions against places."""
    concordant = discordant = ties_p = ties_a = 0
    for i, j in combinations(range(len(game)), 2):
        dp = predicted[i] - predicted[j]
        da = game[j][1] - game[i][1]  # a lower place is better
        if dp == 0 and da == 0:
            continue
        if dp == 0:
            ties_p += 1
        elif da == 0:
            ties_a += 1
        elif dp * da > 0:
            concordant += 1
        else:
            discordant += 1
    n = concordant + discordant
    denominator = math.sqrt((n + ties_p) * (n + ties_a))
    return (concordant - discordant) / denominator if denominator else 0.0


def _score(predicted: Sequence[float], win_p: Sequence[float], game: Game) -> tuple[float, int, float, float]:
    """A pair predicted equal is a coin toss: half an error."""
    pairs = _pairs(game)
    signs = [(predicted[i] - predicted[j]) * (game[j][1] - game[i][1]) for i, j in pairs]
    wrong = sum(1.0 if s < 0 else 0.5 if s == 0 else 0.0 for s in signs)
    winners = [i for i, (_, place) in enumerate(game) if place == 1]
    p = sum(win_p[i] for i in winners) / len(winners)
    return wrong, len(pairs), -math.log(max(p, 1e-12)), _tau(predicted, game)


def _settled(history: list[tuple[int, dict[int, float]]]) -> int | None:
    """The first games-per-player count from which class means stay ordered."""
    settled = None
    for per_player, means in history:
        ordered = all(means[a] < means[b] for a, b in zip(sorted(means), sorted(means)[1:], strict=False))
        if ordered and settled is None:
            settled = per_player
        elif not ordered:
            settled = None
    return settled


def evaluate_model(model: Any, games: list[Game], train: int) -> dict[str, Any]:
    ratings: dict[str, Any] = {}
    played: dict[str, int] = {}
    wrong, pairs = 0.0, 0
    losses: list[float] = []
    taus: list[float] = []
    history: list[tuple[int, dict[int, float]]] = []
    for number, game in enumerate(games):
        teams = [[ratings.setdefault(pid, model.rating())] for pid, _ in game]
        if number >= train:
            w, n, loss, tau = _score([t[0].mu for t in teams], model.predict_win(teams), game)
            wrong, pairs = wrong + w, pairs + n
            losses.append(loss)
            taus.append(tau)
        rated = model.rate(teams, ranks=[place for _, place in game])
        for (pid, _), team in zip(game, rated, strict=True):
            ratings[pid] = team[0]
            played[pid] = played.get(pid, 0) + 1
        classes: dict[int, list[float]] = {}
        for pid, r in ratings.items():
            kind = pid.split("#")[0]
            if kind in STRENGTH:
                classes.setdefault(STRENGTH[kind], []).append(r.mu)
        if len(classes) > 1:
            per_player = min(played.values())
            history.append((per_player, {k: sum(v) / len(v) for k, v in classes.items()}))
    return {
        "pairwise_error": round(wrong / pairs, 4) if pairs else None,
        "winner_log_loss": round(sum(losses) / len(losses), 4) if losses else None,
        "kendall_tau": round(sum(taus) / len(taus), 4) if taus else None,
        "order_settled_after": _settled(history),
    }


def ceiling(games: list[Game], train: int) -> dict[str, Any] | None:
    """What knowing each seat's strength class gives on the held-out games."""
    if not all(pid.split("#")[0] in STRENGTH for game in games for pid, _ in game):
        return None
    won: dict[int, float] = {}
    seen: dict[int, int] = {}
    for game in games[:train]:
        winners = [pid for pid, place in game if place == 1]
        for pid, _ in game:
            k = STRENGTH[pid.split("#")[0]]
            seen[k] = seen.get(k, 0) + 1
            won[k] = won.get(k, 0.0) + (1 / len(winners) if pid in winners else 0.0)
    rate = {k: (won.get(k, 0.0) + 0.5) / (seen[k] + 1) for k in seen}  # smoothed
    wrong, pairs = 0.0, 0
    losses, taus = [], []
    for game in games[train:]:
        strength = [float(STRENGTH[pid.split("#")[0]]) for pid, _ in game]
        raw = [rate.get(int(s), 0.5) for s in strength]
        win_p = [r / sum(raw) for r in raw]
        w, n, loss, tau = _score(strength, win_p, game)
        wrong, pairs = wrong + w, pairs + n
        losses.append(loss)
        taus.append(tau)
    return {
        "pairwise_error": round(wrong / pairs, 4) if pairs else None,
        "winner_log_loss": round(sum(losses) / len(losses), 4) if losses else None,
        "kendall_tau": round(sum(taus) / len(taus), 4) if taus else None,
    }


def evaluate(games: list[Game], held_out: float = 0.3) -> dict[str, Any]:
    train = int(len(games) * (1 - held_out))
    sizes = [len(g) for g in games[train:]] or [2]
    naive = {
        "pairwise_error": 0.5,
        "winner_log_loss": round(sum(math.log(n) for n in sizes) / len(sizes), 4),
        "kendall_tau": 0.0,
    }
    return {
        "games": len(games),
        "trained_on": train,
        "held_out": len(games) - train,
        "models": {name: evaluate_model(model, games, train) for name, model in models().items()},
        "naive": naive,
        "ceiling": ceiling(games, train),
    }


def table(report: dict[str, Any]) -> str:
    lines = [
        f"{report['games']} games, trained on the first {report['trained_on']}, predicted {report['held_out']}",
        f"{'model':<32} {'pair err':>8} {'log-loss':>8} {'tau':>6} {'settled':>8}",
    ]
    rows = list(report["models"].items()) + [("naive", report["naive"])]
    if report["ceiling"]:
        rows.append(("ceiling (strength known)", report["ceiling"]))
    for name, m in rows:
        settled = m.get("order_settled_after")
        lines.append(
            f"{name:<32} {m['pairwise_error']!s:>8} {m['winner_log_loss']!s:>8} {m['kendall_tau']!s:>6}"
            f" {'' if settled is None and 'order_settled_after' not in m else settled!s:>8}"
        )
    return "\n".join(lines)
