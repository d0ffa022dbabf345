"""Tournaments in a real browser: a person registers for a
one-round tournament of bots from its page, plays their table through by
clicking, and sees the final ranking on the tournament page; a knockout
draws its bracket, a duplicate round shows who held the same cards.
Screenshots go to tests/web/artifacts/ (gitignored)."""

from __future__ import annotations

import random
import time
from pathlib import Path

import httpx
from playwright.sync_api import expect

from tests.web.conftest import sign_up, unique_name
from tests.web.test_table_play import click_one_move

SHOTS = Path(__file__).parent / "artifacts"


def _organiser(http: httpx.Client) -> dict:
    player = http.post("/api/v1/players", json={"name": unique_name("org")}).json()
    return {"Authorization": f"Bearer {player['token']}"}


def _play_through(http: httpx.Client, tid: str, auth: dict, timeout: float = 60) -> None:
    """The registered program plays its seat at each of its tables (random
    legal moves) until the tournament ends; house bots play the rest."""
    rng = random.Random(7)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        summary = http.get(f"/api/v1/tournaments/{tid}").json()
        if summary["status"] in ("finished", "cancelled"):
            return
        acted = False
        if summary["status"] == "running":
            for table in http.get(f"/api/v1/tournaments/{tid}/rounds/{summary['round']}").json()["tables"]:
                if table["result"]:
                    continue
                info = http.get(f"/api/v1/games/{table['game_id']}", headers=auth).json()
                if info.get("legal_actions"):
                    http.post(
                        f"/api/v1/games/{table['game_id']}/actions",
                        headers=auth,
                        json={
                            "action": rng.choice(info["legal_actions"]),
                            "command_id": f"{info['version']}-{rng.random()}",
                            "expected_version": info["version"],
                        },
                    )
                    acted = True
        if not acted:
            time.sleep(0.05)
    raise AssertionError(f"tournament {tid} did not end")


def _create(http: httpx.Client, auth: dict, **fields) -> str:
    r = http.post("/api/v1/tournaments", json={"game": "kabuki-tricks", "ranked": False, **fields}, headers=auth)
    assert r.status_code == 201, r.text
    return r.json()["tournament_id"]


