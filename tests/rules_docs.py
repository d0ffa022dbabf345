"""Reading docs/rules/, the one written source of the games' rules and
rulings, for the tests that check code, pages and engines against it."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES_DIR = ROOT / "docs" / "rules"
# The pages docs/rules/ holds, exactly; each game page is named as its game.
GAME_PAGES = ("kabuki-tricks", "cahoots", "tezuma-trick", "kabuki-masks")
PAGES = ("index", "general", *GAME_PAGES)
# Which ruling prefix belongs to which page.
PREFIX_PAGE = {"GEN": "general", "KT": "kabuki-tricks", "CH": "cahoots", "TT": "tezuma-trick", "KM": "kabuki-masks"}

_PREFIX = "|".join(PREFIX_PAGE)
ID = rf"(?:{_PREFIX})-\d+[a-z]?"
# A definition: a list item whose first words are the id in bold.
DEFINITION = re.compile(rf"^- \*\*({ID})\*\* (.+)$", re.MULTILINE)


def page_text(page: str) -> str:
    return (RULES_DIR / f"{page}.md").read_text(encoding="utf-8")


def definitions() -> list[tuple[str, str, str]]:
    """(page, id, first line of its text) for every ruling docs/rules defines,
    in page order, duplicates kept."""
    found = []
    for page in PAGES:
        for match in DEFINITION.finditer(page_text(page)):
            found.append((page, match.group(1), match.group(2)))
    return found


def defined_ids(page: str | None = None) -> list[str]:
    return [ruling for where, ruling, _text in definitions() if page is None or where == page]
