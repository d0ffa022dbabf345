"""The twelve Ability cards and the rulings TT-7..TT-13, one test (or more)
each, with the conflicts between abilities. Seat 0 (A) leads; B, C, D follow."""

from __future__ import annotations

import pytest

from engines.core import Ctx, RuleError
from engines.tezuma_trick import GAME
from engines.tezuma_trick.actions import Egg, Play, Sand
from engines.tezuma_trick.cards import ABILITY_IDS, ABILITY_USES
from tests.engines.tezuma_trick.tt_helpers import c, cs, plays, table, with_, won


def refused(state, seat, action) -> str:
    with pytest.raises(RuleError) as err:
        GAME.decide(state, seat, action, Ctx())
    assert action not in GAME.legal_actions(state, seat)
    return err.value.code


def test_ability_uses_per_card():
    uses = {name: ABILITY_USES[i] for name, i in ABILITY_IDS.items()}
    assert uses["sword_walking"] == uses["paper_egg"] == 4
    assert uses["five_color_sand"] == 1
    assert all(uses[name] == 2 for name in uses if name not in ("sword_walking", "paper_egg", "five_color_sand"))


# --- Sword Walking (TT-11) -------------------------------------------------------


def test_tt11_sword_walking_wins_with_an_effective_trump_that_was_not_first():
    state = table(["B5 U1", "UT1 U2", "FT1 U3", "B9 U4"], abilities=[None, None, "sword_walking", None])
    _, events = plays(state, (0, "B5"), (1, "UT1"), (2, "FT1", "sword_walking"), (3, "B9"))
    assert (won(events).winner, won(events).reason) == (2, "sword_walking")


def test_tt11_without_sword_walking_the_first_effective_trump_wins():
    state = table(["B5 U1", "UT1 U2", "FT1 U3", "B9 U4"], abilities=[None, None, "sword_walking", None])
    _, events = plays(state, (0, "B5"), (1, "UT1"), (2, "FT1"), (3, "B9"))
    assert won(events).winner == 1


def test_tt11_sword_walking_wins_a_tie_for_the_highest_value_over_the_first_played():
    state = table(["B5 U1", "B7 U2", "B3 U3", "B4 U4"], abilities=["horse_swallowing", "sword_walking", None, None])
    _, events = plays(state, (0, "B5", "horse_swallowing"), (1, "B7", "sword_walking"), (2, "B3"), (3, "B4"))
    assert (won(events).winner, won(events).reason) == (1, "sword_walking")


def test_tt11_sword_walking_does_not_lift_a_lower_card():
    state = table(["B8 U1", "B7 U2", "B3 U3", "B4 U4"], abilities=[None, "sword_walking", None, None])
    state, events = plays(state, (0, "B8"), (1, "B7", "sword_walking"), (2, "B3"), (3, "B4"))
    assert won(events).winner == 0
    assert state.uses[1] == 3  # TT-7: the use is spent even though it changed nothing


def test_tt11_sword_walking_has_no_effect_with_an_ineffective_trump():
    state = table(["B5 U1", "UT1 U2", "FT1 U3", "M2 U4"], abilities=[None, None, "sword_walking", "water_trick"])
    _, events = plays(state, (0, "B5"), (1, "UT1"), (2, "FT1", "sword_walking"), (3, "M2", "water_trick"))
    assert won(events).winner == 0


# --- Butterfly Dance (TT-8, TT-12) ------------------------------------------------


def test_butterfly_dance_makes_a_trump_effective_even_when_it_follows_suit():
    state = table(["B5 U1", "BT1 B2", "B9 U3", "B4 U4"], abilities=[None, "butterfly_dance", None, None])
    _, events = plays(state, (0, "B5"), (1, "BT1", "butterfly_dance"), (2, "B9"), (3, "B4"))
    assert (won(events).winner, won(events).reason) == (1, "trump")


def test_butterfly_dance_is_declared_with_a_trump_card():
    state = table(["B5 U1", "BT1 B2", "B9 U3", "B4 U4"], abilities=[None, "butterfly_dance", None, None])
    state, _ = plays(state, (0, "B5"))
    assert refused(state, 1, Play(card=c("B2"), ability="butterfly_dance")) == "illegal_card"


