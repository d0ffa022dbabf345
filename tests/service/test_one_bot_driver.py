"""One driver at a time for a table's house bots, over every process of
`serve --processes 2` and its worker (tests/service/two_processes.py).

A house bot that thinks longer than the worker's stall threshold
(timers.STALL_S) is not stalled: its driver holds the table's lease
(services/infra/leases.py), so the worker's sweep leaves the table alone
instead of driving it a second time. When the process holding the lease
dies, the lease lapses and another process takes the table over."""

from __future__ import annotations

import re
import time
import uuid

import redis

from services.app.games.timers import STALL_S
from services.infra import keys as K
from tests.service.two_processes import two_api_processes_with_worker  # noqa: F401 - the fixture

# Longer than the stall threshold by more than the sweep's period (5 s), so
# a sweep always runs while a bot thinks.
BOT_DELAY_MS = 9_000
assert BOT_DELAY_MS / 1000 > STALL_S + 5


def _until(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def test_a_thinking_bot_keeps_its_one_driver_and_a_dead_driver_is_taken_over(
    two_api_processes_with_worker,  # noqa: F811
    redis_url,
):
    serve = two_api_processes_with_worker
    with serve.fresh_client() as http:
        token = http.post("/api/v1/players", json={"name": f"host-{uuid.uuid4().hex[:8]}"}).json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        r = http.post(
            "/api/v1/games", json={"game": "kabuki-tricks", "players": 3, "bot_delay_ms": BOT_DELAY_MS}, headers=auth
        )
        assert r.status_code == 201, r.text
        game_id = r.json()["game_id"]
        assert http.post(f"/api/v1/games/{game_id}/seats", json={"seat": 0}, headers=auth).status_code == 200
        for seat in (1, 2):
            r = http.post(f"/api/v1/games/{game_id}/bots", json={"seat": seat, "bot": "random"}, headers=auth)
            assert r.status_code == 200, r.text

        def info():
            return http.get(f"/api/v1/games/{game_id}", headers=auth).json()

        moves = iter(range(1000))

        def until_the_bots_think() -> dict:
            """The person plays while they may: then only bots may act."""
            now = info()
            assert now["status"] == "playing"
            while 0 in now["to_act"]:
                r = http.post(
                    f"/api/v1/games/{game_id}/actions",
                    headers=auth,
                    json={"action": now["legal_actions"][0], "command_id": f"m{next(moves)}"},
                )
                assert r.status_code == 200, r.text
                # Read our own write: the other process's copy of the table
                # may lag the one that took the move by a notice.
                written = r.json()["version"]
                now = _until(lambda w=written: (lambda i: i if i["version"] >= w else None)(info()), 10, "our move")
            return now

        waiting = until_the_bots_think()

        # A bot thinks for BOT_DELAY_MS: a sweep runs meanwhile, and finds
        # the table driven (without the lease it said "stalled ... driving it
        # from here" and drove the table from the worker too).
        _until(lambda: (lambda i: i if i["version"] > waiting["version"] else None)(info()), 30, "a bot's move")
        stalled = re.compile(rf"table {game_id} stalled with no driver")
        assert not stalled.search(serve.output), serve.output[-3000:]

        # The next bot thinks; its driver's process dies: the lease lapses and
        # another process drives the table on (the worker's sweep, or the
        # replacement API process resuming the tables in play).
        moved = until_the_bots_think()
        store = redis.Redis.from_url(redis_url)
        try:
            holder = _until(lambda: store.get(K.driver_lease_key(game_id)), 10, "the driver's lease")
        finally:
            store.close()
        pid = int(holder.decode().split(":")[1])
        assert pid in serve.pids, (pid, serve.pids)
        serve.kill(pid)
        _until(lambda: info()["version"] > moved["version"], 60, "the table driven on after its driver died")
