""" "Play again" (POST /api/v1/games/{id}/rematch) over HTTP at two API
processes, each request on a fresh connection: the people of a finished
game asking at once get one table with the same seats and a house bot where
it sat; a kept seat is for its person only; asking again changes nothing."""

from __future__ import annotations

import asyncio
import random
import uuid

from tests.service.client import ApiClient, play_randomly
from tests.service.two_processes import shared_two_api_processes

two_api_processes = shared_two_api_processes  # the session's serve: the test kills no process

GAME = "kabuki-tricks"


async def _finished_game(host: ApiClient, guest: ApiClient, game_id: str, rng: random.Random) -> dict:
    await asyncio.gather(play_randomly(host, game_id, rng), play_randomly(guest, game_id, rng))
    info = await host.game(game_id)
    assert info["status"] == "finished", info["status"]
    return info


async def test_the_people_of_a_finished_game_play_it_again_with_the_same_seats(two_api_processes):  # noqa: F811
    base = two_api_processes.base_url
    answered: set[str] = set()
    tag = uuid.uuid4().hex[:6]
    host, guest, outsider = [
        await ApiClient.register(base, f"again-{tag}-{n}", fresh_connections=True, answered=answered) for n in range(3)
    ]
    rng = random.Random(11)
    try:
        r = await host.post(
            "/api/v1/games", {"game": GAME, "players": 3, "options": {}, "ranked": False, "bot_delay_ms": 0}
        )
        assert r.status_code == 201, r.text
        first = r.json()["game_id"]
        await host.sit(first, 0)
        r = await host.post(f"/api/v1/games/{first}/bots", {"seat": 1, "bot": "random"})
        assert r.status_code == 200, r.text
        await guest.sit(first, 2)
        # Not before its end.
        r = await host.post(f"/api/v1/games/{first}/rematch")
        assert r.status_code == 409 and r.json()["code"] == "game_not_finished", r.text
        finished = await _finished_game(host, guest, first, rng)
        assert finished["rematch"] is None

        r = await outsider.post(f"/api/v1/games/{first}/rematch")
        assert r.status_code == 403 and r.json()["code"] == "not_at_table", r.text

        # Both ask at once, each possibly at another process: one table.
        a, b = await asyncio.gather(
            host.post(f"/api/v1/games/{first}/rematch"), guest.post(f"/api/v1/games/{first}/rematch")
        )
        assert a.status_code == 200 and b.status_code == 200, (a.text, b.text)
        again = a.json()["game_id"]
        assert b.json()["game_id"] == again != first
        info = await host.game(again)
        assert info["status"] == "playing", "every seat taken: dealt"
        assert [(s["kind"], s["name"] if s["kind"] != "bot" else s["bot"]) for s in info["seats"]] == [
            ("human", host.name),
            ("bot", "random"),
            ("human", guest.name),
        ]
        assert info["your_seat"] == 0 and info["options"] == finished["options"]
        assert (await guest.game(first))["rematch"] == again
        # Asking again answers the same table and opens no other.
        r = await guest.post(f"/api/v1/games/{first}/rematch")
        assert r.status_code == 200 and r.json()["game_id"] == again

        # The rematch played to its end; now only its host asks: the guest's
        # seat is kept for the guest, not for anyone else.
        await _finished_game(host, guest, again, rng)
        r = await host.post(f"/api/v1/games/{again}/rematch")
        assert r.status_code == 200, r.text
        third = r.json()["game_id"]
        assert r.json()["status"] == "open" and r.json()["you_created"]
        r = await outsider.post(f"/api/v1/games/{third}/seats", {})
        assert r.status_code == 403 and r.json()["code"] == "seat_kept", r.text
        r = await guest.post(f"/api/v1/games/{third}/seats", {"seat": 1})
        assert r.status_code == 403 and r.json()["code"] == "seat_kept", r.text
        assert (await host.game(third))["status"] == "open", "a refusal changes nothing"
        r = await guest.post(f"/api/v1/games/{again}/rematch")
        assert r.status_code == 200 and r.json()["game_id"] == third
        assert r.json()["status"] == "playing" and r.json()["your_seat"] == 2
        assert len(answered) == 2, f"both API processes answered: {answered}"
    finally:
        for client in (host, guest, outsider):
            await client.close()
