"""The table page in a real browser: for each game a
person signs up, opens a table with house bots from the lobby and plays it to
the "Result" heading by clicking only; the buttons in "Your moves" are enabled
exactly when the API's legal_actions allows them; screenshots of each table
mid-game at desktop and phone width are kept as artefacts."""

from __future__ import annotations

import re
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.web.conftest import sign_up, unique_name


@pytest.fixture
def artifacts() -> Path:
    """The table screenshots and the latency figure, beside the watching pages' (gitignored)."""
    path = Path(__file__).parent / "artifacts"
    path.mkdir(exist_ok=True)
    return path


# Rulebook card names, as the page must say them (engines/*/cards.py).
KT_SUITS = ("green", "purple", "orange", "blue")
CH_SUITS = ("hearts", "spades", "clubs", "diamonds", "cups", "stars")
CH_VALUES = (4, 5, 5, 6, 6, 7, 7, 8)
TT_SUITS = ("butterflies", "umbrellas", "fans", "masks")
TT_ABILITIES = {
    "sword_walking": "Sword Walking",
    "butterfly_dance": "Butterfly Dance",
    "linking_ring": "Linking Ring",
    "cup_and_ball": "Cup and Ball",
    "fire_breathing": "Fire Breathing",
    "paper_egg": "Paper Egg",
    "water_trick": "Water Trick",
    "chicks": "Chicks",
    "pail_dance": "Pail Dance",
    "horse_swallowing": "Horse-Swallowing",
    "many_umbrellas": "Many Umbrellas",
    "five_color_sand": "Five-Color Sand",
}


def kt_card(c: int) -> str:
    return "Joker" if c >= 40 else f"{c % 10 + 1} of {KT_SUITS[c // 10]}"


def ch_card(c: int) -> str:
    return f"{CH_VALUES[c & 7]} of {CH_SUITS[c >> 3]}"


