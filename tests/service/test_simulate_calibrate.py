"""`hanamichi simulate --calibrate` (issue 17): a bare pure-Python Kabuki
Tricks playout as the yardstick, each game's random playouts per second
beside it, timed in the same run."""

from __future__ import annotations

import json
import random
import subprocess
import sys

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
