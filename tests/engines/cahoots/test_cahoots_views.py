"""CH-9: hands and the reserve are hidden; played cards, choices, identity
cards and scores are public; after the game everything is public."""

from __future__ import annotations

from engines.cahoots import GAME
from engines.cahoots.events import Dealt, Started
from engines.core import Chance
from engines.playout import play_game
from tests.engines.cahoots.ch_helpers import Table, c
from tests.engines.cahoots.test_cahoots_rules import example_table

OPTIONS = GAME.make_options({})


def test_ch9_start_event_hides_seed_deal_order_and_reserve_from_everyone():
    started, dealt = GAME.new_game(3, OPTIONS, Chance(9))
    for viewer in (None, 0, 1, 2):
        seen = GAME.redact(started, viewer)
        assert isinstance(seen, Started)
        assert seen.seed is None and seen.deck == () and seen.reserve == ()
        assert seen.identities == started.identities and seen.dealer == started.dealer


def test_ch9_each_seat_sees_only_its_own_dealt_hand():
    started, dealt = GAME.new_game(4, OPTIONS, Chance(9))
    seen = GAME.redact(dealt, 2)
    assert isinstance(seen, Dealt)
    assert seen.hands[2] == dealt.hands[2] and seen.hands[0] == seen.hands[1] == seen.hands[3] == ()
    assert GAME.redact(dealt, None).hands == ((),) * 4


def test_ch9_views_hide_hands_but_show_table_choices_identities_scores():
    table = example_table()
    table.choose("+8S", "+8H")
    spectator = GAME.view(table.state, None)
    seat1 = GAME.view(table.state, 1)
    assert spectator.hand == () and seat1.hand == table.state.hands[1]
    assert spectator.hand_sizes == (10, 10, 10, 10)
    assert [card for _, card in spectator.table] == list(map(c, ["8S", "5C", "6D", "6S", "5Cu", "6Cu", "7Cu", "8H"]))
    assert spectator.table[1] == (1, c("5C"))
    assert spectator.choices == ((0, c("8S"), True), (1, c("8H"), True))
    assert spectator.identities == (0, 1, 2, 3) and spectator.scores == (0, 0, 0, 0)
    assert spectator.to_act == (2,)
    hidden = GAME.hidden_cards(table.state, None)
    assert set(table.state.hands[0]) <= hidden and not GAME.revealed_cards(spectator) & hidden


def test_ch9_kept_cards_are_known_in_their_new_hand():
    table = example_table()
    table.choose("+8S", "+8H", "-7Cu", "-5C", "-5Cu", "-6S", "+6D", "+6Cu")
    spectator = GAME.view(table.state, None)
    assert spectator.known_hands[1] == (c("8H"),)
    assert c("8H") not in GAME.hidden_cards(table.state, 0)
    assert c("8H") in GAME.revealed_cards(spectator)
    assert spectator.last_trick.points == (0, 2, 0, 2)


def test_ch9_reserve_is_hidden_until_a_card_joins_the_points():
    table = Table(players=3, identities=(0, 1, 2), dealer=0)
    assert set(table.state.reserve) <= GAME.hidden_cards(table.state, 0)
    view = GAME.view(table.state, 0)
    assert view.reserve == () and view.reserve_size == 12


def test_after_the_game_everything_is_public():
    playout = play_game(GAME, 3, OPTIONS, 11, ["random"] * 3)
    state = playout.state
    assert GAME.hidden_cards(state, None) == frozenset()
    spectator = GAME.view(state, None)
    assert spectator.seed == 11 and len(spectator.reserve) == 1
    assert spectator.phase == "over" and spectator.to_act == ()
