"""The tournament form sends `fill_bot`: the house bot that fills
seats, chosen on the form like every other field of POST /api/v1/tournaments."""

from __future__ import annotations

import re

import httpx

from tests.web.conftest import sign_up, unique_name


def test_the_tournament_form_creates_a_tournament_filled_by_the_chosen_bot(page, live):
    sign_up(page, unique_name("fill-bot"))
    page.goto("/tournaments")
    choice = page.get_by_label("fill_bot")
    assert choice.input_value() == "heuristic"  # the API's default, shown first
    choice.select_option("expert")
    page.locator("#create-form").evaluate("form => form.requestSubmit()")
    page.wait_for_url(re.compile(r"/tournaments/[0-9a-f-]{36}$"))
    tournament_id = page.url.rsplit("/", 1)[1]
    settings = httpx.get(f"{live.base_url}/api/v1/tournaments/{tournament_id}", timeout=10).json()["settings"]
    assert settings["fill_bot"] == "expert"
