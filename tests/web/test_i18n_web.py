"""Each language renders without a missing string (issue 15): the pages in
Italian and Spanish, chosen by the switch (its cookie) or Accept-Language.
A key missing from a glossary is a console error in i18n.js, which the
conftest guard turns into a failure; the page text must show no raw key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.web.conftest import sign_up, unique_name

GLOSSARY = Path(__file__).resolve().parents[2] / "services" / "web" / "static" / "i18n"
PAGES = ["/", "/live", "/tournaments", "/leaderboards", "/how-to-play/kabuki-masks", "/account", "/agents"]


def assert_translated(page, lang: str) -> None:
    keys = json.loads((GLOSSARY / "en.json").read_text(encoding="utf-8"))
    page.wait_for_function("() => document.readyState === 'complete'")
    assert page.evaluate("document.documentElement.lang") == lang
    body = page.inner_text("body")
    raw = [k for k in keys if k in body]
    assert not raw, f"{page.url}: raw keys shown {raw}"


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
