"""The pages' languages: English, Italian and Spanish glossaries
(services/web/static/i18n/*.json) complete, every key the shells and our
modules use defined, the language chosen from the cookie or Accept-Language,
the switch's cookie, and the rulebooks' own names in their languages."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest

from engines.registry import available
from services.web.howto import howto_keys
from services.web.i18n import LANGS, choose

WEB = Path(__file__).resolve().parents[2] / "services" / "web"
STATIC = WEB / "static"


def glossary(lang: str) -> dict[str, str]:
    return json.loads((STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


@pytest.mark.parametrize("lang", ["it", "es"])
def test_every_key_is_translated(lang):
    en, other = glossary("en"), glossary(lang)
    missing = sorted(set(en) - set(other)) + sorted(set(howto_keys()) - set(other))
    assert not missing, f"untranslated in {lang}: {missing}"
    for key, text in other.items():
        assert text.strip(), f"{lang}: {key} is empty"
        if key in en:
            assert placeholders(text) == placeholders(en[key]), f"{lang}: {key} has other placeholders"


def used_keys() -> set[str]:
    """Every literal key the shells (_("k")), the how-to pages (text(lang,
    "k")) and our modules (t("k")) use, and the keys built from names."""
    keys: set[str] = set()
    for py in WEB.glob("*.py"):
        source = py.read_text(encoding="utf-8")
        keys |= set(re.findall(r"""\b_\(\s*["']([a-z][\w.-]*\w)["']""", source))
        keys |= set(re.findall(r"""\btext\(\s*lang,\s*["']([a-z][\w.-]*\w)["']""", source))
    for js in [*STATIC.glob("*.js"), *STATIC.glob("games/*.js")]:
        # t("k"), or tr("k") where a module's `t` names something else (a tournament).
        keys |= set(re.findall(r"""\btr?\(\s*["']([a-z][\w.-]*\w)["']""", js.read_text(encoding="utf-8")))
        # Plurals: tp("k", n) reads k.one and k.other (i18n.js).
        for key in re.findall(r"""\btp\(\s*["']([a-z][\w.-]*\w)["']""", js.read_text(encoding="utf-8")):
            keys |= {f"{key}.one", f"{key}.other"}
    keys |= {f"game.{g}" for g in available()}
    keys |= {f"agents.reason.{r}" for r in ("timeout", "unreachable", "invalid_response", "illegal_action")}
    return keys


def test_every_key_used_exists_in_english():
    keys = used_keys()
    assert len(keys) > 100  # the scan found the shells' and modules' keys
    assert not sorted(keys - set(glossary("en")))


def test_language_from_cookie_then_accept_language():
    assert choose(None, None) == "en"
    assert choose(None, "it-CH,it;q=0.9,en;q=0.8") == "it"
    assert choose(None, "de-DE, es;q=0.7, en;q=0.5") == "es"
    assert choose(None, "fr, en;q=0.1") == "en"
    assert choose(None, "es;q=0, it;q=0.2") == "it"
    assert choose(None, "es;q=bad") == "en"
    assert choose("es", "it") == "es"
    assert choose("xx", "it") == "it"  # an unknown cookie is ignored


def test_pages_render_in_the_chosen_language(server):
    it = httpx.get(server.base_url + "/", headers={"Accept-Language": "it-IT,it;q=0.9"})
    assert '<html lang="it">' in it.text and "<h1>Sala</h1>" in it.text and "Tavoli in gioco" in it.text
    cookie = httpx.get(server.base_url + "/live", headers={"Accept-Language": "it"}, cookies={"hm_lang": "es"})
    assert '<html lang="es">' in cookie.text and "<h1>En directo</h1>" in cookie.text
    en = httpx.get(server.base_url + "/tournaments")
    assert '<html lang="en">' in en.text and "<h1>Tournaments</h1>" in en.text
    # The switch on every page: links back to the same page in each language.
    assert "/lang/it?next=/tournaments" in en.text and "/lang/es?next=/tournaments" in en.text
    for lang in LANGS:
        r = httpx.get(f"{server.base_url}/assets/i18n/{lang}.json")
        assert r.status_code == 200 and r.json()["nav.lobby"]


def test_the_switch_sets_the_cookie_and_goes_back_on_this_site_only(server):
    r = httpx.get(server.base_url + "/lang/es?next=/tournaments%3Fx%3D1")
    assert r.status_code == 303 and r.headers["location"] == "/tournaments?x=1"
    assert "hm_lang=es" in r.headers["set-cookie"]
    for hostile in ("//evil.example/", "https://evil.example/", "/\\evil.example"):
        away = httpx.get(server.base_url + "/lang/it", params={"next": hostile})
        assert away.status_code == 303 and away.headers["location"] == "/", hostile
    unknown = httpx.get(server.base_url + "/lang/xx?next=/live")
    assert unknown.status_code == 303 and "set-cookie" not in unknown.headers


def test_rule_names_follow_the_rulebook_of_that_language(server):
    # Kabuki Tricks' Italian edition: carte Scommessa, Attori, carta High-Low.
    it = httpx.get(server.base_url + "/how-to-play/kabuki-tricks", cookies={"hm_lang": "it"}).text
    assert "<h1>Come si gioca a Kabuki Tricks</h1>" in it and "Scommessa" in it and "High-Low" in it
    assert "<strong>KT-5</strong>" in it and "Chiarimenti" in it
    # The mask game's Spanish rulebook: Máscara, fichas de PV, ¡Alto!
    es = httpx.get(server.base_url + "/how-to-play/kabuki-masks", cookies={"hm_lang": "es"}).text
    assert "Máscara" in es and "fichas de PV" in es and "¡Alto!" in es and "<strong>KM-5a</strong>" in es
    # English stays the English rulebook's words.
    en = httpx.get(server.base_url + "/how-to-play/kabuki-masks").text
    assert "<h1>How to play Kabuki, the mask memory game</h1>" in en
