"""Watching, replaying and following in a real browser: a
spectator follows a bot game live to its end with no hidden card in its
page or its traffic; the replay viewer's board matches GET .../replay at
every step it visits, in each of the four games; the leaderboard and a player's page render with a
rating chart. Screenshots go to tests/web/artifacts/ (gitignored)."""

from __future__ import annotations

import contextlib
import json
import random
import re
import time
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import expect

from tests.service.bot_tables import bot_table, new_player, wait_finished

SHOTS = Path(__file__).parent / "artifacts"
SUITS = ["green", "purple", "orange", "blue"]


def kt_card(c: int) -> str:
    return "Joker" if c >= 40 else f"{c % 10 + 1} of {SUITS[c // 10]}"


# The other games' card names as the page says them (engines/*/cards.py, en.json).
CH_SUITS = ("hearts", "spades", "clubs", "diamonds", "cups", "stars")
CH_VALUES = (4, 5, 5, 6, 6, 7, 7, 8)
TT_SUITS = ("butterflies", "umbrellas", "fans", "masks")


def ch_card(c: int) -> str:
    return f"{CH_VALUES[c & 7]} of {CH_SUITS[c >> 3]}"


def tt_card(c: int) -> str:
    return f"Trump of {TT_SUITS[c // 12]}" if c % 12 >= 9 else f"{c % 12 + 1} of {TT_SUITS[c // 12]}"


def km_card(c: int | None) -> str:
    return "a covered card" if c is None else f"mask {'ABCDEFGHIJ'[c // 5]}"


def _expected_board(game: str, view: dict, seat: int) -> tuple[list[str], str, list[str], str | tuple[str, ...]]:
    """What the replay viewer must draw for a view: the seat's hand, a CSS
    selector of the board's cards and their names in order, and its text (bits of it)."""
    if game == "kabuki-tricks":
        trick = [kt_card(c) if c is not None else "a face-down card" for _, c in view["trick"]]
        return [kt_card(c) for c in view["hand"]], ".trick", trick, f"Round {view['round']} of {view['rounds']}"
    if game == "cahoots":
        return (
            [ch_card(c) for c in view["hand"]],
            ".trick",
            [ch_card(c) for _, c in view["table"]],
            f"Trick {min(view['trick'], 11)} of 11",
        )
    if game == "tezuma-trick":
        trick = []
        for play in view["trick"]:  # no card shown: Five-Color Sand, or a card played face down
            trick += [tt_card(c) for c in play["cards"]] or [
                "no card" if play["ability"] == "five_color_sand" else "a face-down card"
            ]
        hand = view["seats"][seat]["hand"] or []  # Tezuma Trick keeps the seat's own hand in its seat
        # Never "trick 13 of 12" once a hand's last trick is won (the engine counts on).
        when = "the draft" if view["phase"] == "draft" else f"trick {min(view['trick_no'], 12)} of 12"
        return (
            [tt_card(c) for c in hand],
            ".trick",
            trick,
            (f"Hand {view['hand_no']} of {view['hands_total']}", f"deals · {when}"),
        )
    assert game == "kabuki-masks"
    # Each pile's top (KM-7): the bare actor, a mask, or a card covered since (GEN-1).
    tops = [
        f"actor {i + 1}" if top is None and size == 0 else km_card(top)
        for i, (top, size) in enumerate(zip(view["tops"], view["pile_sizes"], strict=True))
    ]
    return [], ".piles", tops, f"Round {view['round']} of {view['rounds']}"


