"""`hanamichi simulate --calibrate`: a bare pure-Python Kabuki
Tricks playout as the yardstick, each game's random playouts per second
beside it, timed in the same run."""

from __future__ import annotations

import json
import random
import subprocess
import sys

from engines.registry import all_games
from services.tools.simulate import bare_kabuki_tricks
from tests.conftest import ROOT


def test_the_bare_playout_plays_every_trick_of_every_round():
    for players, rounds in ((2, 4), (4, 4), (5, 5)):
        tricks = bare_kabuki_tricks(players, random.Random(players))
        assert len(tricks) == players and sum(tricks) == 7 * rounds


def test_calibrate_reports_every_game_against_the_bare_playout():
    out = subprocess.run(
        [sys.executable, "-m", "services.cli", "simulate", "--calibrate", "--seconds", "0.05", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["bare_kabuki_tricks_per_s"] > 0
    rows = {r["game"]: r for r in report["games"]}
    assert set(rows) == {"kabuki-tricks", "cahoots", "tezuma-trick", "kabuki-masks"}
    for row in rows.values():
        assert row["playouts_per_s"] > 0
        assert abs(row["ratio"] - row["playouts_per_s"] / report["bare_kabuki_tricks_per_s"]) < 0.01


def test_calibrate_times_each_game_with_its_own_game_and_options(monkeypatch):
    import services.tools.simulate as simulate

    played: list[tuple[str, object]] = []

    class RecordingPlayout:
        def __init__(self, game, players, options, seed, bots):
            self.game, self.options = game, options

        def run(self):
            played.append((self.game.name, self.options))

    leaned: list[tuple[str, object]] = []

    def lean_of(name):
        return lambda players, options, rng: leaned.append((name, options))

    monkeypatch.setattr(simulate, "Playout", RecordingPlayout)
    monkeypatch.setattr(simulate, "_lean_random_game", lean_of)
    report = simulate.calibrate(players=4, seconds=0.001)
    names = [r["game"] for r in report["games"]]
    options = {g.name: g.make_options({}) for g in all_games() if g.name in names}
    # Every timed playout of a game's row was of that game with its options.
    for calls in (played, leaned):
        assert [name for name, _ in calls] == sorted((n for n, _ in calls), key=names.index)
        assert {name for name, _ in calls} == set(names)
        assert all(opts == options[name] for name, opts in calls)