def test_tt8_the_leader_may_not_use_butterfly_dance():
    state = table(["BT1 U1", "B2 U2", "B3 U3", "B4 U4"], abilities=["butterfly_dance", None, None, None])
    assert refused(state, 0, Play(card=c("BT1"), ability="butterfly_dance")) == "leader_cannot_use"


@pytest.mark.parametrize("water_first", [True, False])
def test_tt12_butterfly_dance_beats_water_trick_in_either_order(water_first):
    if water_first:
        state = table(["B5 U1", "B9 U3", "BT1 B2", "B4 U4"], abilities=[None, "water_trick", "butterfly_dance", None])
        moves = [(0, "B5"), (1, "B9", "water_trick"), (2, "BT1", "butterfly_dance"), (3, "B4")]
        dancer = 2
    else:
        state = table(["B5 U1", "BT1 B2", "B9 U3", "B4 U4"], abilities=[None, "butterfly_dance", "water_trick", None])
        moves = [(0, "B5"), (1, "BT1", "butterfly_dance"), (2, "B9", "water_trick"), (3, "B4")]
        dancer = 1
    _, events = plays(state, *moves)
    assert won(events).winner == dancer


# --- Linking Ring (TT-8) ----------------------------------------------------------


def test_linking_ring_plays_any_suit_while_holding_the_led_suit():
    state = table(["B5 U1", "B2 U9", "B3 U3", "B4 U4"], abilities=[None, "linking_ring", None, None])
    state, _ = plays(state, (0, "B5"))
    assert refused(state, 1, Play(card=c("U9"))) == "must_follow_suit"
    _, events = plays(state, (1, "U9", "linking_ring"), (2, "B3"), (3, "B4"))
    assert won(events).winner == 0  # an off-suit number still cannot win


@pytest.mark.parametrize("trump", ["UT1", "BT1"])
def test_linking_ring_makes_the_trump_played_effective(trump):
    state = table(["B5 U1", f"B2 {trump}", "B9 U3", "B4 U4"], abilities=[None, "linking_ring", None, None])
    _, events = plays(state, (0, "B5"), (1, trump, "linking_ring"), (2, "B9"), (3, "B4"))
    assert (won(events).winner, won(events).reason) == (1, "trump")


def test_tt8_the_leader_may_not_use_linking_ring():
    state = table(["B5 U1", "B2 U2", "B3 U3", "B4 U4"], abilities=["linking_ring", None, None, None])
    assert refused(state, 0, Play(card=c("B5"), ability="linking_ring")) == "leader_cannot_use"


# --- Cup and Ball (TT-8) ----------------------------------------------------------


def test_cup_and_ball_counts_an_off_suit_card_in_the_led_suit():
    state = table(["B5 U1", "B2 U9", "B3 U3", "B4 U4"], abilities=[None, "cup_and_ball", None, None])
    _, events = plays(state, (0, "B5"), (1, "U9", "cup_and_ball"), (2, "B3"), (3, "B4"))
    assert (won(events).winner, won(events).reason) == (1, "high")


def test_cup_and_ball_makes_an_off_suit_trump_ineffective():
    state = table(["B5 U1", "UT1 U2", "B3 U3", "B4 U4"], abilities=[None, "cup_and_ball", None, None])
    _, events = plays(state, (0, "B5"), (1, "UT1", "cup_and_ball"), (2, "B3"), (3, "B4"))
    assert won(events).winner == 0


def test_tt8_the_leader_may_not_use_cup_and_ball():
    state = table(["B5 U1", "B2 U2", "B3 U3", "B4 U4"], abilities=["cup_and_ball", None, None, None])
    assert refused(state, 0, Play(card=c("B5"), ability="cup_and_ball")) == "leader_cannot_use"


# --- Fire Breathing (TT-9) --------------------------------------------------------


def test_tt9_fire_breathing_sums_two_cards_and_the_lower_returns_to_hand_publicly():
    state = table(["B5 U1", "B3 B4 U2", "B6 U3", "B2 U4"], abilities=[None, "fire_breathing", None, None])
    state, events = plays(state, (0, "B5"), (1, "B3", "fire_breathing", "B4"), (2, "B6"), (3, "B2"))
    event = won(events)
    assert (event.winner, event.returned, event.returned_to) == (1, c("B3"), 1)
    assert c("B3") in state.hands[1] and c("B3") not in state.won[1]
    assert c("B4") in state.won[1]
    for viewer in (None, 0, 2):  # everyone knows the returned card is in B's hand
        assert c("B3") in GAME.view(state, viewer).seats[1].shown
    assert c("B3") not in GAME.hidden_cards(state, 0)


