"""Play now in a real browser, against two API processes: two people who
press "Play now" for the same game are seated at one table; a person alone
is seated with house bots once the wait ends (2 s in the tests); "Stop
waiting" takes a person out of the pool."""

from __future__ import annotations

import httpx
from playwright.sync_api import expect

from tests.service.two_processes import shared_two_api_processes
from tests.web.conftest import sign_up, unique_name

two_api_processes = shared_two_api_processes  # one serve for the module


def _person(new_context, base_url: str, prefix: str):
    page = new_context(base_url=base_url).new_page()
    sign_up(page, unique_name(prefix))
    return page


def _play_now(page, game: str, players: int, button: str = "Play now") -> None:
    card = page.get_by_role("article", name=game, exact=True)
    card.get_by_label("Players").select_option(str(players))
    card.get_by_role("button", name=button).click()


def test_two_people_are_paired_and_a_person_alone_gets_house_bots(two_api_processes, new_context):  # noqa: F811
    base = two_api_processes.base_url
    first, second = _person(new_context, base, "Qa"), _person(new_context, base, "Qb")
    _play_now(first, "Kabuki Tricks", 2)
    expect(first.locator("#play-now").get_by_role("status")).to_contain_text("Looking for players for Kabuki Tricks")
    _play_now(second, "Kabuki Tricks", 2)
    first.wait_for_url("**/games/*")
    second.wait_for_url("**/games/*")
    assert first.url == second.url
    gid = first.url.rsplit("/", 1)[1]
    info = httpx.get(f"{base}/api/v1/games/{gid}").json()
    assert info["ranked"] and sorted(s["kind"] for s in info["seats"]) == ["human", "human"]

    alone = _person(new_context, base, "Qc")
    _play_now(alone, "Cahoots", 4)
    alone.wait_for_url("**/games/*")
    info = httpx.get(f"{base}/api/v1/games/{alone.url.rsplit('/', 1)[1]}").json()
    assert sorted(s["kind"] for s in info["seats"]) == ["bot", "bot", "bot", "human"]


def test_stop_waiting_leaves_the_pool(two_api_processes, new_context):  # noqa: F811
    base = two_api_processes.base_url
    page = _person(new_context, base, "Qd")
    _play_now(page, "Kabuki (mask memory)", 6)
    status = page.locator("#play-now").get_by_role("status")
    status.get_by_role("button", name="Stop waiting").click()
    expect(status).to_have_text("You stopped waiting.")
    pools = httpx.get(f"{base}/api/v1/quick-play").json()["pools"]
    assert not any(p["game"] == "kabuki-masks" and p["players"] == 6 for p in pools)
    assert "/games/" not in page.url