def check_replay_step(page, http: httpx.Client, gid: str, game: str, seat: int, expected_at: int | None = None) -> int:
    """The replay viewer at the step its URL names: the board and the hand
    match GET .../replay at that step from that seat, the move list marks it."""
    step = re.search(r"[?&]at=(\d+)", page.url)
    assert step is not None, page.url
    at = int(step.group(1))
    if expected_at is not None:
        assert at == expected_at
    assert f"seat={seat}" in page.url, "the URL keeps the seat"
    page.locator(f'#board[data-at="{at}"]').wait_for()
    page.locator(f'#hand[data-at="{at}"]').wait_for()
    view = http.get(f"/api/v1/games/{gid}/replay", params={"at": at, "seat": seat}).json()["view"]
    labels = "els => els.map(e => e.getAttribute('aria-label'))"
    shown_hand = page.locator("#hand [role=img]").evaluate_all(labels)
    if view:
        hand, where, cards, line = _expected_board(game, view, seat)
        assert shown_hand == hand, at
        assert page.locator(f"#board {where} [role=img]").evaluate_all(labels) == cards, at
        board = page.locator("#board").inner_text()
        assert all(bit in board for bit in ((line,) if isinstance(line, str) else line)), (at, line, board[:200])
        assert "null" not in board and "undefined" not in board, (at, board[:200])  # a JS hole shown as text
    else:
        assert shown_hand == [], at
    current = page.locator('#move-list li[aria-current="step"]')
    if at > 0:
        assert current.get_attribute("data-version") == str(at)
    return at


def _shot(page, name: str) -> None:
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def _leaks(payload, where: str) -> list[str]:
    """Hidden things a spectator must never receive while the game runs:
    a hand in a view, another seat's dealt cards, the seed, salt or decks."""
    found = []

    def visit(x, path):
        if isinstance(x, dict):
            if x.get("full"):
                return  # the game's end: everything is public
            if isinstance(x.get("hand"), list) and x["hand"]:
                found.append(f"{where}: a hand at {path}: {x['hand']}")
            if x.get("type") == "kt.dealt" and any(x.get("hands") or []):
                found.append(f"{where}: dealt hands at {path}")
            if x.get("type") == "kt.started" and (x.get("decks") or x.get("seed") or x.get("salt")):
                found.append(f"{where}: the start's secrets at {path}")
            for k, v in x.items():
                visit(v, f"{path}.{k}")
        elif isinstance(x, list):
            for i, v in enumerate(x):
                visit(v, f"{path}[{i}]")

    visit(payload, "")
    return found