def test_tt9_both_fire_breathing_cards_must_follow_suit():
    state = table(["B5 U1", "B3 U4 U5", "B6 U3", "B2 U4"], abilities=[None, "fire_breathing", None, None])
    state, _ = plays(state, (0, "B5"))
    assert refused(state, 1, Play(card=c("U4"), ability="fire_breathing", second=c("U5"))) == "illegal_card"
    assert not [a for a in GAME.legal_actions(state, 1) if a.ability == "fire_breathing"]


def test_tt9_fire_breathing_plays_number_cards_only_and_off_suit_when_void():
    state = table(["B5 U1", "U4 U5 UT1", "B6 U3", "B2 U4"], abilities=[None, "fire_breathing", None, None])
    state, _ = plays(state, (0, "B5"))
    pairs = {(a.card, a.second) for a in GAME.legal_actions(state, 1) if a.ability == "fire_breathing"}
    assert pairs == {(c("U4"), c("U5"))}
    assert refused(state, 1, Play(card=c("U4"), ability="fire_breathing", second=c("UT1"))) == "illegal_card"


def test_tt9_the_leader_may_breathe_fire_and_equal_sums_go_to_the_first_played():
    state = table(["B3 B4 U1", "B7 U2", "B6 U3", "B2 U4"], abilities=["fire_breathing", None, None, None])
    state, events = plays(state, (0, "B3", "fire_breathing", "B4"), (1, "B7"), (2, "B6"), (3, "B2"))
    assert won(events).winner == 0 and state.led == -1


# --- Paper Egg (TT-7, TT-8) ---------------------------------------------------------


def test_tt7_paper_egg_is_declared_before_playing_and_the_user_plays_last():
    state = table(["B7 U1", "B5 B2", "B3 U3", "B4 U4"], abilities=[None, "paper_egg", None, None])
    state, _ = plays(state, (0, "B7"), (1, "egg"))
    assert GAME.to_act(state) == {2} and state.uses[1] == 3
    state, _ = plays(state, (2, "B3"), (3, "B4"))
    assert GAME.to_act(state) == {1}
    # TT-7: at most one ability per trick, so the egg's user plays plainly
    assert all(a.ability is None for a in GAME.legal_actions(state, 1))
    assert refused(state, 1, Play(card=c("B5"), ability="paper_egg")) == "one_ability_per_trick"
    state, events = plays(state, (1, "B5"))
    assert [e.seat for e in events if type(e).__name__ == "Played"] == [1] and won(events).winner == 0


def test_paper_egg_moves_the_user_behind_every_other_player_in_play_order():
    # B eggs and plays its 7 last: D's equal 7 (Horse-Swallowing on a 5) now
    # came first and wins the tie (TT-6).
    state = table(["B2 U1", "B7 B1", "B3 U3", "B5 U4"], abilities=[None, "paper_egg", None, "horse_swallowing"])
    state, events = plays(state, (0, "B2"), (1, "egg"), (2, "B3"), (3, "B5", "horse_swallowing"), (1, "B7"))
    assert won(events).winner == 3


def test_tt8_the_leader_may_not_use_paper_egg_and_it_is_its_own_action():
    state = table(["B5 U1", "B2 U2", "B3 U3", "B4 U4"], abilities=["paper_egg", "chicks", None, None])
    assert refused(state, 0, Egg()) == "leader_cannot_use"
    state, _ = plays(state, (0, "B5"))
    assert refused(state, 1, Egg()) == "not_your_ability"
    state = table(["B5 U1", "B2 U2", "B3 U3", "B4 U4"], abilities=[None, "paper_egg", None, None])
    state, _ = plays(state, (0, "B5"))
    assert refused(state, 1, Play(card=c("B2"), ability="paper_egg")) == "bad_action"


# --- Water Trick (TT-12) ------------------------------------------------------------


def test_tt12_water_trick_makes_trumps_already_played_ineffective():
    state = table(["B5 U1", "UT1 U2", "B2 U3", "B4 U4"], abilities=[None, None, "water_trick", None])
    _, events = plays(state, (0, "B5"), (1, "UT1"), (2, "B2", "water_trick"), (3, "B4"))
    assert won(events).winner == 0


