"""The replay viewer's analysis in Chromium: a finished
3-player Kabuki Tricks game of house bots, its replay opened; the Analysis
region shows the progress bar while GET .../analysis answers 202, then the
graph (an SVG with role img), each seat's accuracy as the API says it, the
three largest mistakes as links into the replay, and the judgement of the
move shown, which changes as the replay steps. At 1280 and 360 px wide
(nothing wider than the screen), with axe-core finding nothing serious.
Screenshots: tests/web/artifacts/replay-analysis-1280.png and -360.png."""

from __future__ import annotations

import math
import re
import time
from pathlib import Path

import httpx
from playwright.sync_api import expect

from tests.service.bot_tables import bot_table, wait_finished
from tests.web.test_accessibility_web import WIDER_THAN_SCREEN, axe_findings

SHOTS = Path(__file__).parent / "artifacts"


def _analysis(http: httpx.Client, gid: str, timeout: float = 180) -> dict:
    """The finished analysis, polled as the page polls it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r = http.get(f"/api/v1/games/{gid}/analysis")
        if r.status_code == 200:
            return r.json()
        assert r.status_code in (202, 429), r.text
        time.sleep(float(r.headers.get("Retry-After", 1)) if r.status_code == 429 else 1)
    raise AssertionError(f"the analysis of {gid} did not finish")


def _pct(x: float) -> str:
    # As Intl.NumberFormat rounds a half: up (Python's round() goes to even).
    return f"{math.floor(x * 100 + 0.5)}%"


def test_the_replay_shows_the_analysis_in_step_with_the_board(new_context, live):
    with httpx.Client(base_url=live.base_url, timeout=30) as http:
        gid, _ = bot_table(http, 3, delay_ms=0)
        wait_finished(http, gid)
        page = new_context(viewport={"width": 1280, "height": 800}, bypass_csp=True).new_page()
        page.goto(f"/games/{gid}/replay?at=0")
        page.get_by_role("heading", name="Replay: Kabuki Tricks").wait_for()
        region = page.get_by_role("region", name="Analysis")
        graph = region.get_by_role("img", name=re.compile("projected score"))
        # Asked for on a click (a replay opened to look costs no worker time).
        expect(region.get_by_role("progressbar")).to_have_count(0)
        region.get_by_role("button", name="Analyse the game").click()
        # The progress bar while it is queued or runs, or straight the result.
        expect(region.get_by_role("progressbar", name="Analysis progress").or_(graph)).to_be_visible(timeout=30_000)
        analysis = _analysis(http, gid)
        assert analysis["game_id"] == gid  # its seeds are the game's own
        expect(graph).to_be_visible(timeout=30_000)
        assert region.locator("svg.analysis-graph path.seat-line").count() == len(analysis["graph"][0]["expected"])
        # Each seat's accuracy, with the margin said.
        margin = f"{analysis['method']['margin']:.1f}"
        for figures in analysis["seats"]:
            seat = region.locator(f'.an-seats li[data-seat="{figures["seat"]}"]')
            expect(seat.locator(".an-accuracy")).to_contain_text(
                f"Accuracy: {_pct(figures['accuracy'])} of {figures['decisions']} decisions within {margin} points"
            )
            assert seat.locator(".an-mistakes a").count() == min(3, len(figures["largest"]))
        # In step with the board: the move shown is judged; stepping changes it.
        judged = {j["version"]: j for j in analysis["moves"]}
        first = min(judged)
        page.get_by_role("slider", name="Move").fill(str(first))
        verdict = region.locator("#an-move")
        expect(verdict).to_have_attribute("data-at", str(first))
        expect(verdict).to_contain_text(f"Move {first}:")
        j = judged[first]
        expect(verdict).to_contain_text("Best move." if j["loss"] <= analysis["method"]["margin"] else "Best was ")
        before = verdict.inner_text()
        page.get_by_role("button", name="Step forward").click()
        expect(verdict).to_have_attribute("data-at", str(first + 1))
        assert verdict.inner_text() != before
        marker = region.locator("#an-marker")
        x_first = float(marker.get_attribute("x1") or 0)
        # A largest mistake's link jumps the replay (board and marker) there.
        mistakes = [m for f in analysis["seats"] for m in f["largest"]]
        if mistakes:
            m = mistakes[0]
            region.locator(".an-mistakes a").first.click()
            expect(page.locator("#board")).to_have_attribute("data-at", str(m["version"]))
            expect(verdict).to_contain_text(f"Move {m['version']}:")
            expect(verdict).to_contain_text("Best was " if m["loss"] > analysis["method"]["margin"] else "Best move.")
            assert float(marker.get_attribute("x1") or 0) != x_first or m["version"] == first + 1
        SHOTS.mkdir(exist_ok=True)
        page.screenshot(path=str(SHOTS / "replay-analysis-1280.png"), full_page=True)
        problems = [f"at 1280: {p}" for p in axe_findings(page)]
        page.set_viewport_size({"width": 360, "height": 740})
        page.wait_for_timeout(200)
        if page.evaluate("document.documentElement.scrollWidth") > 360:
            problems.append(f"wider than 360 px: {page.evaluate(WIDER_THAN_SCREEN)}")
        box = graph.bounding_box()
        assert box and box["width"] <= 360, box
        page.screenshot(path=str(SHOTS / "replay-analysis-360.png"), full_page=True)
        problems += [f"at 360: {p}" for p in axe_findings(page)]
        assert not problems, "\n".join(problems)


def test_a_game_in_progress_says_when_its_analysis_comes_and_asks_for_none(new_context, live):
    with httpx.Client(base_url=live.base_url, timeout=30) as http:
        gid, _ = bot_table(http, 3, delay_ms=600)
        page = new_context().new_page()
        asked: list[str] = []
        page.on("request", lambda r: asked.append(r.url) if r.url.endswith("/analysis") else None)
        page.goto(f"/games/{gid}/replay")
        page.get_by_role("heading", name="Replay: Kabuki Tricks").wait_for()
        region = page.get_by_role("region", name="Analysis")
        expect(region).to_contain_text("The analysis is available once the game has ended.")
        expect(region.get_by_role("progressbar")).to_have_count(0)
        assert http.get(f"/api/v1/games/{gid}").json()["status"] == "playing"
        page.wait_for_timeout(1500)
        assert asked == []  # no polling of a game being played
