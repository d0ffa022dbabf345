"""The flow of a Cahoots game: set-up (CH-1, CH-2), card play (CH-3), keep/kill
(CH-4), the reserve (CH-6), the last trick (CH-7), and the rulebook example."""

from __future__ import annotations

from collections import Counter

import pytest

from engines.cahoots import GAME
from engines.cahoots.actions import Keep, Kill, Pick, Play
from engines.cahoots.cards import CUPS, DECK, SUIT_OF, THREE_PLAYER_DECK, THREE_PLAYER_RESERVE, VALUE_OF
from engines.cahoots.events import Chose, Dealt, GameEnded, Started, TrickScored
from engines.core import Chance, Ctx, RuleError
from engines.playout import play_game
from tests.engines.cahoots.ch_helpers import I1, I2, I3, I4, Table, c

OPTIONS = GAME.make_options({})


def test_deck_has_48_cards_eight_per_suit_4_5_5_6_6_7_7_8():
    assert len(DECK) == 48
    for suit in range(6):
        assert sorted(VALUE_OF[x] for x in DECK if SUIT_OF[x] == suit) == [4, 5, 5, 6, 6, 7, 7, 8]


def test_three_players_remove_one_5_and_one_7_of_each_suit_into_the_reserve():
    assert len(THREE_PLAYER_DECK) == 36 and len(THREE_PLAYER_RESERVE) == 12
    assert Counter(VALUE_OF[x] for x in THREE_PLAYER_RESERVE) == {5: 6, 7: 6}
    assert Counter(SUIT_OF[x] for x in THREE_PLAYER_RESERVE) == {s: 2 for s in range(6)}
    events = GAME.new_game(3, OPTIONS, Chance(5))
    started, dealt = events
    assert sorted(started.reserve) == sorted(THREE_PLAYER_RESERVE)
    assert sorted(x for hand in dealt.hands for x in hand) == sorted(THREE_PLAYER_DECK)


@pytest.mark.parametrize("players", [3, 4])
def test_every_player_is_dealt_twelve_cards(players):
    started, dealt = GAME.new_game(players, OPTIONS, Chance(3))
    assert isinstance(started, Started) and isinstance(dealt, Dealt)
    assert [len(hand) for hand in dealt.hands] == [12] * players
    assert started.seed == 3 and len(started.deck) == 12 * players


def test_ch1_identity_cards_and_ch2_dealer_are_drawn_from_chance():
    seen_identities, seen_dealers = set(), set()
    for seed in range(40):
        started = GAME.new_game(4, OPTIONS, Chance(seed))[0]
        assert sorted(started.identities) == [0, 1, 2, 3]
        seen_identities.add(started.identities)
        seen_dealers.add(started.dealer)
    assert len(seen_identities) > 5 and seen_dealers == {0, 1, 2, 3}
    fixed = Chance(0, fixed={"identities": [2, 0, 3, 1], "dealer": [3]})
    started = GAME.new_game(4, OPTIONS, fixed)[0]
    assert started.identities == (2, 0, 3, 1) and started.dealer == 3


def test_ch1_three_players_one_identity_card_stays_out_and_each_has_a_suit_alone():
    started = GAME.new_game(3, OPTIONS, Chance(0, fixed={"identities": [0, 1, 2, 3]}))[0]
    assert started.identities == (0, 1, 2)
    from engines.cahoots.cards import IDENTITIES

    for seat in range(3):
        others = set().union(*(IDENTITIES[i] for s, i in enumerate(started.identities) if s != seat))
        assert len(set(IDENTITIES[started.identities[seat]]) - others) == 1


def test_ch2_the_dealer_starts_the_first_trick_and_the_start_moves_left():
    table = Table(dealer=2)
    assert GAME.to_act(table.state) == {2}
    for trick in range(1, 5):
        assert table.state.trick == trick and table.state.start == (2 + trick - 1) % 4
        table.play_any_trick()


def test_ch3_two_laps_from_the_start_player_and_any_card_may_be_played():
    table = Table(dealer=1)
    order = []
    for _ in range(8):
        seat = table.state.actor
        order.append(seat)
        # no following: every card in hand is legal, whatever was led
        assert GAME.legal_actions(table.state, seat) == [Play(x) for x in table.state.hands[seat]]
        table.act(seat, GAME.legal_actions(table.state, seat)[-1])
    assert order == [1, 2, 3, 0, 1, 2, 3, 0]
    assert table.state.phase == "choose" and table.state.actor == 1


