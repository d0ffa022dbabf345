"""The caps on what one account holds at once (services/app/caps.py),
through a real server started with small caps: each is refused past its
limit with its code and a message, and the slot comes back when a table
finishes or an agent is deleted or a series' games end. With two API
processes, two requests for the last slot sent at the same moment on fresh
connections give exactly one success."""

from __future__ import annotations

import random
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.conftest import ServerProcess, free_test_port
from tests.service.client import ApiClient, play_randomly
from tests.service.two_processes import PROCESS_HEADER, TwoApiProcesses

asyncio_test = pytest.mark.asyncio(loop_scope="session")

GAME = "kabuki-tricks"
CAPS = {
    "HANAMICHI_MAX_OPEN_TABLES_PER_PLAYER": "2",
    "HANAMICHI_MAX_BOT_SEATS_PER_PLAYER": "3",
    "HANAMICHI_MAX_EXPERT_SEATS_PER_PLAYER": "1",
    "HANAMICHI_MAX_AGENTS_PER_PLAYER": "2",
    "HANAMICHI_MAX_SPARRING_PER_PLAYER": "1",
}


@pytest.fixture(scope="module")
def capped(server_env):
    proc = ServerProcess(free_test_port(), dict(server_env, **CAPS))
    proc.start()
    yield proc
    proc.stop()


async def _person(base_url: str, prefix: str) -> ApiClient:
    return await ApiClient.register(base_url, f"{prefix}-{uuid.uuid4().hex[:6]}")


def _refused(r: httpx.Response, code: str, words: str) -> None:
    assert r.status_code == 429, (r.status_code, r.text)
    body = r.json()
    assert body["code"] == code, body
    assert words in body["message"], body


