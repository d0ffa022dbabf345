"""The table page looks and moves like a card table: the other seats around
the felt (by seating order from the viewer, who sits at the bottom), each
card of the trick in front of the seat that played it, the turn on the seat
itself (aria-current, its clock on it), everything of the play on one phone
screen; a played card travels (under 300 ms) unless reduced motion is asked
for, then nothing animates. And two bugs kept fixed: move numbers from 100 on
are whole in the move list; a finished table says "game over" once, offers
no move buttons, links to its replay and puts the result beside the felt.

Tables are made over HTTP (house bots with a short delay); each test stops
mid-game once it has what it checks."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from tests.web.conftest import sign_up, unique_name

# Every element.animate() call, with its target and duration (the page's own motion).
ANIMATIONS = """
window.__anims = [];
const animate = Element.prototype.animate;
Element.prototype.animate = function (frames, options) {
  const d = typeof options === "number" ? options : (options && options.duration) || 0;
  window.__anims.push({ cls: this.className, seat: this.dataset ? this.dataset.seat ?? null : null, duration: d });
  return animate.call(this, frames, options);
};
// Every render of the felt (its children replaced).
window.__renders = 0;
new MutationObserver((records) => {
  if (records.some((r) => r.target.classList && r.target.classList.contains("felt"))) window.__renders++;
}).observe(document, { childList: true, subtree: true });
"""

SNAPSHOT = """(game) => {
  const r = (el) => { if (!el) return null; const b = el.getBoundingClientRect();
    return { x: b.x, y: b.y, width: b.width, height: b.height, cx: b.x + b.width / 2, cy: b.y + b.height / 2 }; };
  const plates = {};
  for (const p of document.querySelectorAll('.felt .seat')) plates[p.dataset.seat] = { ...r(p), slot: p.dataset.slot };
  const acting = [...document.querySelectorAll('.felt .seat[aria-current="true"]')];
  return {
    plates, mid: r(document.querySelector('.felt .mid')),
    acting: acting.map((p) => p.dataset.seat),
    clock: acting.length ? acting[0].querySelector('.clock').textContent : '',
    figures: [...document.querySelectorAll('.felt .trick figure')]
      .map((f) => ({ ...r(f.querySelector('[role=img]')), seat: f.dataset.seat })),
    hand: [...document.querySelectorAll('.your-moves button.card-move')].map(r),
    turn: r(document.getElementById('turn-line')),
    stop: r([...document.querySelectorAll('.your-moves button')].find((b) => b.getAttribute('aria-label') === 'Stop!')),
    revealed: r(document.querySelector('.felt .revealed [role=img]')),
    scrollY: window.scrollY, scrollWidth: document.documentElement.scrollWidth,
  };
}"""

FACES = "() => [...document.querySelectorAll('.felt [data-flip]')].map((el) => el.dataset.face).join(' ')"

GAMES = [
    # game, players, options: 3 players (across-left, across-right), 4 (left, across, right), 2 (across)
    ("kabuki-tricks", 3, {}),
    ("cahoots", 4, {}),
    ("tezuma-trick", 3, {}),
    ("kabuki-masks", 2, {"stop_window_ms": 300}),
]
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 360, "height": 740}}


def expected_slot(seat: int, me: int, n: int) -> str:
    """Where a seat sits seen from `me` at the bottom (the issue's rule)."""
    rel = (seat - me) % n
    if rel == 0:
        return "me"
    if n >= 4 and rel == 1:
        return "left"
    if n >= 4 and rel == n - 1:
        return "right"
    return "top"


def post(page, path: str, data: dict | None = None):
    """A write as the page makes it: the session cookie, this site's Origin, the CSRF token."""
    csrf = next(c["value"] for c in page.context.cookies() if c["name"] == "hm_csrf")
    origin = page.url.split("/", 3)[:3]
    return page.request.post(path, data=data or {}, headers={"X-CSRF-Token": csrf, "Origin": "/".join(origin)})


def bot_table(page, game: str, players: int, options: dict, delay_ms: int = 60) -> str:
    """A timed table over HTTP: this person in seat 0, house bots in the others."""
    r = post(
        page,
        "/api/v1/games",
        data={
            "game": game,
            "players": players,
            "options": options,
            "bot_delay_ms": delay_ms,
            "time_control": {"move_ms": 120_000, "bank_ms": 60_000},
        },
    )
    assert r.status == 201, r.text()
    gid = r.json()["game_id"]
    assert post(page, f"/api/v1/games/{gid}/seats", {"seat": 0}).status == 200
    for seat in range(1, players):
        assert post(page, f"/api/v1/games/{gid}/bots", {"seat": seat, "bot": "random"}).status == 200
    return gid


def box(locator) -> dict:
    b = locator.bounding_box()
    assert b is not None, locator
    return {**b, "cx": b["x"] + b["width"] / 2, "cy": b["y"] + b["height"] / 2}


def within(b: dict, width: int, height: int) -> bool:
    return b["x"] >= -1 and b["y"] >= -1 and b["x"] + b["width"] <= width + 1 and b["y"] + b["height"] <= height + 1


def act(page, moves) -> None:
    """The first enabled move, clicked where it is (no scrolling to it, as
    Playwright's click would: the page must not need it); a dialog is
    confirmed on its first legal choice."""
    buttons = moves.locator("button:enabled")
    if buttons.count() == 0:
        return
    try:
        buttons.first.dispatch_event("click", timeout=1000)
    except Exception:  # gone in a refresh meanwhile: look again
        return
    dialog = page.get_by_role("dialog")
    if dialog.count():
        dialog.get_by_role("button", name="Confirm").click()
        dialog.wait_for(state="detached")


def my_turn_mid_trick(page, game: str) -> bool:
    if page.locator("#turn-line").inner_text() != "Your turn.":
        return False
    # The page reads the seat's deadline with the state that says it is to
    # act (GET /api/v1/games/{id} `clock`); until that read, no clock yet.
    clock = page.evaluate(
        "() => document.querySelector('.felt .seat[aria-current=\"true\"] .clock')?.textContent ?? ''"
    )
    if not clock.strip():
        return False
    moves = page.get_by_role("region", name="Your moves")
    if game == "kabuki-masks":  # the revealed card is this person's to place
        return page.locator(".felt .revealed [role=img]").count() == 1 and moves.locator("button:enabled").count() > 0
    trick = page.locator(".felt .trick:not(.completed) figure")
    return trick.count() >= 1 and moves.locator("button.card-move:enabled").count() > 0


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("game,players,options", GAMES, ids=[g[0] for g in GAMES])
def test_the_table_is_a_table(new_context, artifacts, game, players, options, size):
    reduced = size == "phone"  # one of the two widths runs with reduced motion asked for
    context = new_context(viewport=SIZES[size], reduced_motion="reduce" if reduced else "no-preference")
    context.add_init_script(ANIMATIONS)
    page = context.new_page()
    sign_up(page, unique_name("Ana"))
    gid = bot_table(page, game, players, options)
    page.goto(f"/games/{gid}")
    page.get_by_role("region", name="Your moves").wait_for()
    moves = page.get_by_role("region", name="Your moves")
    deadline = time.monotonic() + 40
    while not my_turn_mid_trick(page, game):
        assert time.monotonic() < deadline, "never this person's turn with a trick on the table"
        if page.locator("#turn-line").inner_text() == "Your turn." and game != "kabuki-masks":
            act(page, moves)  # a lead, a deal, the Director, a draft pick: on to a trick
        page.wait_for_timeout(40)
    n = players + (1 if game == "kabuki-tricks" and players == 2 else 0)
    # One look at the whole table (the page re-renders as events come: no
    # element is read twice).
    shot = page.evaluate(SNAPSHOT, game)
    plates, mid = shot["plates"], shot["mid"]
    assert sorted(plates) == [str(s) for s in range(n)], plates
    for seat in range(n):
        b = plates[str(seat)]
        slot = expected_slot(seat, 0, n)
        assert b["slot"] == slot, (seat, b, slot)
        if slot == "me":
            assert b["y"] >= mid["cy"], f"my plate is not below the trick: {b} {mid}"
        elif slot == "top":
            assert b["y"] + b["height"] <= mid["cy"], f"seat {seat} is not above the trick: {b} {mid}"
        elif slot == "left":
            assert b["x"] + b["width"] <= mid["cx"], f"seat {seat} is not left of the trick: {b} {mid}"
        else:
            assert b["x"] >= mid["cx"], f"seat {seat} is not right of the trick: {b} {mid}"
    # The turn on the seat itself: the acting plate, with its clock on it.
    assert shot["acting"] == ["0"], shot["acting"]
    assert re.match(r"^\d+:\d\d", shot["clock"]), shot["clock"]
    # Each card of the trick lies nearer its own seat's plate than any other's.
    if game != "kabuki-masks":
        assert shot["figures"], "no card on the table"
    for f in shot["figures"]:
        dist = {s: (f["cx"] - p["cx"]) ** 2 + (f["cy"] - p["cy"]) ** 2 for s, p in plates.items()}
        assert min(dist, key=dist.get) == f["seat"], f"seat {f['seat']}'s card is nearer another seat: {dist}"
    page.screenshot(path=artifacts / f"table-layout-{game}-{size}.png")
    if game == "tezuma-trick":
        # The seat's ability explains itself: what it does, and why it is grey when it is.
        ability = moves.locator("button[aria-describedby^='hint-']")
        expect(ability).to_have_count(1)
        line = page.locator(f"#{ability.get_attribute('aria-describedby')}")
        name = ability.get_attribute("aria-label")
        expect(line).to_contain_text(re.compile(rf"^{re.escape(name)}: .+ \(\d+ uses? left\)$"))
        assert ability.get_attribute("title"), "what it does, on hover"
        if ability.is_disabled():
            expect(line).to_contain_text(re.compile("Not now|No uses left|Usable once"))
    if size == "phone":
        view = SIZES["phone"]
        assert shot["scrollY"] == 0 and shot["scrollWidth"] <= 360, shot
        things = [("turn line", shot["turn"])] + [(f"seat {s}", b) for s, b in plates.items()]
        things += [(f"trick card of seat {f['seat']}", f) for f in shot["figures"]]
        things += [(f"hand card {i}", c) for i, c in enumerate(shot["hand"])]
        if game == "kabuki-masks":
            things += [("Stop!", shot["stop"]), ("revealed card", shot["revealed"])]
        else:
            assert shot["hand"], "no hand"
        for what, b in things:
            assert b and within(b, view["width"], view["height"]), f"{what} is off the screen: {b}"
    # A move: it moves on screen (under 300 ms), or with reduced motion nothing animates.
    page.evaluate("window.__anims = []")
    if game == "kabuki-masks":
        faces = page.evaluate(FACES)
        moves.locator("button.move:enabled:not(.stop)").first.dispatch_event("click")
        page.wait_for_function(f"() => ({FACES})() !== {faces!r}")  # a pile's top changed
    else:
        label = moves.locator("button.card-move:enabled").first.get_attribute("aria-label")
        renders = page.evaluate("window.__renders")
        moves.locator("button.card-move:enabled").first.dispatch_event("click")
        dialog = page.get_by_role("dialog")
        if dialog.count():  # the Joker: its dialog, on its first legal choice
            dialog.get_by_role("button", name="Confirm").click()
        # The move came back (the move list says it) and the felt has been drawn since.
        page.locator("ol.log > li", has_text=f"the {label}").last.wait_for(state="attached")
        page.wait_for_function(f"() => window.__renders > {renders}")
    if reduced:
        assert page.evaluate("document.getAnimations().length") == 0
        assert page.evaluate("window.__anims") == []
    else:
        page.wait_for_function("() => window.__anims.length > 0")
        anims = page.evaluate("window.__anims")
        assert all(0 < a["duration"] < 300 for a in anims), anims
        if game == "kabuki-masks":  # the pile it went on turned over
            assert any("flip" in a["cls"] for a in anims), anims
        else:  # this person's card travelled to the trick
            assert any(a["seat"] == "0" for a in anims), anims
        durations = page.evaluate("document.getAnimations().map((a) => a.effect.getTiming().duration)")
        assert all(d < 300 for d in durations), durations


def test_a_finished_table_says_it_once_and_numbers_every_move(new_context, artifacts):
    page = new_context(viewport={"width": 1280, "height": 800}).new_page()
    sign_up(page, unique_name("Ana"))
    gid = bot_table(page, "tezuma-trick", 3, {}, delay_ms=0)
    # This person leaves: a house bot plays the seat to the end, in moments.
    assert post(page, f"/api/v1/games/{gid}/leave").status == 200
    deadline = time.monotonic() + 60
    while page.request.get(f"/api/v1/games/{gid}").json()["status"] != "finished":
        assert time.monotonic() < deadline, "the bots did not finish the game"
        time.sleep(0.2)
    page.goto(f"/games/{gid}")
    result = page.get_by_role("heading", name="Result")
    result.wait_for()
    log = page.get_by_role("region", name="Move list").locator("ol.log > li")
    expect(log.nth(99)).to_be_attached()
    expect(page.locator("#turn-line")).to_have_text("The game is over.")
    expect(page.locator("#table-status")).not_to_have_text("The game is over.")
    assert page.locator("#table").inner_text().count("The game is over.") == 1
    assert page.locator('[aria-label="Your moves"] button').count() == 0
    link = page.get_by_role("link", name="Watch the replay")
    assert link.get_attribute("href") == f"/games/{gid}/replay"
    # Who left is not offered the same seats again; nothing reads "null".
    expect(page.get_by_role("button", name="Play again")).to_have_count(0)
    assert "null" not in page.locator("section.result").inner_text()
    # The result beside the felt, not above it (no board pushed down, no empty column).
    board = box(page.get_by_role("region", name="Table"))
    res = box(page.locator("section.result"))
    assert res["x"] >= board["x"] + board["width"] - 1 and res["y"] < board["y"] + board["height"]
    assert board["y"] < res["y"] + res["height"]
    # The move list's numbers from 100 on are whole: the marker fits in the list's padding.
    fits = page.evaluate(
        """() => {
        const ol = document.querySelector('ol.log');
        const n = ol.children.length;
        const c = document.createElement('canvas').getContext('2d');
        const li = ol.children[n - 1];
        const cs = getComputedStyle(li);
        c.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
        return { n, marker: c.measureText(`${n}. `).width, room: parseFloat(getComputedStyle(ol).paddingLeft) };
    }"""
    )
    assert fits["n"] >= 100 and fits["marker"] + 2 <= fits["room"], fits
    # Table headers and cells break between words only ("Tricks", never "Trick|s").
    wraps = page.evaluate(
        "() => [...document.querySelectorAll('#table th, #table td, dialog th')]"
        ".map((c) => getComputedStyle(c).overflowWrap + ' ' + getComputedStyle(c).wordBreak)"
    )
    assert wraps and set(wraps) == {"normal normal"}, set(wraps)
    page.screenshot(path=artifacts / "table-layout-finished-desktop.png")