def test_refusals_have_stable_codes():
    table = Table(hands={0: [c("8S")], 1: [c("5C")]})
    with pytest.raises(RuleError) as err:
        GAME.decide(table.state, 1, Play(c("5C")), Ctx(0))
    assert err.value.code == "not_your_turn"
    with pytest.raises(RuleError) as err:
        GAME.decide(table.state, 0, Play(c("5C")), Ctx(0))
    # the refusal must not tell seat 0 who holds the 5 of clubs
    assert err.value.code == "illegal_card" and "clubs" not in err.value.message
    with pytest.raises(RuleError) as err:
        GAME.decide(table.state, 0, Keep(c("8S")), Ctx(0))
    assert err.value.code == "wrong_phase"
    with pytest.raises(RuleError) as err:
        GAME.decide(table.state, 0, Pick(c("8S")), Ctx(0))
    assert err.value.code == "wrong_phase"
    with pytest.raises(RuleError) as err:
        GAME.decode_action({"type": "discard", "card": 3})
    assert err.value.code == "bad_action"


# --- the rulebook's example of play -------------------------------------------
# Anne (seat 0, I1 spades-hearts-stars) starts; Bob (1, I2), Carrie (2, I3),
# Derek (3, I4). Identities as in CH-1.

EXAMPLE_HANDS = {
    0: [c("8S"), c("5Cu")],
    1: [c("5C"), c("6Cu")],
    2: [c("6D"), c("7Cu")],
    3: [c("6S"), c("8H")],
}


def example_table(**options) -> Table:
    table = Table(identities=(I1, I2, I3, I4), dealer=0, hands=EXAMPLE_HANDS, **options)
    table.play("8S", "5C", "6D", "6S", "5Cu", "6Cu", "7Cu", "8H")
    return table


def test_rulebook_example_cups_win_and_bob_and_derek_score_two_each():
    table = example_table()
    assert table.state.phase == "choose"
    # Pass 1: Anne keeps 8S, Bob keeps 8H, Carrie kills 7Cu, Derek kills 5C.
    table.choose("+8S", "+8H", "-7Cu", "-5C")
    # Pass 2: the rulebook says Anne kills "the 6 of cups", but Derek keeps
    # the only 6 of cups played (Bob's); the card left for Anne is the 5 of
    # cups, which makes four killed cards as the example says.
    table.choose("-5Cu", "-6S", "+6D", "+6Cu")
    scored = [e for e in table.events if isinstance(e, TrickScored)][0]
    assert scored.winning_suits == (CUPS,)
    assert scored.points == (0, 2, 0, 2)
    assert table.state.scores == (0, 2, 0, 2)
    # kept cards joined the hands: 12 - 2 + 1
    assert c("8S") in table.state.hands[0] and c("8H") in table.state.hands[1]
    assert c("6D") in table.state.hands[2] and c("6Cu") in table.state.hands[3]
    assert [len(h) for h in table.state.hands] == [11] * 4
    assert sorted(table.state.discard) == sorted(map(c, ["7Cu", "5C", "5Cu", "6S"]))
    # Bob becomes the next starting player (CH-2).
    assert table.state.start == 1 and GAME.to_act(table.state) == {1}


def test_ch4_any_card_on_the_table_may_be_taken_including_ones_own():
    table = example_table()
    legal = GAME.legal_actions(table.state, 0)
    assert Keep(c("8S")) in legal and Kill(c("5Cu")) in legal  # Anne's own cards
    assert len(legal) == 16  # 8 cards, keep or kill


def test_ch4_second_pass_does_the_opposite_of_the_first():
    table = example_table()
    table.choose("+8S", "-8H", "-7Cu", "+5C")
    # Anne kept first: now she must kill.
    assert all(isinstance(a, Kill) for a in GAME.legal_actions(table.state, 0))
    with pytest.raises(RuleError) as err:
        GAME.decide(table.state, 0, Keep(c("6S")), Ctx(0))
    assert err.value.code == "must_kill"
    table.choose("-6S")
    # Bob killed first: now he must keep.
    assert all(isinstance(a, Keep) for a in GAME.legal_actions(table.state, 1))
    with pytest.raises(RuleError) as err:
        GAME.decide(table.state, 1, Kill(c("6D")), Ctx(0))
    assert err.value.code == "must_keep"


