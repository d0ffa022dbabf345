"""The pages' texts in Italian and Spanish name the games' terms in their own
language: a ruling that names a Tezuma Trick ability says it as the table
does (tt.ability.*), not in English."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

I18N = Path(__file__).resolve().parents[2] / "services" / "web" / "static" / "i18n"


def _texts(lang: str) -> dict[str, str]:
    return json.loads((I18N / f"{lang}.json").read_text())


@pytest.mark.parametrize("lang", ["it", "es"])
def test_rulings_name_abilities_as_the_table_does(lang):
    english, own = _texts("en"), _texts(lang)
    abilities = {k: v for k, v in english.items() if k.startswith("tt.ability.") and own.get(k) not in (None, v)}
    assert abilities, "no translated ability names to check against"
    stray = sorted(
        f"{key}: {name}"
        for key, text in own.items()
        if key.startswith("ruling.")
        for name in abilities.values()
        if name in text
    )
    assert stray == []
