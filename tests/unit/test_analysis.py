"""The post-game analysis (services/app/analysis): decisions judged
open-hand against positions whose best move the engine alone can tell,
reproducible figures, the planted blunder found, and `hanamichi analyse`
over an export file."""

from __future__ import annotations

import json
import subprocess
import sys

import msgspec
import pytest

from engines.core import Ctx
from engines.kabuki_masks.events import Stopped
from engines.registry import get_game, get_search
from services.app.analysis import analyse
from services.app.analysis.judge import MARGIN, NotAnalysable, engine_log
from services.app.analysis.masks import MasksReview
from services.app.analysis.selfplay import bot_game_log
from services.app.integrity.replay import moves_from_log
from services.tools.analysis_validation import _blunder_game, validate_game

TRICK_GAMES = ["kabuki-tricks", "tezuma-trick", "cahoots"]


def _lead(scores, seat: int) -> float:
    return scores[seat] - max(x for i, x in enumerate(scores) if i != seat)


def _forced_to_the_end(game, search, state, start_round):
    """The state at the analysis's horizon (the round's end; Cahoots: the
    deal's) when every move left before it is forced (one legal move for
    whoever acts), else None."""
    left = search.judged_rounds
    while not game.is_over(state):
        if search.round_of(state) != start_round:
            left -= 1
            if not left:
                break
            start_round = search.round_of(state)
        movers = sorted(game.waiting_for(state))
        legal = game.legal_actions(state, movers[0]) if movers else []
        if len(movers) != 1 or len(legal) != 1:
            return None
        state = game.fold(game.decide(state, movers[0], legal[0], Ctx(0)), state)
    return state


@pytest.mark.parametrize("name", TRICK_GAMES)
def test_a_move_with_only_forced_moves_after_it_is_judged_by_the_score_it_gives(name):
    """A move after which every move left in the round is forced (the last
    real choice of its last tricks) has an exact value: the engine's own
    scores at the round's end, with nothing to guess. The analysis must name
    the move that gives the best margin as best and charge the played move
    exactly the margin it lost (KT-5, CH-5, the Tezuma scoring: whatever the
    rules say, the engine computes it)."""
    game, search = get_game(name), get_search(name)
    checked = 0
    for seed in (11, 12, 13):
        if checked >= 2:
            break
        log = bot_game_log(game, ["random"] * 3, seed)
        judged = {j.version: j for j in analyse("hand-made", log, worlds=0).moves}
        for move in moves_from_log(game, log):
            j = judged.get(move.version)
            if j is None:
                continue  # a forced move
            start = search.round_of(move.before)
            leads = {}
            for action in game.legal_actions(move.before, move.seat):
                after = game.fold(game.decide(move.before, move.seat, action, Ctx(0)), move.before)
                end = _forced_to_the_end(game, search, after, start)
                if end is None:
                    break
                leads[msgspec.json.encode(action)] = _lead(search.scores(end), move.seat)
            else:
                best = max(leads.values())
                assert leads[msgspec.json.encode(game.decode_action(j.best))] == best
                assert j.loss == pytest.approx(best - leads[msgspec.json.encode(move.action)])
                checked += 1
    assert checked >= 2


def test_the_same_game_gives_the_same_figures():
    game = get_game("kabuki-tricks")
    log = bot_game_log(game, ["expert", "heuristic", "random"], 5)
    first, again = analyse("same", log, worlds=4), analyse("same", log, worlds=4)
    assert msgspec.json.encode(first) == msgspec.json.encode(again)
    assert first.moves and all(j.loss >= 0 for j in first.moves)
    assert any(j.knew_loss is not None for j in first.moves)
    for seat in first.seats:
        assert 0 <= seat.accuracy <= 1
        assert [m.loss for m in seat.largest] == sorted((m.loss for m in seat.largest), reverse=True)
        mine = [j for j in first.moves if j.seat == seat.seat and j.own]
        assert seat.accuracy == pytest.approx(sum(j.loss <= MARGIN for j in mine) / len(mine), abs=1e-3)
    assert len(first.graph) >= len(first.moves)


