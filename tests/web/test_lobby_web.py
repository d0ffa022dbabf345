"""The lobby in a real browser: it lists tables and updates live;
the New table form creates a table with house bots."""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import expect

from tests.web.conftest import sign_up, unique_name


def test_lobby_lists_a_table_created_elsewhere_live(page, live):
    page.goto("/")
    page.get_by_role("heading", name="Open tables").wait_for()
    # Another program opens a table while the page is open: it appears
    # without a reload, with its seats and an invite link.
    with httpx.Client(base_url=live.base_url) as http:
        host = http.post("/api/v1/players", json={"name": unique_name("host")}).json()
        r = http.post(
            "/api/v1/games",
            json={"game": "cahoots", "players": 3, "ranked": True, "time_control": {"move_ms": 45_000, "bank_ms": 0}},
            headers={"Authorization": f"Bearer {host['token']}"},
        )
        gid = r.json()["game_id"]
        http.post(f"/api/v1/games/{gid}/seats", json={"seat": 0}, headers={"Authorization": f"Bearer {host['token']}"})
    card = page.locator(f'li[data-game-id="{gid}"]')
    card.wait_for()
    assert page.locator("#tables-open").locator(f'li[data-game-id="{gid}"]').count() == 1
    # The table and then its seat may come as two updates of the lobby's stream.
    expect(card.get_by_role("list", name="Seats")).to_contain_text(host["name"])
    text = card.inner_text()
    assert "Cahoots, 3 players" in text and "ranked" in text and "45 s per move" in text and host["name"] in text
    assert (
        card.get_by_role("link", name="Invite link to Cahoots, 3 players")
        .get_attribute("href")
        .endswith(f"/games/{gid}")
    )


def test_new_table_form_creates_a_table_with_bots(page, live):
    name = unique_name("Cy")
    sign_up(page, name)
    form = page.get_by_role("form", name="New table")
    form.get_by_label("Game").select_option(label="Kabuki (mask memory)")
    form.get_by_label("Players").fill("3")
    form.get_by_label("Players").dispatch_event("change")
    # Every catalog option is offered with its default.
    assert form.get_by_label("stop window (ms)").input_value() == "2000"
    assert form.get_by_label("bot memory").input_value() == "perfect"
    form.get_by_label("stop window (ms)").fill("300")
    form.get_by_label("Seat 2").select_option("memory")
    form.get_by_label("Seat 3").select_option("random")
    form.get_by_label("Ranked").check()
    form.get_by_role("button", name="Create table").click()
    page.wait_for_url("**/games/*")
    gid = page.url.rsplit("/", 1)[1]
    info = httpx.get(f"{live.base_url}/api/v1/games/{gid}").json()
    assert info["game"] == "kabuki-masks" and info["ranked"] is True
    assert info["options"]["stop_window_ms"] == 300 and info["options"]["bot_memory"] == "perfect"
    # Only what differs from the catalog's defaults is sent (the lobby lists it).
    listed = httpx.get(f"{live.base_url}/api/v1/games", params={"game": "kabuki-masks", "limit": 100}).json()["games"]
    assert next(g for g in listed if g["game_id"] == gid)["options"] == {"stop_window_ms": 300}
    assert [(s["name"], s["kind"], s["bot"]) for s in info["seats"]] == [
        (name, "human", None),
        ("memory bot", "bot", "memory"),
        ("random bot", "bot", "random"),
    ]
    assert info["status"] in ("playing", "finished")
    # The page took the seat with a client seed of its own, which is in the
    # deal (docs/fairness.md, "Client seeds") and kept in the browser.
    events = httpx.get(f"{live.base_url}/api/v1/games/{gid}/events", params={"after": 0}).json()["events"]
    seeded = next(e["event"] for e in events if e["event"]["type"] == "hm.deal_seeded")
    kept = page.evaluate("(gid) => localStorage.getItem(`hm.client-seed.${gid}`)", gid)
    assert re.fullmatch(r"[0-9a-f]{32}", kept or "") and seeded["client_seeds"] == [kept, "", ""]
    assert seeded["commitment"] == info["commitment"]


