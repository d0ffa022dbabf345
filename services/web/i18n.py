"""The pages' languages: English, Italian and Spanish, the
rulebooks' languages. One glossary per language, static/i18n/<lang>.json,
read by the server-rendered shells (here) and by our ES modules (i18n.js).

The language is the hm_lang cookie if the visitor chose one with the switch
on every page (GET /lang/{code}), else the best of Accept-Language, else
English. Card and rule names follow the rulebook in that language where one
exists (Kabuki Tricks: English and Italian; the mask game: Spanish), the
glossary's own words otherwise."""

from __future__ import annotations

import json
from functools import cache
from html import escape
from pathlib import Path

LANGS = ("en", "it", "es")
NAMES = {"en": "English", "it": "Italiano", "es": "Español"}
DEFAULT = "en"
COOKIE = "hm_lang"
CURRENT = ' aria-current="true"'
DIR = Path(__file__).parent / "static" / "i18n"


@cache
def glossary(lang: str) -> dict[str, str]:
    return json.loads((DIR / f"{lang}.json").read_text(encoding="utf-8"))


def choose(cookie: str | None, accept_language: str | None) -> str:
    """The cookie's language if it is one of ours, else Accept-Language's
    best match by q-value (a region like it-CH counts as it), else en."""
    if cookie in LANGS:
        return cookie
    best, best_q = DEFAULT, -1.0
    for order, part in enumerate((accept_language or "").split(",")[:20]):
        tag, _, params = part.strip().partition(";")
        base = tag.strip().lower().split("-")[0]
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                continue
        # Earlier entries win ties: subtract a tiny amount by position.
        q -= order * 1e-6
        if base in LANGS and q > 0 and q > best_q:
            best, best_q = base, q
    return best


def lang_of(request) -> str:
    return choose(request.cookies.get(COOKIE), request.headers.get("accept-language"))


def text(lang: str, key: str, **values: object) -> str:
    """The key's text in `lang` (English if missing there: the tests make
    sure nothing is missing), with {name} placeholders filled."""
    raw = glossary(lang).get(key)
    if raw is None:
        raw = glossary(DEFAULT)[key]
    return raw.format(**values) if values else raw


def translator(lang: str):
    """_(key) -> HTML-escaped text, for the shells' templates."""
    return lambda key, **values: escape(text(lang, key, **values))


def switch(lang: str, path: str) -> str:
    """The language switch in every page's header: links that set the
    cookie and come back to the same page."""
    items = "".join(
        f'<li><a href="/lang/{code}?next={escape(path, quote=True)}" hreflang="{code}" lang="{code}"'
        f"{CURRENT if code == lang else ''}>{NAMES[code]}</a></li>"
        for code in LANGS
    )
    return f'<nav class="langs" aria-label="{escape(text(lang, "nav.language"))}"><ul>{items}</ul></nav>'
