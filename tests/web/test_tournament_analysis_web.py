"""A tournament's games are analysed when their round ends, and their
replays show it: on a stack of its own with round-end analyses on (the
session's server asks for them only on request), a one-round tournament of
a program and house bots is played through; its table's analysis is queued
by the round's end, not by any reader (a look, `?request=false`, never
finds it missing), a worker process runs it, and the replay page shows the
graph and each move's judgement without being asked, at 1280 and 360 px.
Screenshots: test-artifacts/tournament-analysis-1280.png and -360.png."""

from __future__ import annotations

import re
import time

import httpx
import pytest
from playwright.sync_api import expect

from tests.service.own_stack import own_stack
from tests.web.test_accessibility_web import WIDER_THAN_SCREEN
from tests.web.test_tournament_web import one_round_played


@pytest.fixture(scope="module")
def analysing(servers, server_env, tmp_path_factory):
    with own_stack(
        servers,
        server_env,
        tmp_path_factory.mktemp("tournament-analysis"),
        with_worker=True,
        HANAMICHI_ANALYSE_ON_REQUEST_ONLY="0",
    ) as server:
        yield server


def _analysed(http: httpx.Client, gid: str, timeout: float = 180) -> dict:
    """Looks until the analysis is done; every look finds it queued, running or done."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r = http.get(f"/api/v1/games/{gid}/analysis", params={"request": "false"})
        assert r.status_code in (200, 202), f"the round's end did not queue {gid}: {r.status_code} {r.text}"
        if r.status_code == 200:
            return r.json()
        time.sleep(0.5)
    raise AssertionError(f"the analysis of {gid} did not finish")


def test_a_finished_tournaments_games_are_analysed_and_their_replays_show_it(analysing, new_context, artifacts):
    with httpx.Client(base_url=analysing.base_url, timeout=30) as http:
        tid = one_round_played(http, table_size=3, fill_to=3)
        (table,) = http.get(f"/api/v1/tournaments/{tid}/rounds/1").json()["tables"]
        gid = table["game_id"]
        analysis = _analysed(http, gid)
        assert analysis["game_id"] == gid and analysis["game"] == "kabuki-tricks"

    context = new_context(base_url=analysing.base_url, viewport={"width": 1280, "height": 800})
    page = context.new_page()
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/analysis" in r.url else None)
    first = min(j["version"] for j in analysis["moves"])
    page.goto(f"/games/{gid}/replay?at={first}")
    page.get_by_role("heading", name="Replay: Kabuki Tricks").wait_for()
    region = page.get_by_role("region", name="Analysis")
    graph = region.get_by_role("img", name=re.compile("projected score"))
    expect(graph).to_be_visible()
    expect(region.get_by_role("button", name="Analyse the game")).to_have_count(0)
    assert region.locator("svg.analysis-graph path.seat-line").count() == 3
    verdict = region.locator("#an-move")
    expect(verdict).to_have_attribute("data-at", str(first))
    j = next(j for j in analysis["moves"] if j["version"] == first)
    expect(verdict).to_contain_text("Best move." if j["loss"] <= analysis["method"]["margin"] else "Best was ")
    for figures in analysis["seats"]:
        seat = region.locator(f'.an-seats li[data-seat="{figures["seat"]}"]')
        expect(seat.locator(".an-accuracy")).to_contain_text(f"of {figures['decisions']} decisions")
    page.screenshot(path=str(artifacts / "tournament-analysis-1280.png"), full_page=True)
    page.set_viewport_size({"width": 360, "height": 740})
    expect(graph).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360, page.evaluate(WIDER_THAN_SCREEN)
    box = graph.bounding_box()
    assert box and box["width"] <= 360, box
    page.get_by_role("button", name="Step forward").click()
    expect(verdict).to_have_attribute("data-at", str(first + 1))
    page.screenshot(path=str(artifacts / "tournament-analysis-360.png"), full_page=True)
    # The page only looked: nobody's request was counted or queued by it.
    assert asked and all(url.endswith("?request=false") for url in asked), asked
