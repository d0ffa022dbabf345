"""Each language renders without a missing string: the pages in
Italian and Spanish, chosen by the switch (its cookie) or Accept-Language.
A key missing from a glossary is a console error in i18n.js, which the
conftest guard turns into a failure; the page text must show no raw key."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from tests.web.conftest import sign_up, unique_name

GLOSSARY = Path(__file__).resolve().parents[2] / "services" / "web" / "static" / "i18n"
PAGES = ["/", "/live", "/tournaments", "/leaderboards", "/how-to-play/kabuki-masks", "/account", "/agents"]


EMPTY_LISTS = """() => [...document.querySelectorAll('ul.tables')].map((ul) => {
  const copy = ul.cloneNode(false);
  ul.after(copy);
  const content = getComputedStyle(copy, '::after').content;
  copy.remove();
  return content;
})"""


def assert_translated(page, lang: str) -> None:
    keys = json.loads((GLOSSARY / "en.json").read_text(encoding="utf-8"))
    page.wait_for_function("() => document.readyState === 'complete'")
    assert page.evaluate("document.documentElement.lang") == lang
    body = page.inner_text("body")
    raw = [k for k in keys if k in body]
    assert not raw, f"{page.url}: raw keys shown {raw}"
    # An empty list of tables says so in the language (app.css shows data-empty):
    # what each list on the page shows once empty, read from an empty copy of it.
    none = json.loads((GLOSSARY / f"{lang}.json").read_text(encoding="utf-8"))["common.none_right_now"]
    shown = page.evaluate(EMPTY_LISTS)
    assert all(text == json.dumps(none) for text in shown), f"{page.url}: empty lists show {shown}, not {none!r}"


@pytest.mark.parametrize("lang, lobby", [("it", "Sala"), ("es", "Sala")])
def test_each_language_renders_without_a_missing_string(new_context, lang, lobby):
    if lang == "it":
        # A visitor whose browser asks for Italian (Accept-Language).
        page = new_context(locale="it-IT").new_page()
        page.goto("/")
        header = ("link", "Accedi")
    else:
        # A signed-in person who picks Spanish with the switch (its cookie).
        page = new_context().new_page()
        sign_up(page, unique_name("i18n-es"))
        page.get_by_role("navigation", name="Language").get_by_role("link", name="Español").click()
        page.wait_for_url("**/")
        header = ("button", "Cerrar sesión")
    for path in PAGES:
        page.goto(path)
        assert_translated(page, lang)
        # The header's module (nav.js) speaks the language too.
        page.locator("#who").get_by_role(header[0], name=header[1]).wait_for()
    page.goto("/")
    assert page.get_by_role("heading", level=1).inner_text() == lobby
    # Back to English by the switch: the cookie now says en.
    switch = "Lingua" if lang == "it" else "Idioma"
    page.get_by_role("navigation", name=switch).get_by_role("link", name="English").click()
    page.get_by_role("heading", name="Lobby", level=1).wait_for()
    assert_translated(page, "en")


# A finished game of house bots watched in another language: the table page's
# modules (table.js, games/*.js) speak it, with the rulebook's card names
# (Kabuki Tricks' Italian edition: "7 Viola"; the Spanish mask game: Máscara,
# fichas de PV), and no English sentence of the move list is left.
TABLES = [
    (
        "it",
        "kabuki-tricks",
        3,
        {},
        ["Elenco delle mosse", "Risultato", "ha vinto il trick", "Viola"],
        ["played the", "won the trick", " points", " tricks", "Move list"],
    ),
    (
        "es",
        "kabuki-masks",
        2,
        # A placement waits out the stop window: 300 ms made ~140 placements 45 s.
        {"stop_window_ms": 50},
        ["Lista de jugadas", "Resultado", "Máscara", "fichas de PV"],
        ["placed", "tokens", " on pile ", "Move list"],
    ),
]


@pytest.mark.parametrize("lang, game, players, options, present, absent", TABLES, ids=[t[1] for t in TABLES])
def test_a_table_page_speaks_the_language(new_context, live, lang, game, players, options, present, absent):
    with httpx.Client(base_url=live.base_url, timeout=30) as http:
        host = http.post("/api/v1/players", json={"name": unique_name("host")}).json()
        auth = {"Authorization": f"Bearer {host['token']}"}
        body = {"game": game, "players": players, "options": options, "bot_delay_ms": 0}
        gid = http.post("/api/v1/games", json=body, headers=auth).json()["game_id"]
        page = new_context(locale=lang).new_page()
        page.goto(f"/games/{gid}")  # the move list is written live, as the bots play
        page.get_by_text(present[0]).wait_for()
        for seat in range(players):
            assert (
                http.post(f"/api/v1/games/{gid}/bots", json={"seat": seat, "bot": "random"}, headers=auth).status_code
                == 200
            )
        page.get_by_role("heading", name=present[1]).wait_for(timeout=60_000)
        assert_translated(page, lang)
        text = page.inner_text("body")
        for word in present:
            assert word in text, f"{lang}: {word!r} missing"
        for english in absent:
            assert english not in text, f"{lang}: English {english!r} left"
