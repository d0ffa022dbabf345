"""No table traps anyone, in a real browser: the New table form seats house
bots at the other seats by default; a person leaves a game in progress
("Leave the game", then "Leave" in the confirmation) and a house bot plays
the seat on; the creator seats a bot at an open seat ("Add a bot") and
cancels a table not dealt yet ("Cancel table")."""

from __future__ import annotations

import time

import httpx
from playwright.sync_api import expect

from tests.web.conftest import sign_up, unique_name
from tests.web.test_table_play import new_table


def _info(live, gid: str) -> dict:
    return httpx.get(f"{live.base_url}/api/v1/games/{gid}").json()


def _until(check, what: str, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def test_leaving_a_game_in_progress_hands_the_seat_to_a_bot_and_the_game_goes_on(page, live):
    name = unique_name("Lea")
    sign_up(page, name)
    form = page.get_by_role("form", name="New table")
    form.get_by_label("Game").select_option(label="Kabuki Tricks")
    form.get_by_label("Players").fill("3")
    form.get_by_label("Players").dispatch_event("change")
    # The other seats default to the catalog's default house bot.
    assert form.get_by_label("Seat 2").input_value() == "heuristic"
    assert form.get_by_label("Seat 3").input_value() == "heuristic"
    form.get_by_role("button", name="Create table").click()
    page.wait_for_url("**/games/*")
    gid = page.url.rsplit("/", 1)[1]
    info = _info(live, gid)
    assert [s["bot"] for s in info["seats"]] == [None, "heuristic", "heuristic"]
    assert info["status"] == "playing"

    page.get_by_role("button", name="Leave the game").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name="Leave").click()
    expect(page.get_by_role("button", name="Leave the game")).to_have_count(0)
    seat = _info(live, gid)["seats"][0]
    assert seat["bot"] == "heuristic" and seat["kind"] == "human"
    # The game goes on without the person, who is ranked last.
    finished = _until(lambda: (i := _info(live, gid))["status"] == "finished" and i, "the bots to finish")
    assert finished["result"]["forfeited"] == [0]
    assert finished["result"]["table_places"][0] == 3
    expect(page.get_by_role("heading", name="Result")).to_be_visible()


def test_the_creator_adds_a_bot_at_an_open_seat_and_cancels_the_table(page, live):
    sign_up(page, unique_name("Can"))
    gid = new_table(page, "Kabuki Tricks", 4, ["", "", ""])  # every other seat open for a person
    add = page.get_by_role("button", name="Add a bot")
    expect(add).to_have_count(3)
    add.first.click()
    expect(add).to_have_count(2)
    assert [s["taken"] for s in _info(live, gid)["seats"]] == [True, True, False, False]
    assert _info(live, gid)["seats"][1]["kind"] == "bot"

    page.get_by_role("button", name="Cancel table").click()
    expect(page.get_by_text("This table was cancelled by the player who created it.")).to_be_visible()
    expect(page.get_by_role("button", name="Add a bot")).to_have_count(0)
    expect(page.get_by_role("button", name="Leave the game")).to_have_count(0)
    assert _info(live, gid)["status"] == "cancelled"
