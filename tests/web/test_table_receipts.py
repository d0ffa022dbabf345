"""The table page keeps the player's receipts (docs/fairness.md, "A log
nobody can quietly rewrite"): the chain head of each accepted move and of
each `turn` event, in localStorage, offered on the finished game as a
"Download my receipts" file that matches the export's hashes."""

from __future__ import annotations

import json
import time
from pathlib import Path

from tests.web.conftest import sign_up, unique_name
from tests.web.test_table_play import click_one_move, new_table


def test_a_finished_game_offers_the_players_receipts_and_they_match_the_export(new_context):
    page = new_context(viewport={"width": 1280, "height": 900}).new_page()
    sign_up(page, unique_name("Rei"))
    gid = new_table(page, "Kabuki Tricks", 3, ["random", "random"])
    moves = page.get_by_role("region", name="Your moves")
    result = page.get_by_role("heading", name="Result")
    deadline = time.monotonic() + 90
    while not result.is_visible():
        assert time.monotonic() < deadline, "no result"
        if not click_one_move(page, moves):
            page.wait_for_timeout(30)
    link = page.get_by_role("link", name="Download my receipts")
    with page.expect_download() as download:
        link.click()
    receipts = json.loads(Path(download.value.path()).read_text())
    assert receipts and all(set(r) == {"version", "chain_head"} for r in receipts)
    export = page.request.get(f"/api/v1/games/{gid}/export").text()
    hashes = {line["version"]: line["hash"] for line in map(json.loads, export.splitlines())}
    assert all(hashes[r["version"]] == r["chain_head"] for r in receipts)