def test_tt12_water_trick_makes_later_off_suit_trumps_ineffective():
    state = table(["B5 U1", "B2 U2", "UT1 U3", "B4 U4"], abilities=[None, "water_trick", None, None])
    _, events = plays(state, (0, "B5"), (1, "B2", "water_trick"), (2, "UT1"), (3, "B4"))
    assert won(events).winner == 0


# --- Chicks and Pail Dance (TT-13) ---------------------------------------------------


def test_chicks_the_user_leads_next_whoever_wins():
    state = table(["B9 U1", "B2 U2", "B3 U3", "B4 U4"], abilities=[None, None, "chicks", None])
    state, events = plays(state, (0, "B9"), (1, "B2"), (2, "B3", "chicks"), (3, "B4"))
    assert (won(events).winner, won(events).next_leader) == (0, 2)
    assert state.tricks[0] == 1 and GAME.to_act(state) == {2}


def test_pail_dance_the_player_left_of_the_user_leads_next():
    state = table(["B9 U1", "B2 U2", "B3 U3", "B4 U4"], abilities=[None, None, "pail_dance", None])
    state, events = plays(state, (0, "B9"), (1, "B2"), (2, "B3", "pail_dance"), (3, "B4"))
    assert (won(events).winner, won(events).next_leader) == (0, 3)
    assert GAME.to_act(state) == {3}


def test_pail_dance_wraps_around_the_table():
    state = table(["B9 U1", "B2 U2", "B3 U3", "B4 U4"], abilities=[None, None, None, "pail_dance"])
    _, events = plays(state, (0, "B9"), (1, "B2"), (2, "B3"), (3, "B4", "pail_dance"))
    assert won(events).next_leader == 0


@pytest.mark.parametrize(("chicks_seat", "pail_seat", "leader"), [(1, 2, 3), (2, 1, 2)])
def test_tt13_chicks_against_pail_dance_the_later_use_decides(chicks_seat, pail_seat, leader):
    abilities = [None] * 4
    abilities[chicks_seat], abilities[pail_seat] = "chicks", "pail_dance"
    state = table(["B9 U1", "B2 U2", "B3 U3", "B4 U4"], abilities=abilities)
    names = {chicks_seat: "chicks", pail_seat: "pail_dance"}
    _, events = plays(state, (0, "B9"), (1, "B2", names[1]), (2, "B3", names[2]), (3, "B4"))
    assert won(events).next_leader == leader


# --- Horse-Swallowing and Many Umbrellas --------------------------------------------


def test_horse_swallowing_adds_two():
    state = table(["B7 U1", "B6 U2", "B3 U3", "B4 U4"], abilities=[None, "horse_swallowing", None, None])
    _, events = plays(state, (0, "B7"), (1, "B6", "horse_swallowing"), (2, "B3"), (3, "B4"))
    assert won(events).winner == 1


def test_horse_swallowing_gives_an_ineffective_trump_a_value_of_2():
    state = table(["B1 U1", "BT1 U2", "U3 U5", "U4 U6"], abilities=[None, "horse_swallowing", None, None])
    _, events = plays(state, (0, "B1"), (1, "BT1", "horse_swallowing"), (2, "U3"), (3, "U4"))
    assert (won(events).winner, won(events).reason) == (1, "high")


@pytest.mark.parametrize(("card", "beats"), [("B4", "B7"), ("B5", "B9")])
def test_many_umbrellas_doubles_a_4_or_a_5(card, beats):
    state = table([f"{beats} U1", f"{card} U2", "B3 U3", "B2 U4"], abilities=[None, "many_umbrellas", None, None])
    _, events = plays(state, (0, beats), (1, card, "many_umbrellas"), (2, "B3"), (3, "B2"))
    assert won(events).winner == 1


def test_many_umbrellas_is_declared_with_a_4_or_a_5():
    state = table(["B9 U1", "B6 U2", "B3 U3", "B2 U4"], abilities=[None, "many_umbrellas", None, None])
    state, _ = plays(state, (0, "B9"))
    assert refused(state, 1, Play(card=c("B6"), ability="many_umbrellas")) == "illegal_card"


# --- Five-Color Sand (TT-10) -----------------------------------------------------------


