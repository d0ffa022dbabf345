"""`hanamichi arena` against a deliberately buggy bot: every
illegal answer, exception and timeout is reported, and each one's
`--replay SEED:STEP` reproduces it; seats rotate; the request is exactly the
service's JSON."""

from __future__ import annotations

import json
import subprocess
import sys

import msgspec
import pytest

from engines.registry import get_game
from services.kit.arena import arena, load_player, play_games
from tests.conftest import ROOT

BASE = ["--game", "kabuki-tricks", "--players", "4", "--vs", "heuristic", "--seed", "5", "--deadline-ms", "20"]


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "services.cli", "arena", "tests/service/buggy_bot.py:act", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_arena_reports_each_failure_kind_with_a_working_replay():
    out = _cli(*BASE, "--games", "4", "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert list(report) == [
        "games",
        "win_rate",
        "win_rate_ci95",
        "mean_score",
        "mean_score_ci95",
        "mean_score_by_seat",
        "move_ms_p50",
        "move_ms_p99",
        "illegal",
        "errors",
        "failures",
    ]
    assert report["games"] == 4
    kinds = {f["kind"] for f in report["failures"]}
    assert kinds == {"exception", "illegal", "timeout"}
    assert report["illegal"] == sum(1 for f in report["failures"] if f["kind"] == "illegal") > 0
    assert report["errors"] == sum(1 for f in report["failures"] if f["kind"] != "illegal") > 0
    low, high = report["win_rate_ci95"]
    assert 0 <= low <= report["win_rate"] <= high <= 1
    for kind in ("exception", "illegal", "timeout"):
        failure = next(f for f in report["failures"] if f["kind"] == kind)
        again = _cli(*BASE, "--replay", f"{failure['seed']}:{failure['step']}", "--json")
        assert again.returncode == 1, again.stdout + again.stderr  # the failure reproduces
        found = json.loads(again.stdout)
        assert found["seed"] == failure["seed"] and found["step"] == failure["step"]
        assert found["request"]["game"] == "kabuki-tricks" and found["request"]["legal_actions"]
        if kind == "exception":
            assert "ZeroDivisionError: buggy bot" in found["error"]
        elif kind == "illegal":
            assert found["answer"] == {"type": "play", "card": 9999} and found["legal"] is False
        else:
            assert found["late"] is True and found["ms"] > 20


def test_arena_rotates_the_seat_and_sends_the_services_json():
    game = get_game("cahoots")
    options = game.make_options({})
    seen: list[dict] = []

    def act(request: dict):
        seen.append(request)
        return request["legal_actions"][-1]

    records = play_games(act, game, 3, options, 9, range(6), ["heuristic", "heuristic"])
    assert [r["seat"] for r in records] == [(9 * 1_000_003 + k) % 3 for k in range(6)]
    assert {r["seat"] for r in records} == {0, 1, 2}
    assert all(r["failures"] == [] for r in records)
    first = seen[0]
    assert list(first) == ["game", "game_id", "seat", "version", "view", "legal_actions", "deadline_ms", "time_bank_ms"]
    # The view is the seat's own view, as the push call encodes it (msgspec JSON).
    from engines.playout import Playout

    playout = Playout(game, 3, options, 9 * 1_000_003, ["heuristic"] * 3)
    seat = first["seat"]
    while seat not in game.to_act(playout.state):
        playout.step()
    assert first["view"] == json.loads(msgspec.json.encode(game.view(playout.state, seat)))


