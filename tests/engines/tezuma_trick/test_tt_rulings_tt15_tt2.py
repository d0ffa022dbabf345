"""TT-15 (which card an ability may be declared with) and TT-2 under
`pain_face_value` (a Trump costs 1): settled by an independent check of the
engine; these tests pin what the engine does."""

from __future__ import annotations

import pytest

from engines.core import Ctx, RuleError
from engines.tezuma_trick import GAME
from engines.tezuma_trick.actions import Play
from engines.tezuma_trick.events import HandScored
from engines.tezuma_trick.rules import pain_of
from tests.engines.tezuma_trick.tt_helpers import c, cs, plays, table, with_, won


def refused(state, seat, action) -> str:
    with pytest.raises(RuleError) as err:
        GAME.decide(state, seat, action, Ctx())
    assert action not in GAME.legal_actions(state, seat)
    return err.value.code


def listed(state, seat, action) -> bool:
    return action in GAME.legal_actions(state, seat)


# --- TT-15: abilities that name their card ------------------------------------------


def test_tt15_butterfly_dance_only_with_a_trump():
    state = table(["B5 U1", "BT1 B2", "B9 U3"], abilities=[None, "butterfly_dance", None])
    state, _ = plays(state, (0, "B5"))
    assert refused(state, 1, Play(card=c("B2"), ability="butterfly_dance")) == "illegal_card"
    assert listed(state, 1, Play(card=c("BT1"), ability="butterfly_dance"))


def test_tt15_many_umbrellas_only_with_a_4_or_a_5():
    state = table(["B3 U1", "B6 B4 B5", "B9 U3"], abilities=[None, "many_umbrellas", None])
    state, _ = plays(state, (0, "B3"))
    assert refused(state, 1, Play(card=c("B6"), ability="many_umbrellas")) == "illegal_card"
    assert listed(state, 1, Play(card=c("B4"), ability="many_umbrellas"))
    assert listed(state, 1, Play(card=c("B5"), ability="many_umbrellas"))


def test_tt15_many_umbrellas_is_spent_with_a_4_that_still_loses_tt7():
    state = table(["B9 U1", "B4 B5", "B2 U3"], abilities=[None, "many_umbrellas", None])
    uses = state.uses[1]
    state, events = plays(state, (0, "B9"), (1, "B4", "many_umbrellas"), (2, "B2"))
    assert won(events).winner == 0  # 8 does not beat 9: the outcome is unchanged ...
    assert state.uses[1] == uses - 1  # ... and the use is spent all the same (TT-7, TT-15)


def test_tt15_fire_breathing_only_with_two_number_cards():
    state = table(["U1 M1", "BT1 B3 B4", "B9 U3"], abilities=[None, "fire_breathing", None])
    state, _ = plays(state, (0, "U1"))  # seat 1 is void in umbrellas: any suit, but two numbers
    assert refused(state, 1, Play(card=c("B3"), ability="fire_breathing", second=c("BT1"))) == "illegal_card"
    assert listed(state, 1, Play(card=c("B3"), ability="fire_breathing", second=c("B4")))


@pytest.mark.parametrize("ability", ["horse_swallowing", "sword_walking", "water_trick", "chicks", "pail_dance"])
def test_tt15_other_abilities_with_any_card_the_player_may_play(ability):
    # A Trump played off-suit, and a number of the led suit: both allowed,
    # whether or not the ability changes anything for that card.
    void = table(["U1 M1", "BT1 B2", "U9 U3"], abilities=[None, ability, None])
    void, _ = plays(void, (0, "U1"))
    assert listed(void, 1, Play(card=c("BT1"), ability=ability))
    assert listed(void, 1, Play(card=c("B2"), ability=ability))
    following = table(["B5 M1", "B2 UT1", "B9 U3"], abilities=[None, ability, None])
    following, _ = plays(following, (0, "B5"))
    assert listed(following, 1, Play(card=c("B2"), ability=ability))
    # ... but only what the follow rule allows: not the off-suit Trump while holding B2
    assert refused(following, 1, Play(card=c("UT1"), ability=ability)) == "must_follow_suit"


# --- TT-2: pain_face_value ------------------------------------------------------------


def test_tt2_pain_face_value_a_trump_costs_1_and_a_number_its_number():
    won_cards = cs("BT1 BT2 B7 B2 U5")
    assert pain_of(won_cards, 0, face_value=True) == 1 + 1 + 7 + 2  # butterflies only; Trumps 1 each
    assert pain_of(won_cards, 0, face_value=False) == 4  # base TT-2: 1 per card, Trumps included


def test_tt2_pain_face_value_in_a_scored_hand():
    options = GAME.make_options({"pain_face_value": True})
    # The last trick of a hand: seat 0 (pain suit butterflies) wins B9, the
    # following Trump BT1 (counts 0 in the led suit, TT-6) and B2.
    state = table(["B9", "BT1", "B2"], pains=[0, 1, 2], options=options)
    state = with_(state, trick_no=12)
    _, events = plays(state, (0, "B9"), (1, "BT1"), (2, "B2"))
    assert won(events).winner == 0
    (scored,) = [e for e in events if isinstance(e, HandScored)]
    assert scored.pain[0] == 9 + 1 + 2  # the Trump costs 1 (TT-2)
