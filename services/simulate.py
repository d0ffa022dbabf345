"""`hanamichi simulate`: whole bot games in one process, with figures."""

from __future__ import annotations

import sys
import time
from typing import Any

from engines.core import Game
from engines.expert import make_bot
from engines.playout import Playout


def simulate(game: Game, players: int, games: int, seed: int, bots: list[str], options: dict, progress: bool) -> dict[str, Any]:
    game.check_players(players)
    table_options = game.make_options(options)
    unknown = [b for b in bots if b not in game.bots]
    if unknown:
        raise SystemExit(f"unknown bot(s) {', '.join(unknown)} for {game.name}; known: {', '.join(game.bots)}")
    if len(bots) != players:
        raise SystemExit(f"--bots names {len(bots)} bots for {players} players")
    score_sums = [0.0] * players
    wins = [0] * players
    actions = 0
    started = time.perf_counter()
    for number in range(games):
        # Seats keep their bots; each game gets its own deal from (seed, number).
        # The expert searches for its time budget by this process's clock.
        seated = [make_bot(game, name, seat, table_options, clock=time.perf_counter) for seat, name in enumerate(bots)]
        playout = Playout(game, players, table_options, seed * 1_000_003 + number, seated)
        state = playout.run()
        actions += playout.actions
        result = game.result(state)
        for seat in range(players):
            score_sums[seat] += result.scores[seat]
        for seat in result.winners:
            wins[seat] += 1  # a shared win counts for every winner
        if progress and (number + 1) % max(1, games // 50) == 0:
            done = (number + 1) / games
            sys.stderr.write(f"\r[{'#' * int(done * 40):<40}] {number + 1}/{games}")
            sys.stderr.flush()
    seconds = time.perf_counter() - started
    if progress:
        sys.stderr.write("\n")
    return {
        "game": game.name,
        "players": players,
        "games": games,
        "seed": seed,
        "bots": bots,
        "actions": actions,
        "seconds": round(seconds, 3),
        "games_per_s": round(games / seconds, 1) if seconds else None,
        "actions_per_s": round(actions / seconds, 1) if seconds else None,
        "mean_score_by_seat": [round(s / games, 4) for s in score_sums],
        "win_rate_by_seat": [round(w / games, 4) for w in wins],
    }


def render(report: dict[str, Any]) -> str:
    lines = [
        f"{report['game']}: {report['games']} games, {report['players']} players, seed {report['seed']}",
        f"{report['actions']} actions in {report['seconds']} s: "
        f"{report['games_per_s']} games/s, {report['actions_per_s']} actions/s",
        "",
        f"{'seat':>4}  {'bot':<12} {'mean score':>10} {'win rate':>9}",
    ]
    for seat, bot in enumerate(report["bots"]):
        lines.append(
            f"{seat:>4}  {bot:<12} {report['mean_score_by_seat'][seat]:>10.3f} {report['win_rate_by_seat'][seat]:>8.1%}"
        )
    lines.append("(a shared win counts as a win for every winner)")
    return "\n".join(lines)