def _wait_status(http: httpx.Client, tid: str, status: str, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        summary = http.get(f"/api/v1/tournaments/{tid}").json()
        if summary["status"] == status:
            return summary
        time.sleep(0.1)
    raise AssertionError(f"tournament {tid} is not {status}: {summary}")


def one_round_played(http: httpx.Client, **fields) -> str:
    """A one-round Swiss tournament starting in 1.5 s, a registered program
    (random legal moves) and house bots at its tables, played to its end."""
    auth = _organiser(http)
    start_ms = int(time.time() * 1000) + 1500
    tid = _create(http, auth, start_ms=start_ms, format="swiss", rounds=1, fill_bot="random", **fields)
    assert http.post(f"/api/v1/tournaments/{tid}/registrations", headers=auth).status_code in (200, 201)
    _play_through(http, tid, auth)
    _wait_status(http, tid, "finished")
    return tid


def test_a_person_registers_plays_the_round_and_sees_the_final_ranking(new_context, live):
    name = unique_name("Tia")
    page = new_context(viewport={"width": 1280, "height": 900}).new_page()
    sign_up(page, name)
    with httpx.Client(base_url=live.base_url, timeout=30) as http:
        # One round, tables of 3, house bots fill the other two seats (fill_to).
        start_ms = int(time.time() * 1000) + 8000
        tid = _create(
            http,
            _organiser(http),
            start_ms=start_ms,
            format="swiss",
            rounds=1,
            table_size=3,
            fill_to=3,
            fill_bot="random",
            time_control={"move_ms": 30000, "bank_ms": 0},
        )
        page.goto(f"/tournaments/{tid}")
        page.get_by_role("heading", name="Kabuki Tricks tournament").wait_for()
        page.get_by_role("button", name="Register").click()
        page.get_by_role("button", name="Withdraw").wait_for()  # registered: the page offers the way back
        assert name in page.locator("#t-entrants").inner_text()
        status = page.locator("#t-status")
        expect(status).not_to_have_text(status.inner_text(), timeout=3000)  # the countdown ticks
        # The list knows it too: no second "Register" for this one.
        page.goto("/tournaments")
        card = page.locator("li.table-card").filter(has=page.locator(f'a[href="/tournaments/{tid}"]'))
        expect(card.get_by_text("Registered")).to_be_visible()
        expect(card.get_by_role("button", name="Register")).to_have_count(0)
        page.goto(f"/tournaments/{tid}")
        # The round starts; the page says so and leads to the person's table.
        go = page.get_by_role("link", name="Go to my table")
        go.wait_for(timeout=30_000)
        assert page.locator("li.table-card.mine").count() == 1
        # House bots read as they do at the table.
        expect(page.locator("#t-entrants")).to_contain_text("Bot (random) ")
        go.click()
        page.wait_for_url("**/games/*")
        moves = page.get_by_role("region", name="Your moves")
        result = page.get_by_role("heading", name="Result")
        deadline = time.monotonic() + 120
        while not result.is_visible():
            assert time.monotonic() < deadline, "the table did not finish"
            if not click_one_move(page, moves):
                page.wait_for_timeout(30)
        _wait_status(http, tid, "finished")
        page.goto(f"/tournaments/{tid}")
        ranking = page.get_by_role("table").filter(has=page.get_by_text("Final ranking"))
        ranking.wait_for()
        rows = ranking.locator("tbody tr")
        assert rows.count() == 3
        assert rows.locator("th").all_inner_texts().count(name) == 1
        assert page.locator("tr.mine").count() == 1  # the person's own line is marked
        assert page.locator("#t-status").inner_text() == "Finished"
        # The table, to replay: the rounds are fetched after the ranking shows, so wait for the link.
        expect(page.get_by_role("link", name="Replay")).to_have_count(1, timeout=15_000)
        SHOTS.mkdir(exist_ok=True)
        page.screenshot(path=str(SHOTS / "tournament-final.png"), full_page=True)


def test_a_knockout_draws_its_bracket_and_duplicate_shows_the_deal_groups(new_context, live):
    with httpx.Client(base_url=live.base_url, timeout=30) as http:
        auth = _organiser(http)
        soon = int(time.time() * 1000) + 2000
        # One registered program (playing by the API), house bots for the rest. Four
        # entrants at tables of two: two rounds of knockout.
        knockout = _create(http, auth, start_ms=soon, format="knockout", table_size=2, fill_to=4, fill_bot="random")
        duplicate = _create(
            http,
            auth,
            start_ms=soon,
            format="swiss",
            rounds=1,
            table_size=3,
            fill_to=6,
            fill_bot="random",
            duplicate=True,
        )
        for tid in (knockout, duplicate):
            assert http.post(f"/api/v1/tournaments/{tid}/registrations", headers=auth).status_code in (200, 201)
        _play_through(http, knockout, auth)
        _play_through(http, duplicate, auth)
        _wait_status(http, knockout, "finished")
        _wait_status(http, duplicate, "finished")
        page = new_context(viewport={"width": 1280, "height": 900}).new_page()
        page.goto(f"/tournaments/{knockout}")
        bracket = page.get_by_role("group", name="Bracket")
        bracket.wait_for()
        columns = bracket.locator(".bracket-round")
        assert columns.count() == 2
        assert (
            columns.nth(0).locator(".bracket-table").count() == 2
            and columns.nth(1).locator(".bracket-table").count() == 1
        )
        # Each first-round table sends one through, and they meet in the final.
        through = columns.nth(0).locator("li.through").all_inner_texts()
        final = columns.nth(1).locator("li").all_inner_texts()
        assert len(through) == 2 and len(final) == 2
        assert sorted(t.split(" · ")[0] for t in through) == sorted(t.split(" · ")[0] for t in final)
        assert columns.nth(1).locator("li.through").count() == 1
        SHOTS.mkdir(exist_ok=True)
        page.screenshot(path=str(SHOTS / "tournament-bracket.png"), full_page=True)

        page.goto(f"/tournaments/{duplicate}")
        group = page.get_by_role("table").filter(has=page.get_by_text("who held the same cards"))
        group.first.wait_for()
        tables = http.get(f"/api/v1/tournaments/{duplicate}/rounds/1").json()["tables"]
        groups = {t["deal_seed_group"] for t in tables}
        assert group.count() == len(groups)
        # In a group, the entrants in one seat of each table held the same cards: a row each.
        first = group.first
        assert first.locator("tbody tr").count() == 3
        assert first.locator("thead th").count() == 1 + sum(1 for t in tables if t["deal_seed_group"] == min(groups))
