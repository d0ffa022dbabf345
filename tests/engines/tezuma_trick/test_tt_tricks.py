"""Card play without abilities: must-follow and the trick winner (TT-5, TT-6),
with the rulebook's three trick examples as fixtures."""

from __future__ import annotations

import pytest

from engines.core import Ctx, RuleError
from engines.tezuma_trick import GAME
from engines.tezuma_trick.actions import Play
from tests.engines.tezuma_trick.tt_helpers import c, plays, table, won

# Seat 0 (player A) leads; B, C, D are seats 1, 2, 3.


def test_rulebook_example_1_all_follow_highest_number_wins():
    state = table(["B9 U1", "B3 U2", "B5 U3", "B2 U4"])
    _, events = plays(state, (0, "B9"), (1, "B3"), (2, "B5"), (3, "B2"))
    assert won(events).winner == 0 and won(events).reason == "high"


def test_rulebook_example_2_off_suit_high_and_following_trump_do_not_win():
    state = table(["B4 U1", "U9 U2", "B7 U3", "BT1 U4"])
    _, events = plays(state, (0, "B4"), (1, "U9"), (2, "B7"), (3, "BT1"))
    assert won(events).winner == 2


def test_rulebook_example_3_first_effective_trump_wins():
    state = table(["B5 U1", "UT1 U2", "BT1 U3", "FT1 U4"])
    _, events = plays(state, (0, "B5"), (1, "UT1"), (2, "BT1"), (3, "FT1"))
    assert won(events).winner == 1 and won(events).reason == "trump"


def test_tt6_must_follow_the_led_suit():
    state = table(["B5 U1", "B2 U9", "B3 U3", "B4 U4"])
    state, _ = plays(state, (0, "B5"))
    assert {a for a in GAME.legal_actions(state, 1) if a.ability is None} == {Play(card=c("B2"))}
    with pytest.raises(RuleError) as err:
        GAME.decide(state, 1, Play(card=c("U9")), Ctx())
    assert err.value.code == "must_follow_suit"


def test_tt6_must_follow_applies_to_a_trump_of_the_led_suit():
    state = table(["B5 U1", "BT1 UT1", "B3 U3", "B4 U4"])
    state, _ = plays(state, (0, "B5"))
    # the only butterflies card is a Trump: it must be played, and it counts 0
    assert {a for a in GAME.legal_actions(state, 1) if a.ability is None} == {Play(card=c("BT1"))}
    with pytest.raises(RuleError) as err:
        GAME.decide(state, 1, Play(card=c("UT1")), Ctx())
    assert err.value.code == "must_follow_suit"


def test_tt6_an_off_suit_trump_only_when_void_and_it_beats_every_number():
    state = table(["B2 U1", "UT1 U2", "B9 U3", "B8 U4"])
    _, events = plays(state, (0, "B2"), (1, "UT1"), (2, "B9"), (3, "B8"))
    assert won(events).winner == 1


def test_tt6_a_led_trump_wins_when_only_trumps_of_its_suit_or_off_suit_cards_follow():
    state = table(["BT1 U1", "BT2 U2", "U9 U3", "F9 U4"])
    _, events = plays(state, (0, "BT1"), (1, "BT2"), (2, "U9"), (3, "F9"))
    assert won(events).winner == 0 and won(events).reason == "high"


def test_tt6_a_led_trump_counts_0_and_loses_to_any_number_of_its_suit():
    state = table(["BT1 U1", "BT2 U2", "B1 U3", "F9 U4"])
    _, events = plays(state, (0, "BT1"), (1, "BT2"), (2, "B1"), (3, "F9"))
    assert won(events).winner == 2


def test_tt6_equal_values_go_to_the_first_played():
    # Horse-Swallowing turns B's 5 into a 7: equal to A's 7, which came first.
    state = table(["B7 U1", "B5 U2", "B3 U3", "B4 U4"], abilities=[None, "horse_swallowing", None, None])
    _, events = plays(state, (0, "B7"), (1, "B5", "horse_swallowing"), (2, "B3"), (3, "B4"))
    assert won(events).winner == 0


def test_tt5_and_winner_leads_the_next_trick():
    state = table(["B2 U1", "B3 U2", "B9 U3", "B4 U4"])
    assert GAME.to_act(state) == {0}
    state, events = plays(state, (0, "B2"), (1, "B3"), (2, "B9"), (3, "B4"))
    assert won(events).next_leader == 2 and GAME.to_act(state) == {2}
    assert state.tricks == (0, 0, 1, 0)
    assert sorted(state.won[2]) == sorted(c(x) for x in ("B2", "B3", "B9", "B4"))


def test_a_seat_out_of_turn_and_a_card_not_held_are_refused():
    state = table(["B2 U1", "B3 U2", "B9 U3", "B4 U4"])
    with pytest.raises(RuleError) as err:
        GAME.decide(state, 1, Play(card=c("B3")), Ctx())
    assert err.value.code == "not_your_turn"
    with pytest.raises(RuleError) as err:
        GAME.decide(state, 0, Play(card=c("B9")), Ctx())
    assert err.value.code == "illegal_card"
    assert "B9" not in err.value.message and "9" not in err.value.message  # never names others' cards
