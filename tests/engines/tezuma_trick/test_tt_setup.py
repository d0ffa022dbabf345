"""Set-up and draft: the deck, the deal, hands and dealers, the face-up Bid
and Ability cards (TT-1, TT-3), the snake draft (TT-4) and the options."""

from __future__ import annotations

from collections import Counter

import pytest

from engines.core import Chance, Ctx, OptionsError, RuleError
from engines.playout import play_game
from engines.tezuma_trick import GAME
from engines.tezuma_trick.actions import PickAbility, PickBid, PickPain, Play
from engines.tezuma_trick.cards import DEFAULT_BID_CARDS, IS_TRUMP, NUMBER_OF, SUIT_OF, deck_for
from engines.tezuma_trick.events import HandDealt, PickedBid, Started
from engines.tezuma_trick.state import DRAFT, PLAY
from tests.engines.tezuma_trick.tt_helpers import OPTIONS, act, table


def test_deck_has_48_cards_and_36_with_three_players():
    four = deck_for(4)
    assert len(four) == 48
    assert Counter(SUIT_OF[x] for x in four) == {0: 12, 1: 12, 2: 12, 3: 12}
    assert sum(IS_TRUMP[x] for x in four) == 12
    three = deck_for(3)
    assert len(three) == 36
    # without the 1, the 9 and one Trump of each suit
    assert not any(NUMBER_OF[x] in (1, 9) for x in three)
    assert Counter(SUIT_OF[x] for x in three if IS_TRUMP[x]) == {0: 2, 1: 2, 2: 2, 3: 2}


@pytest.mark.parametrize("players", [3, 4])
def test_start_deals_twelve_cards_each_from_the_round_1_deck(players):
    deck = list(reversed(deck_for(players)))
    started, dealt = GAME.start(players, OPTIONS, Chance(5, fixed={"round-1": deck}))
    assert started.decks[0] == tuple(deck)
    assert started.seed == 5
    assert [len(hand) for hand in dealt.hands] == [12] * players
    assert sorted(x for hand in dealt.hands for x in hand) == sorted(deck)
    assert dealt.hands[0] == tuple(sorted(deck[:12]))


@pytest.mark.parametrize("players", [3, 4])
def test_tt3_five_bid_and_ability_cards_face_up_four_with_three_players(players):
    _, dealt = GAME.start(players, OPTIONS, Chance(9))
    face_up = 5 if players == 4 else 4
    assert len(dealt.bids) == len(set(dealt.bids)) == face_up
    assert len(dealt.abilities) == len(set(dealt.abilities)) == face_up


def _dealt_events(log):
    return [event for event in log if isinstance(event, HandDealt)]


@pytest.mark.parametrize("players", [3, 4])
def test_hands_equal_players_dealer_rotates_and_face_up_cards_are_reused(players):
    playout = play_game(GAME, players, OPTIONS, 3, ["random"] * players)
    dealt = _dealt_events(playout.log)
    assert [event.hand for event in dealt] == list(range(1, players + 1))
    first = dealt[0].dealer
    assert [event.dealer for event in dealt] == [(first + i) % players for i in range(players)]
    # TT-3: the same face-up Bid and Ability cards in every hand
    assert len({(event.bids, event.abilities) for event in dealt}) == 1
    # every hand is a fresh shuffle ("round-r")
    assert len({event.hands for event in dealt}) == players


def test_tt3_option_redeal_each_hand_deals_new_face_up_cards():
    options = GAME.make_options({"redeal_each_hand": True})
    playout = play_game(GAME, 4, options, 3, ["random"] * 4)
    rows = {(event.bids, event.abilities) for event in _dealt_events(playout.log)}
    assert len(rows) > 1


def test_tt4_snake_draft_from_the_left_of_the_dealer():
    state = table(["B1", "B2", "B3", "B4"], dealer=1)
    assert state.draft_order == (2, 3, 0, 1, 1, 0, 3, 2, 2, 3, 0, 1)