def test_arena_holds_the_seat_it_is_given_and_reports_the_mean_score_with_its_interval():
    game = get_game("kabuki-tricks")
    seats: set[int] = set()

    def act(request: dict):
        seats.add(request["seat"])
        return request["legal_actions"][0]

    records = play_games(act, game, 4, game.make_options({}), 3, range(5), ["heuristic"] * 3, fixed_seat=2)
    assert [r["seat"] for r in records] == [2] * 5 and seats == {2}
    report = arena("examples/agent.py:act", "kabuki-tricks", 4, 6, 3, ["heuristic"] * 3, fixed_seat=1)
    scores = [
        r["score"]
        for r in play_games(
            load_player("examples/agent.py:act"),
            game,
            4,
            game.make_options({}),
            3,
            range(6),
            ["heuristic"] * 3,
            fixed_seat=1,
        )
    ]
    assert report["mean_score"] == round(sum(scores) / len(scores), 4)
    low, high = report["mean_score_ci95"]
    assert low <= report["mean_score"] <= high and (low < high or len(set(scores)) == 1)
    assert report["mean_score_by_seat"][1] == report["mean_score"]
    assert all(report["mean_score_by_seat"][s] is None for s in (0, 2, 3))
    with pytest.raises(ValueError, match="--seat"):
        arena("examples/agent.py:act", "kabuki-tricks", 4, 1, 3, ["heuristic"] * 3, fixed_seat=4)
    cli = subprocess.run(
        [
            sys.executable,
            "-m",
            "services.cli",
            "arena",
            "examples/agent.py:act",
            "--game",
            "kabuki-tricks",
            "--seat",
            "7",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert cli.returncode == 2 and "--seat is a seat of the table: 0 to 3" in cli.stderr


def test_arena_seats_other_functions_against_the_authors_and_reports_only_the_authors(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("def act(request):\n    raise RuntimeError('an opponent that always fails')\n")
    seen_seats: set[int] = set()
    game = get_game("kabuki-tricks")

    def act(request: dict):
        seen_seats.add(request["seat"])
        return request["legal_actions"][0]

    # A against B: B's failures are B's (the default move is played for it), none is the author's.
    records = play_games(act, game, 3, game.make_options({}), 4, range(3), [f"{broken}:act", "house:heuristic"])
    assert all(r["failures"] == [] for r in records) and len(seen_seats) > 1
    # Self-play: the example agent in every seat.
    report = arena("examples/agent.py:act", "kabuki-tricks", 3, 4, 4, ["examples/agent.py:act"] * 2)
    assert report["games"] == 4 and report["errors"] == report["illegal"] == 0
    out = _cli("--game", "kabuki-tricks", "--players", "4", "--games", "1", "--vs", "no_such_module:act")
    assert out.returncode == 2 and "--vs" in out.stderr
    out = _cli("--game", "kabuki-tricks", "--players", "4", "--games", "1", "--vs", "nobody")
    assert out.returncode == 2 and "a house bot among" in out.stderr


def test_arena_jobs_give_the_same_figures_as_one_process():
    one = arena("examples/agent.py:act", "kabuki-tricks", 4, 8, 2, ["heuristic"] * 3, jobs=1)
    two = arena("examples/agent.py:act", "kabuki-tricks", 4, 8, 2, ["heuristic"] * 3, jobs=2)
    for key in ("games", "win_rate", "win_rate_ci95", "mean_score_by_seat", "illegal", "errors", "failures"):
        assert one[key] == two[key], key


def test_arena_marks_kabuki_masks_stop_chances_optional_and_none_passes():
    """A Stop chance while another seat is awaited comes as the service's
    optional call (`optional: true`, time_bank_ms 0); None passes it without
    a failure, while a turn answered None is illegal (the default move)."""
    game = get_game("kabuki-masks")
    requests = []

    def act(request):
        requests.append(request)
        return None

    records = play_games(act, game, 3, game.make_options({}), 9, range(2), ["heuristic", "heuristic"])
    optional = [r for r in requests if r.get("optional")]
    turns = [r for r in requests if not r.get("optional")]
    assert optional and turns
    assert all(r["time_bank_ms"] == 0 and all(a["type"] == "stop" for a in r["legal_actions"]) for r in optional)
    failures = [f for rec in records for f in rec["failures"]]
    assert len(failures) == len(turns) and {f["kind"] for f in failures} == {"illegal"}


def test_arena_seats_a_house_bot_in_the_rotating_seat_and_times_it():
    """`house:expert` plays the author's seat (the expert's figures, docs/benchmarks.md)."""
    report = arena("house:expert", "kabuki-tricks", 4, 2, 3, ["heuristic"] * 3)
    assert report["games"] == 2 and report["illegal"] == report["errors"] == 0
    assert sum(s is not None for s in report["mean_score_by_seat"]) == 2  # two seats in turn
    assert report["move_ms_p50"] > 0 and 0 < report["move_cpu_ms_p50"] <= report["move_cpu_ms_p99"] < 80
