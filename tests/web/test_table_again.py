"""The end of a game, in a real browser: "Play again" opens one table with
the same seats (the other person is asked and takes their seat with the same
button; the house bot sits where it sat) and "New opponents" goes back to
Play now, where the lobby shows the wait and "Stop waiting" ends it."""

from __future__ import annotations

import random
import time

import httpx
from playwright.sync_api import expect

from tests.web.conftest import unique_name

PASSWORD = "correct horse battery"


def _person(http: httpx.Client) -> dict:
    name = unique_name("Again")
    me = http.post("/api/v1/players", json={"name": name, "password": PASSWORD}).json()
    return {"name": name, "token": me["token"], "auth": {"Authorization": f"Bearer {me['token']}"}}


def _signed_in(new_context, person: dict):
    page = new_context().new_page()
    page.goto("/signin")
    page.get_by_label("Name").fill(person["name"])
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/")
    return page


def _play_to_the_end(http: httpx.Client, gid: str, people: list[dict]) -> None:
    rng = random.Random(5)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        moved = False
        for person in people:
            info = http.get(f"/api/v1/games/{gid}", headers=person["auth"]).json()
            if info["status"] == "finished":
                return
            if info["legal_actions"]:
                body = {"action": rng.choice(info["legal_actions"]), "expected_version": info["version"]}
                body["command_id"] = f"{person['name']}-{info['version']}"
                http.post(f"/api/v1/games/{gid}/actions", headers=person["auth"], json=body)
                moved = True
        if not moved:
            time.sleep(0.02)  # the house bot's turn
    raise AssertionError("the game did not finish")


def test_play_again_seats_the_same_people_and_new_opponents_goes_to_play_now(new_context, live):
    with httpx.Client(base_url=live.base_url, timeout=30) as http:
        ann, bob = _person(http), _person(http)
        r = http.post(
            "/api/v1/games", json={"game": "kabuki-tricks", "players": 3, "bot_delay_ms": 0}, headers=ann["auth"]
        )
        gid = r.json()["game_id"]
        assert http.post(f"/api/v1/games/{gid}/seats", json={"seat": 0}, headers=ann["auth"]).status_code == 200
        r = http.post(f"/api/v1/games/{gid}/bots", json={"seat": 1, "bot": "random"}, headers=ann["auth"])
        assert r.status_code == 200
        assert http.post(f"/api/v1/games/{gid}/seats", json={"seat": 2}, headers=bob["auth"]).status_code == 200
        _play_to_the_end(http, gid, [ann, bob])

        a = _signed_in(new_context, ann)
        a.goto(f"/games/{gid}")
        expect(a.get_by_role("heading", name="Result")).to_be_visible()
        expect(a.get_by_role("link", name="Watch the replay")).to_be_visible()
        a.get_by_role("button", name="Play again").click()
        a.wait_for_url(lambda url: "/games/" in url and gid not in url)
        again = a.url.rsplit("/", 1)[1]
        expect(a.locator("#turn-line")).to_have_text("Waiting for players.")
        info = http.get(f"/api/v1/games/{again}").json()
        assert info["status"] == "open"
        assert [s["taken"] for s in info["seats"]] == [True, True, False]
        assert info["seats"][1]["bot"] == "random"

        b = _signed_in(new_context, bob)
        b.goto(f"/games/{gid}")
        expect(b.get_by_text("Someone from this game wants to play it again")).to_be_visible()
        b.get_by_role("button", name="Play again").click()
        b.wait_for_url(f"**/games/{again}")
        # Every seat taken: dealt; the first page follows it live.
        expect(a.locator("#turn-line")).not_to_have_text("Waiting for players.")
        info = http.get(f"/api/v1/games/{again}", headers=bob["auth"]).json()
        assert info["status"] == "playing" and info["your_seat"] == 2

        # New opponents: Play now with this game and player count.
        b.goto(f"/games/{gid}")
        b.get_by_role("button", name="New opponents").click()
        b.wait_for_url("**/#play-now")
        stop = b.get_by_role("button", name="Stop waiting")
        expect(stop).to_be_visible()
        pools = http.get("/api/v1/quick-play").json()["pools"]
        assert any(p["game"] == "kabuki-tricks" and p["players"] == 3 and p["waiting"] >= 1 for p in pools), pools
        stop.click()
        expect(b.get_by_role("button", name="Stop waiting")).to_have_count(0)
