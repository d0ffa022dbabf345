"""A person's time bank: at a table whose time control has one, a move slower
than move_ms is paid from it instead of being played for the seat, the clock
of `GET /api/v1/games/{id}` shows what is left, the same in both API
processes, and a turn later than the move and what is left is played for the
seat (`timeout`) and spends the bank."""

from __future__ import annotations

import asyncio

import pytest

from tests.conftest import WorkerProcess
from tests.service.client import ApiClient
from tests.service.two_processes import FreshClients, TwoApiProcesses

pytestmark = pytest.mark.asyncio(loop_scope="session")

MOVE_MS, BANK_MS = 1000, 2000


async def _my_turn(person: ApiClient, game_id: str, from_version: int) -> dict:
    """The table once it is the person's turn at `from_version` or later."""
    for _ in range(1000):
        info = await person.game(game_id)
        if info["legal_actions"] and info["version"] >= from_version and info["clock"]:
            return info
        if info["status"] == "finished":
            break
        await asyncio.sleep(0.01)
    raise AssertionError("the person's turn never came")


def _my_clock(info: dict) -> dict:
    return next(c for c in info["clock"] if c["seat"] == info["your_seat"])


async def _banks_shown(person: ApiClient, game_id: str, version: int, serve: TwoApiProcesses) -> set[int]:
    """The person's bank left as every API process shows it at `version`."""
    shown: dict[str, int] = {}
    for _ in range(200):
        r = await person.get(f"/api/v1/games/{game_id}")
        info = r.json()
        assert info["version"] == version, info
        shown[r.headers["x-api-process"]] = _my_clock(info)["bank_ms"]
        if set(shown) == set(map(str, serve.pids)):
            return set(shown.values())
    raise AssertionError(f"only {sorted(shown)} answered")


async def _played_for(person: ApiClient, game_id: str) -> list[dict]:
    events = (await person.get(f"/api/v1/games/{game_id}/events", after=0)).json()["events"]
    return [e for e in events if e["event"]["type"] == "hm.move_played_for_seat"]


@pytest.fixture
def serve_with_worker(session_two_api_processes, server_env, tmp_path):
    """The session's two API processes (tests/conftest.py; the test kills
    none) and a worker of the test's own beside them, taking jobs before the
    test starts (the deadline that plays for the seat is its job)."""
    worker = WorkerProcess(server_env, tmp_path / "worker.log").start()
    yield session_two_api_processes
    worker.stop()


async def test_a_slow_move_is_paid_from_the_persons_bank(serve_with_worker):
    serve = serve_with_worker
    crowd = FreshClients(serve)
    try:
        person = await crowd.register("slow-thinker")
        r = await person.post(
            "/api/v1/games",
            {"game": "kabuki-tricks", "players": 4, "time_control": {"move_ms": MOVE_MS, "bank_ms": BANK_MS}},
        )
        assert r.status_code == 201, r.text
        game_id = r.json()["game_id"]
        await person.sit(game_id, 0)
        for seat in (1, 2, 3):
            assert (
                await person.post(f"/api/v1/games/{game_id}/bots", {"seat": seat, "bot": "random"})
            ).status_code == 200

        first = await _my_turn(person, game_id, 1)
        assert _my_clock(first)["bank_ms"] == BANK_MS, first["clock"]
        # 1.5 s: past the move's second, within the bank.
        await asyncio.sleep(1.5)
        r = await person.act(game_id, first["legal_actions"][0], expected_version=first["version"])
        assert r.status_code == 200, r.text + "\n" + serve.output[-3000:]
        assert await _played_for(person, game_id) == []

        # The next turn's clock: about 500 ms went from the bank (plus the
        # page's and the move's own latency on a loaded machine), and both
        # processes read it from the log.
        second = await _my_turn(person, game_id, r.json()["version"])
        banks = await _banks_shown(person, game_id, second["version"], serve)
        assert len(banks) == 1 and 1000 <= min(banks) <= 1500, banks
        (left,) = banks

        # Now no move: the turn lasts the move's time and what is left of the bank.
        clock = _my_clock(second)
        due_ms = clock["deadline_ms"] + left
        await asyncio.sleep(max(0, due_ms - 300 - second["server_time_ms"]) / 1000)
        assert await _played_for(person, game_id) == [], "played for the seat before its bank ran out"
        for _ in range(500):
            played = await _played_for(person, game_id)
            if played:
                break
            await asyncio.sleep(0.01)
        assert [(e["event"]["seat"], e["event"]["reason"]) for e in played] == [(0, "timeout")]
        assert played[0]["version"] > second["version"]

        # The timeout spent the rest of the bank.
        third = await _my_turn(person, game_id, played[0]["version"])
        assert _my_clock(third)["bank_ms"] == 0, third["clock"]
    finally:
        await crowd.close_and_check_both_answered()