def test_tt10_five_color_sand_wins_without_a_card_and_keeps_an_extra_card():
    state = table(["B9 U1", "B2 U2", "B3 U3", "B4 U4"], abilities=[None, "five_color_sand", None, None])
    state, events = plays(state, (0, "B9"), (1, "sand"), (2, "B3"), (3, "B4"))
    assert (won(events).winner, won(events).reason) == (1, "five_color_sand")
    assert len(state.hands[1]) == 2 and [len(h) for h in state.hands] == [1, 2, 1, 1]
    assert state.uses[1] == 0


def test_tt10_five_color_sand_beats_sword_walking():
    state = table(["B5 U1", "B2 U2", "UT1 U3", "B4 U4"], abilities=[None, "five_color_sand", "sword_walking", None])
    _, events = plays(state, (0, "B5"), (1, "sand"), (2, "UT1", "sword_walking"), (3, "B4"))
    assert won(events).winner == 1


def test_tt10_a_leader_using_sand_lets_the_left_player_lead_any_card():
    state = table(["B9 U1", "B2 U2 U9", "B3 U3", "B4 U4"], abilities=["five_color_sand", "linking_ring", None, None])
    state, _ = plays(state, (0, "sand"))
    assert GAME.to_act(state) == {1}
    # B is now the lead player: any card, but not Linking Ring (TT-8)
    assert {a.card for a in GAME.legal_actions(state, 1)} == set(cs("B2 U2 U9"))
    assert all(a.ability is None for a in GAME.legal_actions(state, 1))
    state, _ = plays(state, (1, "U2"))
    assert refused(state, 2, Play(card=c("B3"))) == "must_follow_suit"
    state, events = plays(state, (2, "U3"), (3, "U4"))
    assert won(events).winner == 0


def test_tt10_hand_end_disregards_the_extra_card():
    state = table(["B9", "B2 U2", "B3", "B4"], abilities=[None, "five_color_sand", None, None], bids=[0, 1, 2, 3])
    state = with_(state, trick_no=12, tricks=(3, 2, 4, 2))
    before = state
    _, events = plays(state, (0, "B9"), (1, "sand"), (2, "B3"), (3, "B4"))
    scored = [e for e in events if type(e).__name__ == "HandScored"][0]
    # the hands as the hand ends (the next deal follows in the same command)
    state = GAME.fold(events[: events.index(scored) + 1], before)
    assert scored.tricks == (3, 3, 4, 2) and len(state.hands[1]) == 2
    # bid card 1 = {0, 1, 2: 3}: 3 tricks miss it; the kept cards cost no pain
    assert scored.points[1] == 0 and scored.pain[1] == 0


# --- TT-7: declaring, spending and counting uses -------------------------------------


def test_tt7_a_use_is_spent_even_if_it_changes_nothing_and_uses_run_out():
    state = table(["B9 B8 B7", "B1 B2 B3", "U1 U2 U3", "M1 M2 M3"], abilities=[None, "horse_swallowing", None, None])
    state, _ = plays(state, (0, "B9"), (1, "B1", "horse_swallowing"), (2, "U1"), (3, "M1"))
    assert state.uses[1] == 1
    state, _ = plays(state, (0, "B8"), (1, "B2", "horse_swallowing"), (2, "U2"), (3, "M2"))
    assert state.uses[1] == 0
    state, _ = plays(state, (0, "B7"))
    assert refused(state, 1, Play(card=c("B3"), ability="horse_swallowing")) == "no_uses_left"


def test_tt7_only_the_seats_own_ability_and_one_kind_per_play():
    state = table(["B9 U1", "B2 U2", "B3 U3", "B4 U4"], abilities=[None, "chicks", None, None])
    state, _ = plays(state, (0, "B9"))
    assert refused(state, 1, Play(card=c("B2"), ability="pail_dance")) == "not_your_ability"
    assert refused(state, 1, Play(card=c("B2"), ability="no_such")) == "bad_action"
    assert refused(state, 1, Play(card=c("B2"), second=c("U2"))) == "bad_action"
    assert refused(state, 1, Sand()) == "not_your_ability"


def test_tt7_the_used_ability_is_public():
    state = table(["B9 U1", "B2 U2", "B3 U3", "B4 U4"], abilities=[None, "chicks", None, None])
    state, events = plays(state, (0, "B9"), (1, "B2", "chicks"))
    assert events[-1].ability == "chicks"
    view = GAME.view(state, None)
    assert view.trick[-1].ability == "chicks" and view.seats[1].uses_left == 1