def test_an_option_with_fixed_choices_is_a_select_of_them(page, live):
    """The catalog's option_choices (a Literal option): a select, not free text."""
    sign_up(page, unique_name("Ed"))
    form = page.get_by_role("form", name="New table")
    form.get_by_label("Game").select_option(label="Kabuki Tricks")
    form.get_by_label("Players").fill("2")
    form.get_by_label("Players").dispatch_event("change")
    # Named in words, never as the option's raw key or value.
    choice = form.get_by_role("combobox", name="Second place after the dummy wins")
    assert choice.locator("option").all_inner_texts() == ["the higher person", "the same order"]
    assert choice.evaluate("el => el.selectedOptions[0].textContent") == "the higher person"
    choice.select_option(label="the same order")
    form.get_by_role("button", name="Create table").click()
    page.wait_for_url("**/games/*")
    info = httpx.get(f"{live.base_url}/api/v1/games/{page.url.rsplit('/', 1)[1]}").json()
    assert info["game"] == "kabuki-tricks" and info["options"]["second_after_dummy_win"] == "same_order"


def test_pages_fit_a_phone_and_have_named_landmarks(new_context, live, artifacts):
    """Usable at 360 px: nothing wider than the screen; screenshots kept."""
    phone = new_context(viewport={"width": 360, "height": 740}).new_page()
    name = unique_name("Dot")
    sign_up(phone, name)
    with httpx.Client(base_url=live.base_url) as http:
        token = http.post("/api/v1/players", json={"name": unique_name("shot")}).json()["token"]
        http.post(
            "/api/v1/games",
            json={"game": "tezuma-trick", "players": 4, "ranked": True},
            headers={"Authorization": f"Bearer {token}"},
        )
    for path in ("/", "/account", "/signup", "/how-to-play/tezuma-trick"):
        phone.goto(path)
        phone.get_by_role("main").wait_for()
        assert phone.get_by_role("navigation", name="Main").is_visible()
        overflow = phone.evaluate("document.documentElement.scrollWidth")
        assert overflow <= 360, (path, overflow)
    phone.goto("/")
    phone.locator("#tables-open li").first.wait_for()
    phone.screenshot(path=str(artifacts / "lobby-360.png"), full_page=True)
    desktop = new_context(viewport={"width": 1280, "height": 900}).new_page()
    desktop.goto("/")
    desktop.locator("#tables-open li").first.wait_for()
    desktop.screenshot(path=str(artifacts / "lobby-desktop.png"), full_page=True)


def test_lobby_follows_its_stream_and_reads_no_list_while_it_is_open(page, live):
    """The lobby follows GET /api/v1/lobby/stream: a table created elsewhere
    appears without a reload, and no list route (nor Play now's count) is
    read while the stream is open."""
    reads: list[str] = []

    def on_request(request) -> None:
        path = request.url.split("?", 1)[0]
        if path.endswith("/api/v1/games") or path.endswith("/api/v1/quick-play"):
            reads.append(request.url)

    page.on("request", on_request)
    page.goto("/")
    page.locator("html[data-lobby-stream=open]").wait_for()
    page.get_by_role("heading", name="Open tables").wait_for()
    reads.clear()
    with httpx.Client(base_url=live.base_url) as http:
        host = http.post("/api/v1/players", json={"name": unique_name("streamhost")}).json()
        r = http.post(
            "/api/v1/games",
            json={"game": "cahoots", "players": 3},
            headers={"Authorization": f"Bearer {host['token']}"},
        )
        gid = r.json()["game_id"]
    card = page.locator("#tables-open").locator(f'li[data-game-id="{gid}"]')
    card.wait_for(timeout=5000)
    # Over a few seconds (the old page read three lists every 2 s): nothing read.
    page.wait_for_timeout(4500)
    assert reads == [] and page.locator("html[data-lobby-stream=open]").count() == 1


def test_lobby_reads_the_lists_while_its_stream_is_refused(browser, live):
    """A refused stream (503, as without Redis): the page reads the lists
    itself (every 15 s) and still shows the tables. Not under the console
    guard: the browser itself logs the refused stream as an error."""
    context = browser.new_context(locale="en", base_url=live.base_url)
    context.set_default_timeout(15_000)
    page = context.new_page()
    page.route(
        "**/api/v1/lobby/stream",
        lambda route: route.fulfill(
            status=503,
            headers={"Retry-After": "2"},
            content_type="application/json",
            body='{"code": "storage_unavailable", "message": "the message broker is unavailable"}',
        ),
    )
    with httpx.Client(base_url=live.base_url) as http:
        host = http.post("/api/v1/players", json={"name": unique_name("pollhost")}).json()
        auth = {"Authorization": f"Bearer {host['token']}"}
        gid = http.post("/api/v1/games", json={"game": "cahoots", "players": 3}, headers=auth).json()["game_id"]
    with page.expect_request(lambda req: "/api/v1/games?status=open" in req.url):
        page.goto("/")
    try:
        page.locator("html[data-lobby-stream=lost]").wait_for()
        page.locator("#tables-open").locator(f'li[data-game-id="{gid}"]').wait_for()
    finally:
        context.close()
