"""Play now over HTTP with two API processes (each request on a fresh
connection, so either process answers): two people are seated together
whichever process each asks, a person in two tabs holds one ticket, a
lone person gets house bots once the wait ends (2 s in the tests) or at
once with bots_now, and a withdrawal and bad requests answer clearly."""

from __future__ import annotations

import asyncio
import time

import pytest

from tests.service.client import ApiClient
from tests.service.two_processes import shared_two_api_processes

two_api_processes = shared_two_api_processes  # one serve for the module


pytestmark = pytest.mark.asyncio(loop_scope="session")

GAME = "kabuki-tricks"


async def _people(base_url: str, answered: set[str], *names: str) -> list[ApiClient]:
    return [await ApiClient.register(base_url, n, fresh_connections=True, answered=answered) for n in names]


async def _seated(person: ApiClient, ticket_id: str, within_s: float = 20.0) -> dict:
    """The ticket once seated: polled as the page polls it, once a second at most."""
    deadline = time.monotonic() + within_s
    while True:
        r = await person.get(f"/api/v1/quick-play/{ticket_id}")
        assert r.status_code == 200, r.text
        if r.json()["status"] == "seated" or time.monotonic() > deadline:
            return r.json()
        await asyncio.sleep(min(1.0, max(0.05, (r.json()["fill_at_ms"] or 0) / 1000 - time.time())))


async def test_two_people_asking_different_processes_are_seated_together(two_api_processes) -> None:  # noqa: F811
    answered: set[str] = set()
    first, second = await _people(two_api_processes.base_url, answered, "qp-first", "qp-second")
    r = await first.post("/api/v1/quick-play", {"game": GAME, "players": 2})
    assert r.status_code == 200, r.text
    waiting = r.json()
    assert waiting["status"] == "waiting" and waiting["waiting"] >= 1
    r = await second.post("/api/v1/quick-play", {"game": GAME, "players": 2})
    assert r.status_code == 200, r.text
    theirs = r.json()
    mine = await _seated(first, waiting["ticket_id"])
    if theirs["status"] != "seated":
        theirs = await _seated(second, theirs["ticket_id"])
    assert mine["game_id"] == theirs["game_id"] and {mine["seat"], theirs["seat"]} == {0, 1}
    table = (await first.get(f"/api/v1/games/{mine['game_id']}")).json()
    assert table["ranked"] and table["status"] == "playing"
    assert {s["name"] for s in table["seats"]} == {first.name, second.name}
    assert len(answered) == 2  # both processes took part


async def test_two_tabs_hold_one_ticket_and_a_lone_person_gets_bots(two_api_processes) -> None:  # noqa: F811
    answered: set[str] = set()
    [person] = await _people(two_api_processes.base_url, answered, "qp-tabs")
    one, two = await asyncio.gather(
        person.post("/api/v1/quick-play", {"game": "cahoots", "players": 4}),
        person.post("/api/v1/quick-play", {"game": "cahoots", "players": 4}),
    )
    assert one.status_code == two.status_code == 200, (one.text, two.text)
    assert one.json()["ticket_id"] == two.json()["ticket_id"]
    seated = await _seated(person, one.json()["ticket_id"])
    assert seated["status"] == "seated"
    table = (await person.get(f"/api/v1/games/{seated['game_id']}")).json()
    kinds = sorted(s["kind"] for s in table["seats"])
    assert kinds == ["bot", "bot", "bot", "human"]


async def test_bots_now_withdrawal_and_refusals(two_api_processes) -> None:  # noqa: F811
    answered: set[str] = set()
    hurried, patient, other = await _people(two_api_processes.base_url, answered, "qp-now", "qp-wait", "qp-other")
    body = {"game": "tezuma-trick", "players": 3, "bots_now": True, "client_seed": "hurried's own"}
    r = await hurried.post("/api/v1/quick-play", body)
    assert r.status_code == 200 and r.json()["status"] == "seated", r.text
    # The ticket's client seed is in the deal (docs/fairness.md, "Client seeds").
    seated = r.json()
    events = (await hurried.get(f"/api/v1/games/{seated['game_id']}/events", after=0)).json()["events"]
    seeded = next(e["event"] for e in events if e["event"]["type"] == "hm.deal_seeded")
    assert seeded["client_seeds"][seated["seat"]] == "hurried's own"
    assert seeded["commitment"] == (await hurried.game(seated["game_id"]))["commitment"]
    r = await patient.post("/api/v1/quick-play", {"game": "kabuki-masks", "players": 6})
    ticket = r.json()["ticket_id"]
    pools = (await patient.get("/api/v1/quick-play")).json()["pools"]
    assert {"game": "kabuki-masks", "players": 6, "waiting": 1} in pools
    assert (await other.get(f"/api/v1/quick-play/{ticket}")).status_code == 404  # not theirs
    r = await patient.http.delete(f"/api/v1/quick-play/{ticket}", headers=patient.headers)
    assert r.status_code == 200 and r.json()["status"] == "withdrawn", r.text
    r = await patient.post("/api/v1/quick-play", {"game": "no-such-game", "players": 2})
    assert r.status_code == 422 and r.json()["code"] == "unknown_game", r.text
    r = await patient.post("/api/v1/quick-play", {"game": GAME, "players": 9})
    assert r.status_code in (400, 422), r.text
    r = await patient.http.post("/api/v1/quick-play", json={"game": GAME, "players": 2})
    assert r.status_code == 401