def test_a_spectator_follows_a_bot_game_live_to_its_end_and_sees_no_hidden_card(new_context, live):
    rng = random.Random(7)
    with httpx.Client(base_url=live.base_url, timeout=30) as http:
        # A person in seat 0 (played by this test over HTTP) holds the game
        # until the spectator is watching: bots alone could finish it while
        # the browser is still on Live now.
        me = new_player(http)
        gid, _ = bot_table(http, 3, delay_ms=120, human=me)
        auth = {"Authorization": f"Bearer {me['token']}"}
        # Play the person's seat until it is to play into a trick that holds
        # a card: then the table waits for it, and the miniature has a card
        # to draw however long the page takes to open.
        deadline = time.monotonic() + 30
        while True:
            info = http.get(f"/api/v1/games/{gid}", headers=auth).json()
            if (info["view"] or {}).get("trick") and info["legal_actions"]:
                break
            assert time.monotonic() < deadline, "the person was never to play into a trick with a card"
            if info["legal_actions"]:
                body = {"action": rng.choice(info["legal_actions"]), "command_id": f"p{info['version']}"}
                http.post(
                    f"/api/v1/games/{gid}/actions", headers=auth, json=body | {"expected_version": info["version"]}
                )
            time.sleep(0.05)
        context = new_context()
        page = context.new_page()
        # The browser's own traffic: every API response, and every SSE message
        # the page's EventSource receives (Chromium's DevTools protocol).
        traffic: list[tuple[str, object]] = []
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.on("Network.eventSourceMessageReceived", lambda m: traffic.append((f"SSE {m['eventName']}", m["data"])))

        def on_response(response):
            if "/api/" in response.url and "/stream" not in response.url:
                with contextlib.suppress(Exception):  # a response the page abandoned
                    traffic.append((response.url, response.text()))

        page.on("response", on_response)
        page.goto("/live")
        card = page.locator(f'li[data-game-id="{gid}"]')
        card.wait_for()
        # The miniature's cards are drawn as at the table (table.css is on the page).
        card.locator(".miniature .card").first.wait_for()
        radius = card.locator(".miniature .card").first.evaluate("el => getComputedStyle(el).borderTopLeftRadius")
        assert radius not in ("", "0px"), radius
        _shot(page, "live-now")
        card.get_by_role("link", name="Watch").click()
        page.wait_for_url(f"**/games/{gid}")
        # It is counted as a spectator while it watches.
        deadline = time.monotonic() + 10
        while http.get(f"/api/v1/games/{gid}").json()["spectators"] < 1 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert http.get(f"/api/v1/games/{gid}").json()["spectators"] >= 1
        seen_moves = set()
        while not page.get_by_role("heading", name="Result").is_visible():
            # No card button for a spectator: nothing of anybody's hand.
            assert page.locator('[aria-label="Your moves"] [role="img"]').count() == 0
            seen_moves.add(len(traffic))
            info = http.get(f"/api/v1/games/{gid}", headers=auth).json()
            if info["legal_actions"]:
                action = rng.choice(info["legal_actions"])
                command = {"action": action, "command_id": f"w{info['version']}", "expected_version": info["version"]}
                http.post(f"/api/v1/games/{gid}/actions", headers=auth, json=command)
            # The spectator's page sees the move arrive before the next one.
            page.wait_for_timeout(250)
        assert len(seen_moves) > 5, "the page updated live, many times, before the end"
        final = wait_finished(http, gid)
        page.get_by_role("heading", name="Result").wait_for()
        _shot(page, "spectator-result")
    sse = [json.loads(data) for kind, data in traffic if kind == "SSE game"]
    versions = [m["version"] for m in sse]
    assert versions == sorted(set(versions)) and versions[-1] == final["version"], (
        "every event once, in order, to the end"
    )
    problems = []
    for where, body in traffic:
        try:
            payload = json.loads(body) if isinstance(body, str) else body
        except ValueError:
            continue
        problems += _leaks(payload, where)
    assert not problems, "\n".join(problems[:10])


def test_the_replay_of_a_game_in_progress_offers_no_seat_it_would_refuse(new_context, live):
    with httpx.Client(base_url=live.base_url, timeout=30) as http:
        gid, _ = bot_table(http, 3, delay_ms=600)
        page = new_context().new_page()
        page.goto(f"/games/{gid}/replay?seat=1")  # a seat's eyes, asked for by a spectator
        page.get_by_role("heading", name="Kabuki Tricks").first.wait_for()
        select = page.get_by_label("Seen by")
        expect(select.locator("option")).to_have_count(1)  # the public view only
        expect(page.locator("#replay-status")).not_to_contain_text("403")
        expect(page.locator("#replay-status")).not_to_contain_text("player only")
        assert http.get(f"/api/v1/games/{gid}").json()["status"] == "playing"