@pytest.mark.parametrize("name", TRICK_GAMES)
def test_a_planted_blunder_is_the_seats_largest_mistake(name):
    """A seat that plays the open-hand best but once throws away 2 points or
    more of margin (services/tools/analysis_validation.py, `Blunderer`):
    the analysis finds that move, where it is, as the seat's largest."""
    game = get_game(name)
    outcomes = [_blunder_game(game, seed) for seed in range(2)]
    planted = [found for was_planted, found in outcomes if was_planted]
    assert planted and all(planted), outcomes


def test_on_the_same_decisions_the_expert_loses_least_and_random_most():
    """The judge of the judge, on a sample small enough for the suite (8
    Kabuki Tricks games, seed 1; `hanamichi analyse --validate` runs 200 of
    each game): at every decision each kind of bot is asked what it would
    play, and the open-hand losses of their choices must order them, each
    paired difference's 95% interval above 0."""
    figures = validate_game("kabuki-tricks", games=8, seed=1, blunders=0)
    losses = {k.kind: k.mean_loss for k in figures.kinds}
    assert losses["expert"] < losses["heuristic"] < losses["random"], losses
    for label, mean, (low, _) in figures.differences:
        assert low > 0, (label, mean, low)
    assert len({k.decisions for k in figures.kinds}) == 1  # the same decisions for every kind


def test_a_game_that_has_not_finished_is_not_analysed():
    game = get_game("cahoots")
    log = bot_game_log(game, ["random"] * 3, 2)[:-1]  # no hm.game_finished
    with pytest.raises(NotAnalysable):
        analyse("running", log)


def test_the_cli_analyses_an_export(tmp_path):
    game = get_game("kabuki-tricks")
    log = bot_game_log(game, ["heuristic"] * 3, 3)
    export = tmp_path / "g-cli.ndjson"
    export.write_text(
        "".join(json.dumps({"version": e.version, "type": e.type, "event": json.loads(e.data)}) + "\n" for e in log)
    )
    run = subprocess.run(
        [sys.executable, "-m", "services.cli", "analyse", str(export), "--json", "--progress-lines", "--worlds", "1"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["game"] == "kabuki-tricks" and out["game_id"] == "g-cli"
    assert out == json.loads(msgspec.json.encode(analyse("g-cli", log, worlds=1)))
    progress = [line.split() for line in run.stderr.splitlines() if line.startswith("progress ")]
    assert progress[-1][1] == progress[-1][2] == str(len(out["graph"]))
    bad = tmp_path / "bad.ndjson"
    bad.write_text("not json\n")
    refused = subprocess.run(
        [sys.executable, "-m", "services.cli", "analyse", str(bad)], capture_output=True, text=True, check=False
    )
    assert refused.returncode == 2 and "cannot analyse" in refused.stderr


def test_the_mask_review_agrees_with_every_stop_the_engine_resolved():
    """Each Stop's `matches` is the engine's own count of matching cards
    beneath (KM-4): the review must find the same count for that placement,
    name the same caller, and count every call as right or wrong."""
    game = get_game("kabuki-masks")
    log = bot_game_log(game, ["random", "heuristic", "expert"], 6)
    result = analyse("masks", log, worlds=0)
    review = msgspec.convert(result.masks, MasksReview)
    by_placement = {p.placement: p for p in review.placements}
    stops = [e for e in engine_log(game, log) if isinstance(e[1], Stopped)]
    assert stops
    for _, stop in stops:
        placed = by_placement[stop.placement]
        assert (placed.matches, placed.called_by, placed.placer) == (stop.matches, stop.caller, stop.placer)
        assert stop.caller in placed.could_know and stop.placer not in placed.could_know
    for seat in review.seats:
        calls = [s for _, s in stops if s.caller == seat.seat]
        assert seat.right_stops == sum(s.matches > 0 for s in calls)
        assert seat.wrong_stops == sum(s.matches == 0 for s in calls)
        assert 0 <= seat.memory_accuracy <= 1
    never_called = [p for p in review.placements if p.called_by is None and p.matches > 0]
    assert sum(s.missed_stops for s in review.seats) == sum(len(p.could_know) for p in never_called)
