"""The "How to play" pages against docs/rules/ and against the engines: the
same rulings on every page and in every language, the same player counts,
and the follow rule each page states played out on its engine (an off-suit
card while holding the led suit), so that page and game cannot drift apart.
No servers: the pages' HTML comes from services/web/howto.py."""

from __future__ import annotations

import random
import re

import pytest

from engines.cahoots import cards as ch_cards
from engines.cahoots.state import PLAY as CH_PLAY
from engines.core import Chance, Ctx, RuleError
from engines.kabuki_tricks import cards as kt_cards
from engines.kabuki_tricks.state import PLAY as KT_PLAY
from engines.registry import get_game
from engines.tezuma_trick import cards as tt_cards
from services.web.howto import _PAGES, FOLLOW, how_to_play
from services.web.i18n import LANGS, text
from tests.rules_docs import GAME_PAGES, defined_ids, page_text

GAMES = list(_PAGES)
# How each language says the opposite of "you must follow suit".
NO_DUTY = {
    "en": r"no duty to follow|need not follow|not have to follow",
    "it": r"(senza|non c'è|nessun) obbligo di rispondere",
    "es": r"(sin|no hay|ninguna) obligación de seguir",
}


def page(game: str, lang: str) -> str:
    html = how_to_play(game, lang)
    assert html is not None
    return html


def words(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace("&#x27;", "'").replace("&quot;", '"')


def test_the_pages_are_the_games_of_docs_rules():
    assert sorted(GAMES) == sorted(GAME_PAGES)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("game", GAMES)
def test_each_page_lists_exactly_the_rulings_docs_rules_defines(game, lang):
    listed = re.findall(r"<li><strong>([A-Z]+-\d+[a-z]?)</strong>", page(game, lang))
    assert listed == defined_ids(game)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("game", GAMES)
def test_pages_name_no_code(game, lang):
    shown = words(page(game, lang))
    assert "`" not in shown
    assert not re.findall(r"\b[a-z]+_[a-z_]+\b", shown), shown


@pytest.mark.parametrize("game", GAMES)
def test_player_counts_are_the_engines_and_docs_rules(game):
    engine = get_game(game)
    counts = f"{engine.min_players}-{engine.max_players}"
    # The index's table of games: | [Title](game.md) | 2-5 | ...
    assert re.search(rf"\]\({game}\.md\) \| {counts} \|", page_text("index")), counts
    for lang in LANGS:
        stated = text(lang, "howto.players", low=engine.min_players, high=engine.max_players)
        assert stated in words(page(game, lang))


@pytest.mark.parametrize("game", sorted(FOLLOW))
def test_the_follow_rule_a_page_states_is_docs_rules_and_only_that(game):
    rule = FOLLOW[game]
    docs = page_text(game)
    assert re.search(r"must[- ]follow" if rule == "must" else r"(no|without any) duty to follow", docs, re.I)
    other = "free" if rule == "must" else "must"
    for lang in LANGS:
        shown = words(page(game, lang))
        assert text(lang, f"howto.follow.{rule}") in shown, lang
        assert text(lang, f"howto.follow.{other}") not in shown, lang
        if rule == "must":
            assert not re.search(NO_DUTY[lang], shown, re.I), (lang, re.search(NO_DUTY[lang], shown, re.I))


# --- the follow rule, played on the engine ------------------------------------


def _led_suit(game: str, state) -> int | None:
    if game == "kabuki-tricks":
        return kt_cards.SUIT_OF[state.trick[0]] if state.phase == KT_PLAY and state.trick else None
    if game == "cahoots":
        return ch_cards.SUIT_OF[state.table[0]] if state.phase == CH_PLAY and state.table else None
    return state.led if getattr(state, "queue", None) and state.led >= 0 else None


def _suit_of(game: str):
    return {"kabuki-tricks": kt_cards.SUIT_OF, "cahoots": ch_cards.SUIT_OF, "tezuma-trick": tt_cards.SUIT_OF}[game]


def a_choice_to_follow(game: str, players: int, seed: int):
    """Plays random legal moves until a seat to play holds a card of the led
    suit and one of another suit: (state, seat, led-suit card, other card)."""
    engine = get_game(game)
    rng = random.Random(seed)
    state = engine.fold(engine.new_game(players, engine.make_options({}), Chance(seed)))
    suit_of = _suit_of(game)
    for _ in range(3000):
        if engine.is_over(state):
            break
        seat = min(engine.to_act(state))
        legal = engine.legal_actions(state, seat)
        led = _led_suit(game, state)
        if led is not None and any(type(a).__name__ == "Play" for a in legal):
            hand = state.hands[seat]
            on = [c for c in hand if suit_of[c] == led] if max(hand) < len(suit_of) else []
            off = [c for c in hand if c < len(suit_of) and suit_of[c] not in (led, -1)]
            if on and off:
                return state, seat, on[0], off[0]
        state = engine.fold(engine.decide(state, seat, rng.choice(legal), Ctx()), state)
    raise AssertionError(f"{game}: no seat ever held both the led suit and another")


@pytest.mark.parametrize("game", sorted(FOLLOW))
def test_the_follow_rule_the_page_states_is_what_the_engine_does(game):
    engine = get_game(game)
    players = engine.min_players if game != "kabuki-tricks" else 3
    for seed in (1, 2, 3):
        state, seat, on_suit, off_suit = a_choice_to_follow(game, players, seed)
        play = engine.decode_action({"type": "play", "card": off_suit})
        assert engine.decide(state, seat, engine.decode_action({"type": "play", "card": on_suit}), Ctx())
        if FOLLOW[game] == "must":
            with pytest.raises(RuleError) as refused:
                engine.decide(state, seat, play, Ctx())
            assert refused.value.code == "must_follow_suit"
        else:
            assert engine.decide(state, seat, play, Ctx())


# --- Tezuma Trick: abilities and Bid cards, the engine's, docs/rules' and the page's


def test_tezuma_abilities_and_their_uses_are_the_engines_everywhere():
    docs = page_text("tezuma-trick")
    for name, uses in zip(tt_cards.ABILITY_NAMES, tt_cards.ABILITY_USES, strict=True):
        english = text("en", f"tt.ability.{name}")
        assert re.search(rf"\*\*{re.escape(english)}\*\* \({uses} uses?\)", docs), english
        for lang in LANGS:
            times = text(lang, "howto.tt.uses." + ("one" if uses == 1 else "other"), n=uses)
            item = f"<strong>{text(lang, f'tt.ability.{name}')}</strong> ({times})"
            assert item.replace("'", "&#x27;") in page("tezuma-trick", lang), (lang, name)


def test_tezuma_bid_cards_are_the_engines_in_docs_and_on_every_page():
    rows = re.findall(r"^\| ([\d, ortoor]+?) \| (\d+) \|", page_text("tezuma-trick"), re.MULTILINE)

    def counts(cell: str) -> tuple[int, ...]:
        numbers = [int(n) for n in re.findall(r"\d+", cell)]
        return tuple(range(numbers[0], numbers[1] + 1)) if " to " in cell else tuple(numbers)

    assert [(counts(cell), int(points)) for cell, points in rows] == list(tt_cards.DEFAULT_BID_CARDS)
    for lang in LANGS:
        table = re.search(r'<table class="bids">.*?</table>', page("tezuma-trick", lang))
        assert table and table.group(0).count("<tr>") == len(tt_cards.DEFAULT_BID_CARDS) + 1, lang
        for lang_words in (text(lang, "howto.tt.scoring"), text(lang, "howto.tt.abilities")):
            assert lang_words in page("tezuma-trick", lang)
