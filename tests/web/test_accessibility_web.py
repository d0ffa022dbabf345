"""Accessibility of every page, read from Chromium's own
accessibility tree (the DevTools protocol): one h1, the landmarks banner,
main and navigation, no form control, button, link or image without a name;
the keyboard focus visible (an outline of 2 px or more, at 3:1 contrast with
what is around it) on the first stops of the Tab order; the text of buttons
and links at 4.5:1; and at 360 px nothing wider than the screen. And
axe-core (npm, node_modules/axe-core; injected on a context that bypasses
the page's CSP only for the checker) finds nothing serious or critical on
any page at 1280 or 360 px."""

from __future__ import annotations

import time

import httpx

from tests.conftest import ROOT
from tests.web.conftest import unique_name

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"


def axe_findings(page) -> list[str]:
    """axe-core's serious and critical violations on the page as it stands."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    violations = page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']})).violations")
    return [
        f"axe {v['id']} ({v['impact']}): {v['help']}: {[n['target'] for n in v['nodes']][:4]}"
        for v in violations
        if v["impact"] in ("serious", "critical")
    ]


NAMED_ROLES = {
    "button",
    "link",
    "textbox",
    "combobox",
    "listbox",
    "checkbox",
    "radio",
    "spinbutton",
    "slider",
    "searchbox",
    "switch",
    "menuitem",
    "tab",
    "img",
    "image",
    "dialog",
}

# The focused element's outline, and its contrast with the background around
# it (the nearest ancestor's opaque background: the outline is drawn outside).
FOCUS = """() => {
  const a = document.activeElement;
  if (!a || a === document.body) return null;
  const parse = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = (rgb) => { const [r, g, b] = rgb.map((v) => { v /= 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  let around = [255, 255, 255];
  for (let e = a.parentElement; e; e = e.parentElement) {
    const c = parse(getComputedStyle(e).backgroundColor);
    if (c.length >= 3 && (c.length < 4 || c[3] > 0.5)) { around = c.slice(0, 3); break; }
  }
  const s = getComputedStyle(a);
  const outline = parse(s.outlineColor).slice(0, 3);
  const [hi, lo] = [lum(outline), lum(around)].sort((x, y) => y - x);
  const label = (a.getAttribute('aria-label') || a.textContent || '').trim().slice(0, 30);
  return { what: `${a.tagName}.${a.className} ${label}`,
           style: s.outlineStyle, width: parseFloat(s.outlineWidth), contrast: (hi + 0.05) / (lo + 0.05) };
}"""

# Buttons and links whose text is hard to read on what is behind them (WCAG
# AA: 4.5:1; disabled controls are exempt, as WCAG says).
LOW_CONTRAST = """() => {
  const parse = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = (rgb) => { const [r, g, b] = rgb.map((v) => { v /= 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const behind = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c.length >= 3 && (c.length < 4 || c[3] > 0.5)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  return [...document.querySelectorAll('button:not(:disabled), a[href]')]
    .filter((el) => el.getClientRects().length && el.textContent.trim() && !el.querySelector('.card'))
    .map((el) => {
      const [hi, lo] = [lum(parse(getComputedStyle(el).color).slice(0, 3)), lum(behind(el))].sort((x, y) => y - x);
      return [`${el.tagName}.${el.className} ${el.textContent.trim().slice(0, 30)}`, (hi + 0.05) / (lo + 0.05)];
    })
    .filter(([, ratio]) => ratio < 4.5).map(([what, ratio]) => `${what}: ${ratio.toFixed(1)}:1`).slice(0, 5);
}"""

WIDER_THAN_SCREEN = """() => [...document.querySelectorAll('body *')]
  .filter((el) => el.getBoundingClientRect().right > innerWidth + 1)
  .map((el) => `${el.tagName}.${el.className}: ${(el.textContent || '').slice(0, 40)}`).slice(0, 8)"""


def audit_tree(page) -> list[str]:
    """What Chromium's accessibility tree lacks: h1s, landmarks, names."""
    cdp = page.context.new_cdp_session(page)
    nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    cdp.detach()
    problems = []
    roles = []
    for node in nodes:
        if node.get("ignored"):
            continue
        role = node.get("role", {}).get("value", "")
        name = str(node.get("name", {}).get("value", "")).strip()
        roles.append(role)
        if role in NAMED_ROLES and not name:
            problems.append(f"a {role} without a name (node {node.get('backendDOMNodeId')})")
        if role == "heading":
            level = next((p["value"]["value"] for p in node.get("properties", []) if p["name"] == "level"), None)
            if level == 1:
                roles.append("h1")
    for landmark in ("banner", "main", "navigation"):
        if landmark not in roles:
            problems.append(f"no {landmark} landmark")
    if roles.count("h1") != 1:
        problems.append(f"{roles.count('h1')} h1 headings, not one")
    if roles.count("main") > 1 or roles.count("banner") > 1:
        problems.append("more than one main or banner")
    return problems


def audit_focus(page, stops: int = 40) -> list[str]:
    """Tab from the top: every stop shows a visible outline."""
    page.evaluate("() => { document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0); }")
    problems, seen = [], set()
    for _ in range(stops):
        page.keyboard.press("Tab")
        f = page.evaluate(FOCUS)
        if f is None or f["what"] in seen:
            break
        seen.add(f["what"])
        if f["style"] == "none" or f["width"] < 2 or f["contrast"] < 3:
            problems.append(
                f"focus hardly visible on {f['what']}: {f['style']} {f['width']}px, contrast {f['contrast']:.1f}"
            )
    return problems


def _finished_game(http: httpx.Client, auth: dict, ranked: bool = False) -> str:
    gid = http.post(
        "/api/v1/games", json={"game": "kabuki-tricks", "players": 3, "bot_delay_ms": 0, "ranked": ranked}, headers=auth
    ).json()["game_id"]
    for seat in range(3):
        assert (
            http.post(f"/api/v1/games/{gid}/bots", json={"seat": seat, "bot": "random"}, headers=auth).status_code
            == 200
        )
    deadline = time.monotonic() + 60
    while http.get(f"/api/v1/games/{gid}").json()["status"] != "finished":
        assert time.monotonic() < deadline, "the bot game did not finish"
        time.sleep(0.1)
    return gid


def test_every_page_has_landmarks_names_visible_focus_and_fits_360_px(new_context, live):
    name, password = unique_name("Ada"), "correct horse battery"
    with httpx.Client(base_url=live.base_url, timeout=30) as http:
        me = http.post("/api/v1/players", json={"name": name, "password": password}).json()
        auth = {"Authorization": f"Bearer {me['token']}"}
        # Ranked, so the leaderboards have rows (6 columns) to fit into 360 px,
        # as they do on a running service; alone on a fresh database they
        # would show "nobody yet" and prove nothing.
        finished = _finished_game(http, auth, ranked=True)
        deadline = time.monotonic() + 30
        while not http.get("/api/v1/leaderboards/kabuki-tricks").json()["bots"]:
            assert time.monotonic() < deadline, "the worker did not rate the ranked game"
            time.sleep(0.2)
        # A table where this person sits and has cards to play ("Your moves").
        mine = http.post(
            "/api/v1/games", json={"game": "kabuki-tricks", "players": 3, "bot_delay_ms": 0}, headers=auth
        ).json()["game_id"]
        assert http.post(f"/api/v1/games/{mine}/seats", json={"seat": 0}, headers=auth).status_code == 200
        for seat in (1, 2):
            assert (
                http.post(f"/api/v1/games/{mine}/bots", json={"seat": seat, "bot": "random"}, headers=auth).status_code
                == 200
            )
        tid = http.post(
            "/api/v1/tournaments",
            headers=auth,
            json={
                "game": "cahoots",
                "ranked": False,
                "start_ms": int(time.time() * 1000) + 3_600_000,
                "format": "swiss",
                "rounds": 1,
                "table_size": 3,
            },
        ).json()["tournament_id"]
    # bypass_csp: the page's CSP refuses injected scripts, axe's included.
    page = new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True).new_page()
    page.goto("/signin")
    page.get_by_label("Name").fill(name)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/")
    pages = {
        "/": "#tables-open",
        "/signup": "form",
        "/signin": "form",
        "/account": "form",
        **{f"/how-to-play/{g}": "article" for g in ("kabuki-tricks", "cahoots", "tezuma-trick", "kabuki-masks")},
        f"/games/{mine}": ".your-moves button.card-move",
        f"/games/{finished}": "section.result:not([hidden])",
        f"/games/{finished}/replay?at=20": '#board[data-at="20"]',
        "/live": "#live-status",
        "/tournaments": "#create-form",
        f"/tournaments/{tid}": "#t-entrants",
        "/leaderboards": "#lb-bots table",
        "/leaderboards/kabuki-tricks": "#lb-bots table",
        f"/players/{me['player_id']}": "#p-tournaments",
        "/agents": "form",
    }
    problems = []
    for path, ready in pages.items():
        page.set_viewport_size({"width": 1280, "height": 900})
        page.goto(path)
        page.locator(ready).first.wait_for()
        page.locator("#who button").wait_for()  # the modules ran (nav.js: signed in, "Sign out")
        problems += [f"{path}: {p}" for p in audit_tree(page) + audit_focus(page)]
        problems += [f"{path}: text hard to read: {p}" for p in page.evaluate(LOW_CONTRAST)]
        problems += [f"{path} at 1280: {p}" for p in axe_findings(page)]
        page.set_viewport_size({"width": 360, "height": 780})
        page.wait_for_timeout(100)
        if page.evaluate("document.documentElement.scrollWidth") > 360:
            problems.append(f"{path}: wider than 360 px: {page.evaluate(WIDER_THAN_SCREEN)}")
        problems += [f"{path} at 360: {p}" for p in axe_findings(page)]
    assert not problems, "\n".join(problems)
