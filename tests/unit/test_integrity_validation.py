"""The collusion screening's validation (services/tools/integrity_validation.py),
small: a planted feeder and its partner among honest house bots of several
strengths are flagged in every game, and no pair of two honest accounts is,
neither beside them nor in an honest-only league. The full-size figures
(`hanamichi integrity --validate`, 200 games a run) are in docs/fairness.md."""

from __future__ import annotations

import json
import subprocess
import sys

from services.app.integrity.feeding import SCREENED_GAMES
from services.tools.integrity_validation import validate


def test_the_planted_pair_is_flagged_and_no_honest_pair_is() -> None:
    v = validate(games=40, honest_runs=1, names=SCREENED_GAMES, seed=3, min_shared_games=5)
    assert [p.game for p in v.planted] == list(SCREENED_GAMES)
    for planted in v.planted:
        assert planted.flagged, planted
        assert planted.fed > planted.expected and planted.chances > 0, planted
    assert v.honest_pairs_screened > 100
    assert v.honest_pairs_flagged == 0 and v.false_positive_rate == 0.0


def test_the_validate_option_prints_its_figures_as_json() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "services.cli",
            "integrity",
            "--validate",
            "--game",
            "cahoots",
            "--games",
            "30",
            "--honest-runs",
            "1",
            "--min-games",
            "5",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    figures = json.loads(out.stdout)
    assert figures["planted"][0]["game"] == "cahoots" and figures["planted"][0]["flagged"] is True
    assert figures["honest_pairs_flagged"] == 0
