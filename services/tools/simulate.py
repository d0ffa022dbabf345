"""`hanamichi simulate`: whole bot games in one process, with figures."""

from __future__ import annotations

import sys
import time
from typing import Any

from engines.core import Game
from engines.expert import make_bot
from engines.playout import Playout


def simulate(
    game: Game, players: int, games: int, seed: int, bots: list[str], options: dict, progress: bool
) -> dict[str, Any]:
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


# --- calibration: engines' random playouts against a bare yardstick ------------------


def bare_kabuki_tricks(players: int, rng) -> list[int]:
    """One Kabuki Tricks game of random play in bare pure Python: lists and
    ints, no events, no frozen states, no validation, no views. Dealer
    directs at random, follow suit, one Joker per hand (not leading, one per
    trick), the KT-5 strength table decides tricks; scoring is tricks won.
    It is the yardstick `calibrate` divides every engine's playouts by."""
    from engines.kabuki_tricks.cards import JOKER, ORDERS, STRENGTH, SUIT_OF, deck_for
    from engines.kabuki_tricks.rules import rounds_for

    deck = list(deck_for(players))
    tricks = [0] * players
    dealer = 0
    for _ in range(rounds_for(players)):
        rng.shuffle(deck)
        hands = [deck[7 * s : 7 * s + 7] + [JOKER + s] for s in range(players)]
        strength = STRENGTH[rng.random() < 0.5, rng.choice(ORDERS)]
        leader = dealer
        for _trick in range(7):
            cards: list[int] = []
            seats: list[int] = []
            joker_played = False
            for i in range(players):
                seat = (leader + i) % players
                hand = hands[seat]
                if not cards:
                    options = [c for c in hand if c < JOKER]
                else:
                    led = SUIT_OF[cards[0]]
                    options = [c for c in hand if c < JOKER and SUIT_OF[c] == led] or [c for c in hand if c < JOKER]
                    if not joker_played and hand[-1] >= JOKER:
                        options.append(hand[-1])
                card = options[int(rng.random() * len(options))] if options else hand[-1]
                hand.remove(card)
                joker_played = joker_played or card >= JOKER
                cards.append(card)
                seats.append(seat)
            best = 0
            for i in range(1, len(cards)):
                if strength[cards[i]] > strength[cards[best]]:
                    best = i
            leader = seats[best]
            tricks[leader] += 1
        dealer = (dealer + 1) % players
    return tricks


def _best_rate(run, seconds: float, repeats: int = 3) -> float:
    """Best of `repeats` runs of about `seconds` each: games per second."""
    best = 0.0
    for _ in range(repeats):
        games, started = 0, time.perf_counter()
        while time.perf_counter() - started < seconds:
            run(games)
            games += 1
        best = max(best, games / (time.perf_counter() - started))
    return best


def calibrate(players: int = 4, seconds: float = 1.0) -> dict[str, Any]:
    """Random playouts per second of every game through its engine (the
    simulator's path: frozen states, events, legal_actions, views) as a share
    of the bare Kabuki Tricks playout timed in the same run (best of 3)."""
    import random as _random

    from engines.registry import all_games

    bare = _best_rate(lambda n: bare_kabuki_tricks(players, _random.Random(n)), seconds)
    rows = []
    for game in all_games():
        if not game.min_players <= players <= game.max_players:
            continue
        options = game.make_options({})
        rate = _best_rate(
            lambda n, game=game, options=options: Playout(game, players, options, n, ["random"] * players).run(),
            seconds,
        )
        row = {"game": game.name, "playouts_per_s": round(rate, 1), "ratio": round(rate / bare, 3)}
        # The search's own representation (engines/<game>/lean.py), where the game has one.
        lean = _lean_random_game(game.name)
        if lean is not None:
            lean_rate = _best_rate(
                lambda n, lean=lean, options=options: lean(players, options, _random.Random(n)), seconds
            )
            row.update(lean_playouts_per_s=round(lean_rate, 1), lean_ratio=round(lean_rate / bare, 3))
        rows.append(row)
    return {"players": players, "bare_kabuki_tricks_per_s": round(bare, 1), "games": rows}


def _lean_random_game(name: str):
    """The game's lean random playout (its expert's Search), or None."""
    import importlib

    search = getattr(importlib.import_module(f"engines.{name.replace('-', '_')}.expert"), "SEARCH", None)
    return getattr(search, "lean_random_game", None)


def render_calibration(report: dict[str, Any]) -> str:
    lines = [
        f"bare pure-Python Kabuki Tricks playout, {report['players']} players: "
        f"{report['bare_kabuki_tricks_per_s']} games/s (best of 3)",
        f"{'game':<16} {'playouts/s':>11} {'ratio':>6} {'lean/s':>9} {'lean ratio':>10}",
    ]
    lines += [
        f"{r['game']:<16} {r['playouts_per_s']:>11} {r['ratio']:>6.3f} {r.get('lean_playouts_per_s', '-'):>9}"
        f" {r.get('lean_ratio', '-'):>10}"
        for r in report["games"]
    ]
    lines.append(
        "(ratio: the engine's random playouts per second over the bare playout's; lean: the expert's"
        " playout state, engines/<game>/lean.py; goal >= 0.4)"
    )
    return "\n".join(lines)
