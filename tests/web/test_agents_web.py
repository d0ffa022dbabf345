"""The bot author's page in a real browser: register an agent
(token shown once), pause, resume, run a sparring series and read its
report (answer-time chart, strikes by reason), delete."""

from __future__ import annotations

import httpx

from tests.web.conftest import sign_up, unique_name


def test_bot_author_registers_spars_and_deletes(page, live):
    sign_up(page, unique_name("author"))
    page.get_by_role("link", name="My agents").click()
    page.get_by_role("heading", name="Register an agent").wait_for()
    name = unique_name("bot")
    page.get_by_label("Agent name").fill(name)
    page.get_by_label("Mode").select_option("pull")
    page.get_by_role("button", name="Register agent").click()
    token = page.get_by_label("Bot token")
    page.wait_for_function("() => document.getElementById('created-token').value !== ''")
    # The token is shown once, and it is the agent's own credential.
    me = httpx.get(live.base_url + "/api/v1/agents/me", headers={"Authorization": f"Bearer {token.input_value()}"})
    assert me.status_code == 200 and me.json()["name"] == name
    agent_id = me.json()["agent_id"]
    card = page.get_by_role("listitem", name=name)
    card.get_by_role("button", name="Pause").click()
    card.get_by_text("Status: paused").wait_for()
    card.get_by_role("button", name="Resume").click()
    card.get_by_text("Status: active").wait_for()

    # A sparring series: the pull agent never connects, so its turns time out
    # (100 ms per move): strikes by reason, then a house bot plays the seat.
    card.get_by_text("Sparring", exact=True).click()
    card.get_by_label("Games in the series").fill("1")
    card.get_by_label("House bot").select_option("random")
    card.get_by_label("Time per move (s)").fill("0.1")
    card.get_by_role("button", name="Run a sparring series").click()
    card.get_by_role("button", name="Report").click()
    report = card.get_by_role("region", name="Sparring report")
    report.get_by_role("table", name="Strikes by reason").get_by_role("row", name="timeout").wait_for()
    page.wait_for_function("() => !document.querySelector('.report .hint')", timeout=60_000)  # the series is done
    cookies = {c["name"]: c["value"] for c in page.context.cookies()}
    with httpx.Client(base_url=live.base_url, cookies=cookies) as http:
        series = http.get(f"/api/v1/agents/{agent_id}/sparring").json()
        api_report = http.get(f"/api/v1/agents/{agent_id}/sparring/{series[0]['sparring_id']}").json()
    assert api_report["status"] == "done" and api_report["strikes"]["by_reason"]["timeout"] >= 1
    # The chart draws one bar per bucket of the report's histogram, with its count.
    chart = report.get_by_role("img", name="Answer times")
    bars = chart.locator("rect.bar")
    histogram = api_report["answer_time_ms"]["histogram"]
    assert bars.count() == len(histogram)
    assert [int(bars.nth(i).get_attribute("data-count")) for i in range(bars.count())] == [
        b["count"] for b in histogram
    ]
    strikes = api_report["strikes"]
    expected = f"{strikes['total']} strikes; {strikes['games_handed_to_bot']} games handed to a house bot"
    report.get_by_text(expected).wait_for()

    page.once("dialog", lambda dialog: dialog.accept())
    card.get_by_role("button", name="Delete").click()
    page.get_by_text(f"{name} was deleted.").wait_for()
    assert page.get_by_role("listitem", name=name).count() == 0
    assert (
        httpx.get(
            live.base_url + "/api/v1/agents/me", headers={"Authorization": f"Bearer {token.input_value()}"}
        ).status_code
        == 401
    )
