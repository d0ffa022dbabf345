"""A duplicate tournament's page shows the deal comparison (travellers) once
its round has ended: a table per seat of the deal with each table's score
and place, and "First difference" links that open both replays at the first
move where the tables' play of those cards differed; at 1280 and 360 px
(where the page must not scroll sideways)."""

from __future__ import annotations

import httpx
from playwright.sync_api import expect

from tests.web.test_tournament_web import one_round_played


def test_the_deal_comparison_links_both_replays_at_the_first_difference(new_context, live):
    with httpx.Client(base_url=live.base_url, timeout=30) as http:
        tid = one_round_played(http, table_size=2, fill_to=4, duplicate=True)
        answer = http.get(f"/api/v1/tournaments/{tid}/travellers").json()
    [group] = answer["groups"]
    seats = group["seats"]
    differing = [
        (i, j, line["first_difference"])
        for i, s in enumerate(seats)
        for j, line in enumerate(s["lines"])
        if line["first_difference"]
    ]
    # A person's random moves and a house bot's from one deal part somewhere.
    assert differing, answer

    for width, height in ((1280, 900), (360, 740)):
        page = new_context(viewport={"width": width, "height": height}).new_page()
        page.goto(f"/tournaments/{tid}")
        region = page.get_by_role("region", name="Deal comparison")
        expect(region).to_be_visible()
        tables = region.get_by_role("table")
        expect(tables).to_have_count(len(seats))
        for seat, table in zip(seats, tables.all(), strict=True):
            expect(table.locator("caption")).to_have_text(f"Cards of seat {seat['seat'] + 1}")
            rows = table.locator("tbody tr")
            expect(rows).to_have_count(len(seat["lines"]))
            for line, row in zip(seat["lines"], rows.all(), strict=True):
                cells = row.locator("td")
                expect(row.locator("th")).to_have_text(f"Table {line['table']}")
                expect(cells.nth(1)).to_have_text(f"{line['score']:g}")  # as JavaScript writes a number
                expect(cells.nth(2)).to_contain_text(str(line["place"]))
        firsts = region.get_by_role("link", name="First difference")
        expect(firsts).to_have_count(len(differing))
        assert sorted(a.get_attribute("href") for a in firsts.all()) == sorted(d["replay"] for _, _, d in differing)
        if width == 360:
            assert page.evaluate("document.documentElement.scrollWidth") <= 360
        # The link opens this table's replay at the differing move; the row's
        # other link, the other table's replay at its own.
        i, j, d = differing[0]
        row = tables.nth(i).locator("tbody tr").nth(j)
        row.get_by_role("link", name="First difference").click()
        page.wait_for_url(f"**{d['replay']}")
        expect(page.locator("#board")).to_have_attribute("data-at", str(d["version"]))
        page.go_back()
        other = row.get_by_role("link", name=f"table {d['against_table']}'s replay")
        expect(other).to_have_attribute("href", d["against_replay"])
        other.click()
        page.wait_for_url(f"**{d['against_replay']}")
        expect(page.locator("#board")).to_have_attribute("data-at", str(d["against_version"]))
        page.close()