def test_the_replay_viewer_matches_the_replay_route_at_every_step_it_visits(new_context, live):
    with httpx.Client(base_url=live.base_url, timeout=30) as http:
        gid, _ = bot_table(http, 3, delay_ms=0)
        info = wait_finished(http, gid)
        page = new_context().new_page()
        page.goto(f"/games/{gid}/replay?at=0&seat=0")
        page.get_by_role("heading", name="Replay: Kabuki Tricks").wait_for()

        def check(expected_at: int | None = None) -> int:
            return check_replay_step(page, http, gid, "kabuki-tricks", 0, expected_at)

        check(0)
        for _ in range(3):
            page.keyboard.press("ArrowRight")
        check(3)
        page.get_by_role("button", name="Step forward").click()
        check(4)
        page.get_by_role("button", name="Step back").click()
        check(3)
        page.get_by_label("Jump to").select_option(label="Round 2")
        check()
        page.get_by_label("Jump to").select_option(label="Round 1, trick 3")
        at = check()
        _shot(page, "replay-viewer")
        page.get_by_role("slider", name="Move").fill(str(at + 7))
        check(at + 7)
        page.get_by_role("button", name="Last move").click()
        check(info["version"])
        # Autoplay moves on by itself from where it is.
        page.get_by_role("button", name="First move").click()
        check(0)
        page.get_by_label("Speed").select_option(label="4×")
        page.get_by_role("button", name="Play").click()
        page.wait_for_function("() => /[?&]at=([3-9]|\\d\\d+)/.test(location.search)")
        page.get_by_role("button", name="Pause").click()
        check()
        # The fairness check and the export.
        fair = page.locator("#fairness")
        fair.get_by_text("The replay matches the rules").wait_for()
        assert fair.locator("strong.ok").count() == 3 and fair.locator("strong.bad").count() == 0
        start = http.get(f"/api/v1/games/{gid}/events").json()["events"][0]["event"]
        assert start["commitment"] in fair.inner_text()
        # The revealed seed, exactly (it is past JavaScript's exact integers).
        last = http.get(f"/api/v1/games/{gid}/export").text.strip().splitlines()
        ended = next(json.loads(line) for line in reversed(last) if '"seed"' in line)
        ended = ended.get("event", ended)
        assert str(ended["seed"]) in fair.inner_text() and ended["salt"] in fair.inner_text()
        assert (
            page.get_by_role("link", name="Download the export (NDJSON)").get_attribute("href")
            == f"/api/v1/games/{gid}/export"
        )
        _shot(page, "replay-viewer-end")


OTHER_GAMES = [
    # game, title, players, options (masks: no stop window at an all-bot table, KM-3)
    ("cahoots", "Cahoots", 3, {}),
    ("tezuma-trick", "Tezuma Trick", 3, {}),
    ("kabuki-masks", "Kabuki (mask memory)", 2, {"stop_window_ms": 0}),
]


@pytest.mark.parametrize("game,title,players,options", OTHER_GAMES, ids=[g[0] for g in OTHER_GAMES])
def test_the_replay_viewer_matches_the_replay_route_in_every_game(new_context, live, game, title, players, options):
    """Kabuki Tricks' viewer is walked through above; the other three games'
    boards (each module's board and handCard) at a few steps: the start, a few
    arrow steps, the last round or trick of the "Jump to" list, the end."""
    with httpx.Client(base_url=live.base_url, timeout=30) as http:
        gid, _ = bot_table(http, players, delay_ms=0, game=game, options=options)
        info = wait_finished(http, gid)
        page = new_context().new_page()
        page.goto(f"/games/{gid}/replay?at=0&seat=0")
        page.get_by_role("heading", name=f"Replay: {title}").wait_for()
        check_replay_step(page, http, gid, game, 0, 0)
        for _ in range(4):
            page.keyboard.press("ArrowRight")
        check_replay_step(page, http, gid, game, 0, 4)
        jumps = page.get_by_label("Jump to").locator("option").evaluate_all("os => os.map(o => o.textContent)")
        # Every game's rounds (Tezuma Trick's hands) and tricks are listed.
        wanted = {"cahoots": "Round 1, trick 11", "tezuma-trick": "Round 2", "kabuki-masks": "Round 3"}[game]
        assert wanted in jumps, jumps
        page.get_by_label("Jump to").select_option(label=wanted)
        at = check_replay_step(page, http, gid, game, 0)
        assert at > 4
        page.get_by_role("button", name="Step forward").click()
        check_replay_step(page, http, gid, game, 0, at + 1)
        page.get_by_role("button", name="Last move").click()
        check_replay_step(page, http, gid, game, 0, info["version"])
        _shot(page, f"replay-viewer-{game}")