async def _until_finished(client: ApiClient, game_id: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while (await client.game(game_id))["status"] != "finished":
        assert time.monotonic() < deadline, f"{game_id} did not finish"
        await play_randomly(client, game_id, random.Random(7))


@asyncio_test
async def test_open_tables_are_capped_and_a_finished_table_frees_its_slot(capped):
    host = await _person(capped.base_url, "tables")
    first = await host.create_game(GAME, 2)
    await host.create_game(GAME, 2)
    r = await host.post("/api/v1/games", {"game": GAME, "players": 2})
    _refused(r, "too_many_open_tables", "You already have 2 open tables")
    # Nothing was created by the refusal, and other people are not held to this one's count.
    other = await _person(capped.base_url, "tables-other")
    await other.create_game(GAME, 2)
    # The host plays the first table through against a house bot: it finishes, the slot is free.
    await host.sit(first, 0)
    r = await host.post(f"/api/v1/games/{first}/bots", {"seat": 1, "bot": "random"})
    assert r.status_code == 200, r.text
    await _until_finished(host, first)
    r = await host.post("/api/v1/games", {"game": GAME, "players": 2})
    assert r.status_code == 201, r.text
    r = await host.post("/api/v1/games", {"game": GAME, "players": 2})
    _refused(r, "too_many_open_tables", "2 open tables")


@asyncio_test
async def test_bot_seats_and_expert_bots_are_capped_across_the_hosts_unfinished_tables(capped):
    host = await _person(capped.base_url, "bots")
    a = await host.create_game(GAME, 3)
    b = await host.create_game(GAME, 3)

    async def seat(game_id: str, seat: int, bot: str) -> httpx.Response:
        return await host.post(f"/api/v1/games/{game_id}/bots", {"seat": seat, "bot": bot})

    assert (await seat(a, 0, "random")).status_code == 200
    assert (await seat(b, 0, "expert")).status_code == 200
    _refused(await seat(b, 1, "expert"), "too_many_bot_seats", "1 expert bot")
    assert (await seat(a, 1, "random")).status_code == 200
    _refused(await seat(b, 1, "random"), "too_many_bot_seats", "3 house bots")
    assert (await host.game(b))["seats"][1]["taken"] is False  # the refusal seated nobody
    # The host takes table a's last seat and plays it through: its two bots no longer count.
    await host.sit(a, 2)
    await _until_finished(host, a)
    assert (await seat(b, 1, "random")).status_code == 200


@asyncio_test
async def test_agents_are_capped_and_deleting_one_frees_its_slot(capped):
    owner = await _person(capped.base_url, "agents")

    async def register(n: int) -> httpx.Response:
        return await owner.post(
            "/api/v1/agents", {"name": f"cap-{uuid.uuid4().hex[:6]}-{n}", "games": [GAME], "mode": "pull"}
        )

    made = [await register(n) for n in range(2)]
    assert [r.status_code for r in made] == [201, 201], [r.text for r in made]
    _refused(await register(2), "too_many_agents", "You already have 2 agents")
    r = await owner.http.delete(f"/api/v1/agents/{made[0].json()['agent_id']}", headers=owner.headers)
    assert r.status_code == 200, r.text
    assert (await register(3)).status_code == 201
    _refused(await register(4), "too_many_agents", "2 agents")


@asyncio_test
async def test_sparring_series_are_capped_until_their_games_finish(capped):
    owner = await _person(capped.base_url, "sparring")
    r = await owner.post("/api/v1/agents", {"name": f"spar-{uuid.uuid4().hex[:6]}", "games": [GAME], "mode": "pull"})
    assert r.status_code == 201, r.text
    agent_id, agent = r.json()["agent_id"], ApiClient(capped.base_url, token=r.json()["token"])
    series = {"game": GAME, "games": 1, "players": 2, "bot": "random"}
    r = await owner.post(f"/api/v1/agents/{agent_id}/sparring", series)
    assert r.status_code == 201, r.text
    (game_id,) = r.json()["game_ids"]
    _refused(await owner.post(f"/api/v1/agents/{agent_id}/sparring", series), "too_many_sparring", "1 sparring series")
    # The (pull) agent plays its game through: the series is over, the slot is free.
    await _until_finished(agent, game_id)
    r = await owner.post(f"/api/v1/agents/{agent_id}/sparring", series)
    assert r.status_code == 201, r.text


def test_the_last_slot_taken_at_once_through_both_processes_goes_to_one_request(server_env):
    caps = {name: "1" for name in CAPS}
    serve = TwoApiProcesses(dict(server_env, **caps))
    try:
        serve.wait_serving()
        _race_for_the_last_slot(serve)
    finally:
        serve.stop()


def _race_for_the_last_slot(serve: TwoApiProcesses) -> None:
    def post(path: str, body: dict, auth: dict[str, str]) -> httpx.Response:
        with serve.fresh_client() as own:
            return own.post(path, json=body, headers=auth)

    def race(path: str, bodies: list[dict], auth: dict[str, str], code: str) -> tuple[dict, set[str]]:
        """Both requests at once, each on its own connection: one wins, one is refused with `code`."""
        answers = list(pool.map(post, [path] * 2, bodies, [auth] * 2))
        won = [r for r in answers if r.status_code in (200, 201)]
        lost = [r for r in answers if r.status_code == 429]
        assert len(won) == 1 and len(lost) == 1, [(r.status_code, r.text) for r in answers]
        assert lost[0].json()["code"] == code, lost[0].text
        return won[0].json(), {r.headers[PROCESS_HEADER] for r in answers}

    crossed = 0
    with serve.fresh_client() as http, ThreadPoolExecutor(2) as pool:
        for attempt in range(12):
            r = http.post("/api/v1/players", json={"name": f"race-{attempt}-{uuid.uuid4().hex[:6]}"})
            assert r.status_code == 201, r.text
            auth = {"Authorization": f"Bearer {r.json()['token']}"}
            table = {"game": GAME, "players": 3}
            created, by = race("/api/v1/games", [table, table], auth, "too_many_open_tables")
            bots = [{"seat": 0, "bot": "random"}, {"seat": 1, "bot": "random"}]
            _, seated_by = race(f"/api/v1/games/{created['game_id']}/bots", bots, auth, "too_many_bot_seats")
            agents = [{"name": f"ra-{uuid.uuid4().hex[:8]}", "games": [GAME], "mode": "pull"} for _ in range(2)]
            agent, registered_by = race("/api/v1/agents", agents, auth, "too_many_agents")
            series = {"game": GAME, "games": 1, "players": 2, "bot": "random"}
            _, started_by = race(
                f"/api/v1/agents/{agent['agent_id']}/sparring", [series, series], auth, "too_many_sparring"
            )
            crossed += sum(len(b) > 1 for b in (by, seated_by, registered_by, started_by))
            if crossed >= 6:
                break
    assert crossed >= 6, "the two requests seldom reached both processes: the test proves little"
