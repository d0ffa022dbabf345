"""`hanamichi ratings evaluate` (services/tools/ratings_eval.py): on a
league of house bots of known strength, every rating model predicts the
held-out games better than chance, no better than knowing the strengths
allows, and orders random below heuristic within 20 games per player."""

from __future__ import annotations

import json
import subprocess
import sys

from services.tools.ratings_eval import _tau, evaluate, league


def test_every_model_beats_chance_and_orders_the_bots_within_20_games() -> None:
    games = league("kabuki-tricks", 3, 240, ["random", "heuristic"], per_class=3, seed=4)
    report = evaluate(games, held_out=0.3)
    assert report["held_out"] == 72 and report["trained_on"] == 168
    ceiling, naive = report["ceiling"], report["naive"]
    assert ceiling is not None and ceiling["pairwise_error"] < naive["pairwise_error"] == 0.5
    assert len(report["models"]) == 6
    for name, m in report["models"].items():
        assert m["pairwise_error"] < 0.45, (name, m)
        assert m["winner_log_loss"] < naive["winner_log_loss"], (name, m)
        assert m["kendall_tau"] > 0.1, (name, m)
        # Luck bounds what any model can see: none is far past knowing the strengths.
        assert m["pairwise_error"] > ceiling["pairwise_error"] - 0.1, (name, m)
        assert m["order_settled_after"] is not None and m["order_settled_after"] <= 20, (name, m)


def test_kendall_tau_counts_agreement_and_ties() -> None:
    game = [("a", 1), ("b", 2), ("c", 3)]
    assert _tau([3.0, 2.0, 1.0], game) == 1.0
    assert _tau([1.0, 2.0, 3.0], game) == -1.0
    assert _tau([1.0, 1.0, 1.0], game) == 0.0


def test_the_cli_prints_the_same_report_as_json() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "services.cli",
            "ratings",
            "evaluate",
            "--games",
            "60",
            "--bots",
            "random,heuristic",
            "--per-class",
            "2",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    report = json.loads(out)
    assert report["games"] == 60 and set(report["models"]) >= {"plackett-luce", "thurstone-mosteller (no drift)"}