def test_ch4_a_card_already_taken_cannot_be_taken_again():
    table = example_table()
    table.choose("+8S")
    with pytest.raises(RuleError) as err:
        GAME.decide(table.state, 1, Kill(c("8S")), Ctx(0))
    assert err.value.code == "illegal_card"
    assert Kill(c("8S")) not in GAME.legal_actions(table.state, 1)


def test_ch4_and_ch9_choices_are_public_events():
    table = example_table()
    events = table.act(0, Keep(c("8S")))
    assert events == [Chose(0, c("8S"), True)]
    assert GAME.redact(events[0], None) == events[0] and GAME.redact(events[0], 2) == events[0]


def test_ch6_three_players_add_one_reserve_card_so_four_points_are_distributed():
    reserve = list(reversed(THREE_PLAYER_RESERVE))
    table = Table(players=3, identities=(I1, I2, I3), dealer=0, reserve=reserve)
    table.play_any_trick()
    scored = [e for e in table.events if isinstance(e, TrickScored)][0]
    assert scored.reserve_card == reserve[0]
    assert len(table.state.reserve) == 11
    assert sum(scored.points) in (3, 4)  # 3 when three scorers share (CH-5)
    killed = [x for x, keep in table.state.last_trick.choices if not keep]
    assert len(killed) == 3 and sorted(table.state.discard) == sorted(killed + [reserve[0]])


@pytest.mark.parametrize("players", [3, 4])
def test_ch2_eleven_tricks_and_hands_shrink_by_one_per_trick(players):
    table = Table(players=players, identities=(I1, I2, I3, I4), dealer=1)
    for trick in range(1, 12):
        assert table.state.trick == trick
        assert [len(h) for h in table.state.hands] == [13 - trick] * players
        table.play_any_trick()
    assert GAME.is_over(table.state)
    assert table.state.hands == ((),) * players


def test_ch7_last_trick_needs_no_choices_in_base_scoring():
    table = Table(dealer=0)
    for _ in range(10):
        table.play_any_trick()
    assert table.state.trick == 11
    for _ in range(8):
        table.act(table.state.actor, GAME.legal_actions(table.state, table.state.actor)[0])
    # the eighth card ended the game: no keep/kill was asked for
    assert GAME.is_over(table.state)
    assert not any(isinstance(e, Chose) for e in table.events[-4:])
    assert sum(table.state.scores) == sum(
        e.points[s] for e in table.events if isinstance(e, TrickScored) for s in range(4)
    )


def test_ch7_last_trick_with_face_value_scoring_still_chooses_point_cards():
    table = Table(dealer=0, face_value_scoring=True)
    while table.state.trick < 11:
        table.play_any_trick()
    for _ in range(8):
        table.act(table.state.actor, GAME.legal_actions(table.state, table.state.actor)[0])
    assert table.state.phase == "choose"
    table.play_any_trick()
    assert GAME.is_over(table.state)
    # the last trick's kept cards have no hand to join
    assert table.state.hands == ((),) * 4


def test_final_event_carries_seed_and_result():
    playout = play_game(GAME, 4, OPTIONS, 77, ["random"] * 4)
    final = playout.log[-1]
    assert isinstance(final, GameEnded) and final.seed == 77
    result = GAME.result(playout.state)
    assert list(final.scores) == result.scores and list(final.places) == result.places
    assert list(final.winners) == result.winners
    assert GAME.redact(final, None) == final


def test_ties_for_the_win_are_shared():
    playout = play_game(GAME, 4, OPTIONS, 3, ["random"] * 4)
    state = playout.state
    from msgspec.structs import replace

    tied = replace(state, scores=(10, 12, 12, 3))
    result = GAME.result(tied)
    assert result.winners == [1, 2] and result.places == [3, 1, 1, 4]


def test_deal_is_reproducible_from_the_seed():
    first = GAME.new_game(4, OPTIONS, Chance(123))
    again = GAME.new_game(4, OPTIONS, Chance(123))
    assert first == again
    assert GAME.new_game(4, OPTIONS, Chance(124))[1] != first[1]