def test_tt4_each_pick_is_of_a_type_the_player_lacks():
    started, dealt = GAME.start(4, OPTIONS, Chance(2, fixed={"first-dealer": [3]}))
    state = GAME.fold([started, dealt])
    assert state.phase == DRAFT and GAME.to_act(state) == {0}
    bid = dealt.bids[0]
    state, _ = act(state, 0, PickBid(bid=bid))
    # seats 1, 2, 3 pick; the snake then comes back to 3, 2, 1, 0
    for seat in (1, 2, 3):
        state, _ = act(state, seat, PickPain(suit=seat))
    state, _ = act(state, 3, PickAbility(ability=state_abilities(state)[0]))
    state, _ = act(state, 2, PickAbility(ability=state_abilities(state)[0]))
    state, _ = act(state, 1, PickAbility(ability=state_abilities(state)[0]))
    assert GAME.to_act(state) == {0}
    with pytest.raises(RuleError) as err:
        GAME.decide(state, 0, PickBid(bid=state.open_bids[0]), Ctx())
    assert err.value.code == "already_picked"
    # a card another seat took is no longer on the table
    with pytest.raises(RuleError) as err:
        GAME.decide(state, 0, PickPain(suit=1), Ctx())
    assert err.value.code == "not_available"
    with pytest.raises(RuleError) as err:
        GAME.decide(state, 0, PickBid(bid=bid), Ctx())
    assert err.value.code == "already_picked"
    legal = GAME.legal_actions(state, 0)
    assert {type(a) for a in legal} == {PickPain, PickAbility}
    assert PickPain(suit=0) in legal and PickPain(suit=1) not in legal


def state_abilities(state):
    from engines.tezuma_trick.cards import ABILITY_NAMES

    return [ABILITY_NAMES[a] for a in state.open_abilities]


def test_tt4_after_three_laps_everyone_holds_one_of_each_and_tt5_start_player_leads():
    state = table(["B1", "B2", "B3", "B4"], dealer=2)
    assert state.phase == PLAY
    assert all(x >= 0 for x in state.pain + state.bid + state.ability)
    assert GAME.to_act(state) == {3}  # TT-5: left of the dealer leads trick 1


def test_a_play_during_the_draft_is_the_wrong_phase():
    started, dealt = GAME.start(4, OPTIONS, Chance(2, fixed={"first-dealer": [3]}))
    state = GAME.fold([started, dealt])
    with pytest.raises(RuleError) as err:
        GAME.decide(state, 0, Play(card=dealt.hands[0][0]), Ctx())
    assert err.value.code == "wrong_phase"
    with pytest.raises(RuleError) as err:
        GAME.decide(state, 1, PickPain(suit=0), Ctx())
    assert err.value.code == "not_your_turn"


def test_tt1_default_bid_cards_are_data():
    assert [(card.tricks, card.points) for card in OPTIONS.bid_cards] == list(DEFAULT_BID_CARDS)
    assert OPTIONS.bid_cards[5].tricks == (4, 5, 6) and OPTIONS.bid_cards[5].points == 5
    assert OPTIONS.bid_points(5, 5) == 5 and OPTIONS.bid_points(5, 7) == 0


def test_tt1_another_bid_card_set_is_a_table_option():
    custom = [{"tricks": [n, n + 1], "points": n + 1} for n in range(6)]
    options = GAME.make_options({"bid_cards": custom})
    assert len(options.bid_cards) == 6 and options.bid_points(2, 3) == 3
    playout = play_game(GAME, 4, options, 1, ["random"] * 4)
    picked = [event.bid for event in playout.log if isinstance(event, PickedBid)]
    assert picked and all(0 <= bid < 6 for bid in picked)


@pytest.mark.parametrize(
    "bid_cards",
    [
        [{"tricks": [1], "points": 2}] * 4,  # too few to deal 5 face up
        [{"tricks": [1], "points": 2}] * 33,  # more than any table needs
        [{"tricks": [], "points": 2}] * 5,
        [{"tricks": [13], "points": 2}] * 5,
        [{"tricks": [1, 1], "points": 2}] * 5,
        [{"tricks": [1], "points": -1}] * 5,
        [{"tricks": [1], "points": 100}] * 5,  # no score a page or a rating could show
        [{"tricks": [1], "points": 10**30}] * 5,
        [{"tricks": [1], "points": 2, "bonus": 1}] * 5,
        [{"tricks": "1", "points": 2}] * 5,
    ],
)
def test_tt1_bad_bid_cards_are_a_clear_options_error(bid_cards):
    with pytest.raises(OptionsError) as err:
        GAME.make_options({"bid_cards": bid_cards})
    assert err.value.code == "bad_option" and "bid" in err.value.message.lower()


def test_started_event_carries_seed_and_every_deck_privately():
    started, _ = GAME.start(4, OPTIONS, Chance(77))
    assert started.seed == 77 and len(started.decks) == 4
    for viewer in (None, 0, 1, 2, 3):
        public = GAME.redact(started, viewer)
        assert public.seed is None and public.decks == () and public.bid_rows == ()
        assert isinstance(public, Started)