def tt_card(c: int) -> str:
    suit, rank = TT_SUITS[c // 12], c % 12
    return f"Trump of {suit}" if rank >= 9 else f"{rank + 1} of {suit}"


def expected_buttons(game: str, legal: list[dict], view: dict, seat: int) -> Counter:
    """The enabled buttons the legal actions call for: one per playable card
    (two copies of a card are two buttons), one per other action."""
    cards: set[int] = set()
    others: set[str] = set()
    for a in legal:
        kind = a["type"]
        if game == "kabuki-tricks":
            if kind == "play":
                cards.add(a["card"])
            else:
                others.add({"deal": "Deal", "direct": "Director", "joker": "Joker"}[kind])
        elif game == "cahoots":
            if kind == "play":
                cards.add(a["card"])
            else:
                others.add("Keep or kill" if kind in ("keep", "kill") else "Pick a killed card")
        elif game == "tezuma-trick":
            if kind == "play" and not a.get("ability"):
                cards.add(a["card"])
            elif kind in ("play", "egg", "sand"):
                others.add(TT_ABILITIES[view["seats"][seat]["ability"]])
            else:
                others.add(
                    {"pick_pain": "Pick pain suit", "pick_bid": "Pick bid", "pick_ability": "Pick ability"}[kind]
                )
    name = {"kabuki-tricks": kt_card, "cahoots": ch_card, "tezuma-trick": tt_card}[game]
    return Counter([name(c) for c in cards] + sorted(others))


def enabled_buttons(moves) -> Counter:
    return Counter(moves.locator("button:enabled").evaluate_all("bs => bs.map(b => b.getAttribute('aria-label'))"))


def check_buttons_match_legal(page, game: str, gid: str, moves) -> None:
    """While it is this person's turn (nothing else moves), the enabled
    buttons are exactly the legal actions the API lists for the seat."""
    deadline = time.monotonic() + 3
    while True:
        info = page.request.get(f"/api/v1/games/{gid}").json()
        want = (
            expected_buttons(game, info["legal_actions"], info["view"], info["your_seat"])
            if info["status"] == "playing"
            else Counter()
        )
        got = enabled_buttons(moves)
        if got == want or time.monotonic() > deadline:
            break
        page.wait_for_timeout(50)  # the page may be one refresh behind the GET
    assert got == want, f"enabled {sorted(got.elements())} but legal_actions call for {sorted(want.elements())}"


def new_table(
    page, title: str, players: int, bots: list[str], options: dict[str, str] | None = None, timed: bool = False
) -> str:
    """The lobby's New table form, by clicking; returns the game id."""
    form = page.get_by_role("form", name="New table")
    form.get_by_label("Game").select_option(label=title)
    form.get_by_label("Players").fill(str(players))
    form.get_by_label("Players").dispatch_event("change")
    for label, value in (options or {}).items():
        form.get_by_label(label).fill(value)
    for i, bot in enumerate(bots):
        form.get_by_label(f"Seat {i + 2}").select_option(bot)
    if timed:
        form.get_by_label("Timed moves").check()  # the form's default: 60 s per move
    form.get_by_role("button", name="Create table").click()
    page.wait_for_url("**/games/*")
    return page.url.rsplit("/", 1)[1]


def click_one_move(page, moves, leave: str | None = None) -> bool:
    """Clicks the first enabled move (but the one labelled `leave`); a dialog
    is confirmed as it opens (on the first legal choice). False when nothing
    was enabled."""
    buttons = moves.locator(f'button:enabled:not([aria-label="{leave}"])' if leave else "button:enabled")
    if buttons.count() == 0:
        return False
    button = buttons.first
    label = button.get_attribute("aria-label")
    if label == "Stop!" and "0 cards in the deck" in page.locator(".table-board").inner_text():
        # The round's last card may be challenged only within its window
        # (KM-5a): a click that the server receives late would be refused.
        buttons = moves.locator("button:enabled:not(.stop)")
        if buttons.count() == 0:
            return False
        button = buttons.first
    try:
        button.click(timeout=1000)
    except Exception:  # it was disabled by a refresh between count() and click(): look again
        return True
    dialog = page.get_by_role("dialog")
    if dialog.count():
        dialog.get_by_role("button", name="Confirm").click()
        dialog.wait_for(state="detached")
    return True


WIDER_THAN_SCREEN = """() => [...document.querySelectorAll('body *')]
  .filter((el) => el.getBoundingClientRect().right > innerWidth + 1)
  .map((el) => `${el.tagName}.${el.className}: ${(el.textContent || '').slice(0, 40)}`).slice(0, 8)"""

GAMES = [
    # game, lobby title, players, bots, lobby options (a short stop window, KM-3)
    ("kabuki-tricks", "Kabuki Tricks", 3, ["random", "random"], {}),
    ("cahoots", "Cahoots", 3, ["random", "random"], {}),
    ("tezuma-trick", "Tezuma Trick", 3, ["random", "random"], {}),
    ("kabuki-masks", "Kabuki (mask memory)", 2, ["random"], {"stop window (ms)": "300"}),
]


@pytest.mark.parametrize("game,title,players,bots,options", GAMES, ids=[g[0] for g in GAMES])
def test_a_person_plays_a_whole_game_by_clicking(new_context, artifacts, game, title, players, bots, options):
    page = new_context(viewport={"width": 1280, "height": 900}).new_page()
    sign_up(page, unique_name("Ana"))
    assets: dict[str, int] = {}
    page.on(
        "response",
        lambda r: r.url.endswith((".js", ".css")) and "/games/" in page.url and assets.setdefault(r.url, len(r.body())),
    )
    gid = new_table(page, title, players, bots, options)
    moves = page.get_by_role("region", name="Your moves")
    result = page.get_by_role("heading", name="Result")
    page.get_by_role("heading", name=title).wait_for()
    clicks, shot, checks = 0, False, 0
    deadline = time.monotonic() + 90
    while not result.is_visible():
        assert time.monotonic() < deadline, f"no result after {clicks} clicks"
        if game != "kabuki-masks" and page.locator("#turn-line").inner_text() == "Your turn.":
            check_buttons_match_legal(page, game, gid, moves)
            checks += 1
        if game == "kabuki-masks":
            # The Stop button shows the placement number it calls on (KM-2). Read
            # in one step without waiting: the buttons go when the game ends.
            stop = moves.get_by_role("button", name="Stop!")
            for label in stop.evaluate_all("els => els.filter((e) => !e.disabled).map((e) => e.innerText)"):
                assert label.split()[1].startswith("#"), label
        if click_one_move(page, moves):
            clicks += 1
        else:
            page.wait_for_timeout(30)
        if clicks >= 10 and not shot:
            shot = True
            page.wait_for_timeout(150)
            page.screenshot(path=artifacts / f"table-{game}-desktop.png", full_page=True)
            page.set_viewport_size({"width": 360, "height": 780})
            page.wait_for_timeout(150)
            # Usable at phone width: nothing wider than the screen.
            wide = page.evaluate(WIDER_THAN_SCREEN)
            assert page.evaluate("document.documentElement.scrollWidth") <= 360, wide
            page.screenshot(path=artifacts / f"table-{game}-360.png", full_page=True)
            page.set_viewport_size({"width": 1280, "height": 900})
    # The end: the places, every button off, the moves in words.
    places = page.locator("section.result ol.places li")
    assert places.count() == players
    assert places.first.inner_text().startswith("1st: ")
    assert enabled_buttons(moves) == Counter()
    log = page.get_by_role("region", name="Move list").locator("ol.log > li")
    assert log.count() > clicks
    assert page.get_by_role("link", name=f"How to play {title}").get_attribute("href") == f"/how-to-play/{game}"
    if game != "kabuki-masks":
        assert checks > 5  # the legal_actions check ran turn after turn
    # The table page's own JavaScript and CSS, shared modules included: under 150 KB.
    assert any(url.endswith("/table.js") for url in assets) and sum(assets.values()) < 150_000, assets
    (artifacts / f"table-weight-{game}.txt").write_text(f"{sum(assets.values())} bytes in {len(assets)} files\n")


def test_director_dialog_sends_the_configuration_chosen(new_context):
    """A composite action: a dialog with labelled controls and Confirm, which
    sends exactly what the controls say (KT-10)."""
    page = new_context(viewport={"width": 1280, "height": 900}).new_page()
    name = unique_name("Ana")
    sign_up(page, name)
    gid = new_table(page, "Kabuki Tricks", 3, ["random", "random"])
    moves = page.get_by_role("region", name="Your moves")
    director = moves.get_by_role("button", name="Director")
    deadline = time.monotonic() + 60
    while not director.is_enabled():  # rounds pass until this person is the dealer
        assert time.monotonic() < deadline
        # Never the Director itself: it is enabled a moment after this
        # person's Deal, and clicked here it was confirmed on the first legal
        # choice, this person's one Director turn spent and the loop left to
        # time out at the game's end (2 runs in 7 on a loaded machine).
        if not click_one_move(page, moves, leave="Director"):
            page.wait_for_timeout(30)
    director.click()
    dialog = page.get_by_role("dialog", name="Director")
    dialog.get_by_label("High or Low").select_option(label="Low" if "High (as is)" in dialog.inner_text() else "High")
    high = dialog.get_by_label("High or Low").input_value() == "high"
    dialog.get_by_label("Actor order, strongest first").select_option("blue,orange,purple,green")
    dialog.get_by_role("button", name="Confirm").click()
    dialog.wait_for(state="detached")
    # This person's own line, whole. Matching "directed: High, ..." alone also
    # finds a house bot's line from an earlier round that named the same
    # configuration (1 in 48 per bot dealer): the wait then ends at once and
    # the view below can be read before this action is applied, still on the
    # side shown "as is" (the one failure seen: high False, True expected).
    line = f"{name} directed: {'High' if high else 'Low'}, Blue > Orange > Purple > Green."
    page.get_by_role("region", name="Move list").get_by_text(line, exact=True).wait_for()
    # What the page sent, as the log holds it...
    directed = [
        e["event"]
        for e in page.request.get(f"/api/v1/games/{gid}/events").json()["events"]
        if e["event"]["type"] == "kt.directed"
    ]
    assert directed[-1] == {
        "type": "kt.directed",
        "seat": 0,
        "high": high,
        "order": ["blue", "orange", "purple", "green"],
    }
    # ...and the table now: the dealer leads trick 1, so no bot's Joker
    # (KT-6 flip or swap) can change it before this person plays.
    view = page.request.get(f"/api/v1/games/{gid}").json()["view"]
    assert view["high"] is high and view["order"] == ["blue", "orange", "purple", "green"]


# Every click on a move button, and every line the move list gains, with the
# page's clock (one browser: every context shares it).
TIMING = """
window.__clicks = [];
window.__lines = [];
document.addEventListener("click", (e) => {
  const b = e.target.closest && e.target.closest("button");
  if (b) window.__clicks.push([Date.now(), b.getAttribute("aria-label")]);
}, true);
window.__cards = [];
new MutationObserver((records) => {
  const t = Date.now();
  for (const r of records) for (const n of r.addedNodes) {
    if (n.nodeType !== 1) continue;
    if (n.matches("ol.log > li")) window.__lines.push([t, n.firstChild.textContent]);
    // Cards coming onto the felt's trick: [time, seat, card].
    const figs = n.matches(".felt .trick figure") ? [n]
      : [...n.querySelectorAll(".trick figure")].filter((f) => f.closest(".felt"));
    for (const f of figs) {
      for (const c of f.querySelectorAll("[role=img]")) {
        window.__cards.push([t, f.dataset.seat, c.getAttribute("aria-label")]);
      }
    }
  }
}).observe(document, { childList: true, subtree: true });
"""


def latencies(actor_page, actor: str, other_page) -> list[float]:
    """From a click on a card in `actor_page` to "<actor> played the <card>."
    in `other_page`'s move list, in ms."""
    clicks = actor_page.evaluate("window.__clicks")
    lines = other_page.evaluate("window.__lines")
    out = []
    for t0, label in clicks:
        if not label or " of " not in label:
            continue  # cards only: dialogs and Deal are not one click
        text = f"{actor} played the {label}."
        seen = [t for t, line in lines if t >= t0 and line == text]
        if seen:
            out.append(seen[0] - t0)
    return out


def own_latencies(page, seat: int) -> list[float]:
    """From a click on a card to that card on the same page's felt, in ms."""
    cards = page.evaluate("window.__cards")
    out = []
    for t0, label in page.evaluate("window.__clicks"):
        if not label or " of " not in label:
            continue
        seen = [t for t, s, card in cards if t >= t0 and s == str(seat) and card == label]
        if seen:
            out.append(seen[0] - t0)
    return out


def p50(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, (9 * len(ordered)) // 10)]


def test_two_people_play_one_table_while_a_third_watches(new_context, artifacts):
    contexts = [new_context(viewport={"width": 1100, "height": 850}) for _ in range(3)]
    for context in contexts:
        context.add_init_script(TIMING)
    ana, ben, watcher = (context.new_page() for context in contexts)
    ana_name, ben_name = unique_name("Ana"), unique_name("Ben")
    sign_up(ana, ana_name)
    gid = new_table(ana, "Kabuki Tricks", 3, ["", "random"], timed=True)  # seat 2 open for Ben, seat 3 a house bot
    ana.get_by_text("Waiting for players.").wait_for()
    sign_up(ben, ben_name)
    ben.goto(f"/games/{gid}")  # the invite link
    ben.get_by_role("button", name="Take a seat").click()
    watcher.goto(f"/games/{gid}")
    watcher.get_by_text("You are watching this table.").wait_for()
    pages = {"Ana": ana, "Ben": ben}
    moves = {who: page.get_by_role("region", name="Your moves") for who, page in pages.items()}
    results = [p.get_by_role("heading", name="Result") for p in (ana, ben, watcher)]
    # A timed table: the seat awaited shows its move time counting down by the server's clock.
    clock = watcher.locator(".seat.acting .clock")
    clock.filter(has_text=re.compile(r"^0:[0-5]\d \+ bank")).wait_for()
    first = clock.inner_text()
    watcher.wait_for_function("t => document.querySelector('.seat.acting .clock').textContent !== t", arg=first)
    deadline = time.monotonic() + 120
    clicks = 0
    while not all(r.is_visible() for r in results):
        assert time.monotonic() < deadline, f"no result after {clicks} clicks"
        acted = False
        for who, page in pages.items():
            if not results[0].is_visible() and click_one_move(page, moves[who]):
                acted = True
                clicks += 1
        # The watcher is offered nothing, and no hand: no card button at all.
        assert watcher.get_by_role("region", name="Your moves").locator("button").count() == 0
        if not acted:
            ana.wait_for_timeout(20)
    # Everyone sees the same places, and the same moves in words.
    finals = [p.locator("section.result ol.places").inner_text() for p in (ana, ben, watcher)]
    assert finals[0] == finals[1] == finals[2] and ana_name in finals[0] and ben_name in finals[0]
    logs = [p.locator("ol.log > li").count() for p in (ana, ben, watcher)]
    assert logs[0] == logs[1] == logs[2] > clicks
    # Click to the move shown on another person's page (the target: p50
    # under 50 ms on this machine). Asserted loosely: the machine is shared.
    to_ben = latencies(ana, ana_name, ben)
    to_ana = latencies(ben, ben_name, ana)
    to_watcher = latencies(ana, ana_name, watcher) + latencies(ben, ben_name, watcher)
    both = to_ben + to_ana
    own = own_latencies(ana, 0) + own_latencies(ben, 1)
    assert len(both) >= 20 and len(own) >= 20, (both, own)
    # Figures, not thresholds (the machine is shared): `hanamichi bench` style, in the artefacts.
    report = (
        f"click to card on the clicker's own felt: n={len(own)} p50={p50(own):.0f} ms p90={p90(own):.0f} ms; "
        f"click to move shown on the other person's page: n={len(both)} p50={p50(both):.0f} ms "
        f"p90={p90(both):.0f} ms max={max(both):.0f} ms; on the watcher's page: n={len(to_watcher)}"
        f" p50={p50(to_watcher):.0f} ms p90={p90(to_watcher):.0f} ms\n"
    )
    (artifacts / "table-latency.txt").write_text(report)
    print(report)