def _play_human_seat(http: httpx.Client, gid: str, token: str, rng: random.Random) -> None:
    auth = {"Authorization": f"Bearer {token}"}
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        info = http.get(f"/api/v1/games/{gid}", headers=auth).json()
        if info["status"] == "finished":
            return
        if info["legal_actions"]:
            http.post(
                f"/api/v1/games/{gid}/actions",
                headers=auth,
                json={
                    "action": rng.choice(info["legal_actions"]),
                    "command_id": f"{info['version']}-{rng.random()}",
                    "expected_version": info["version"],
                },
            )
        else:
            time.sleep(0.02)
    raise AssertionError("the game did not finish")


def test_the_leaderboard_and_a_players_page_render_with_a_rating_chart(new_context, live):
    rng = random.Random(15)
    with httpx.Client(base_url=live.base_url, timeout=30) as http:
        me = new_player(http)
        games = []
        for _ in range(2):
            gid, _ = bot_table(http, 3, delay_ms=0, ranked=True, human=me)
            _play_human_seat(http, gid, me["token"], rng)
            games.append(gid)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            r = http.get(f"/api/v1/players/{me['player_id']}/ratings")
            if r.status_code == 200 and len(r.json()["history"]) == 2:
                break
            time.sleep(0.2)
        assert len(r.json()["history"]) == 2, "the worker rated both games"
        [rating] = r.json()["ratings"]
    # The familiar number (1500 at the start), "?" while provisional: the
    # same on the leaderboard and the profile, and the API's `rating`.
    assert rating["provisional"], "two games: sigma is still high"
    assert abs(rating["rating"] - 1500) < 600
    shown = f"{rating['rating']}?"
    page = new_context().new_page()
    page.goto("/leaderboards/kabuki-tricks")
    people = page.get_by_role("region", name="People")
    people.get_by_role("link", name=me["name"]).wait_for()
    row = people.get_by_role("row").filter(has=page.get_by_role("link", name=me["name"]))
    cell = row.locator(".rating")
    assert (
        cell.evaluate(
            "e => [...e.childNodes].filter(n => !n.matches || !n.matches('.visually-hidden'))"
            ".map(n => n.textContent).join('')"
        )
        == shown
    )
    assert cell.inner_text().startswith(shown) and "provisional" in row.inner_text(), "said as provisional"
    assert "Ratings start at 1500" in page.locator("#leaderboard").inner_text()
    assert "Ranked by μ − 3σ" in page.locator("#leaderboard").inner_text()
    bots = page.get_by_role("region", name="House bots")
    bots.get_by_role("row").filter(has_text="random").first.wait_for()
    _shot(page, "leaderboard")
    people.get_by_role("link", name=me["name"]).click()
    page.wait_for_url(f"**/players/{me['player_id']}")
    page.get_by_role("heading", name=me["name"]).wait_for()
    # Both ranked games played to the end (services/app/fairplay.py).
    expect(page.locator("#p-completion")).to_have_text("Finished 100% of the last 2 ranked games without leaving.")
    chart = page.get_by_role("img", name=re.compile(r"Rating history for Kabuki Tricks: 2 rated games"))
    chart.wait_for()
    assert chart.locator("circle").count() == 3, "the start and one point per rated game"
    assert chart.locator("path.rating-line").get_attribute("d").count("L") == 2
    assert chart.get_attribute("aria-label").endswith(f"rating from 1500 to {rating['rating']}")
    caption = page.locator("figure.rating figcaption")
    assert caption.locator(".rating").inner_text().startswith(shown)
    assert f"Rating {shown}" in caption.evaluate(
        "e => { const c = e.cloneNode(true); c.querySelectorAll('.visually-hidden').forEach(x => x.remove());"
        " return c.textContent; }"
    )
    recent = page.get_by_role("region", name="Recent games")
    for gid in games:
        assert recent.locator(f'a[href="/games/{gid}/replay?at=0"]').count() == 1
    _shot(page, "player-page")
