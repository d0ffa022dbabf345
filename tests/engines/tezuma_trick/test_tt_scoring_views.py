"""Scoring (TT-2), the end of the game, views and redaction (TT-14), and the
agreement of `legal_actions` with `decide` over random games."""

from __future__ import annotations

import random

import pytest

from engines.core import Chance, Ctx, RuleError
from engines.playout import Playout, play_game
from engines.tezuma_trick import GAME
from engines.tezuma_trick.actions import Egg, PickAbility, PickBid, PickPain, Play, Sand
from engines.tezuma_trick.cards import ABILITY_NAMES
from engines.tezuma_trick.events import GameEnded, HandDealt, HandScored, TrickWon
from engines.tezuma_trick.state import OVER, SCORED
from tests.engines.tezuma_trick.tt_helpers import OPTIONS, c, cs, plays, table, with_

# Bids [0, 1, 2, 3] = {0: 5}, {0, 1, 2: 3}, {1, 2, 3: 3}, {2, 3: 4} (TT-1);
# pains [0, 1, 2, 3] = butterflies, umbrellas, fans, masks.


def last_trick_table(options=OPTIONS, hand_no=1):
    state = table(["B9", "B2", "B3", "B4"], options=options)
    return with_(
        state,
        hand_no=hand_no,
        trick_no=12,
        tricks=(0, 1, 3, 2),
        won=(cs("U7 U8"), cs("U3 UT1 F1"), cs("M1 F2 F3"), cs("M9 M8 M7 M6 M5 U1")),
    )


def scored(events) -> HandScored:
    return next(e for e in events if isinstance(e, HandScored))


def test_tt2_bid_points_minus_pain_never_below_zero():
    state, events = plays(last_trick_table(), (0, "B9"), (1, "B2"), (2, "B3"), (3, "B4"))
    result = scored(events)
    assert result.tricks == (1, 1, 3, 2)
    # seat 0: 1 trick misses {0}; 4 butterflies -> 0, not -4
    # seat 1: {0,1,2} -> 3, minus U3 and the umbrellas Trump (Trumps count) -> 1
    # seat 2: {1,2,3} -> 3, minus F2 F3 -> 1
    # seat 3: {2,3} -> 4, minus five masks -> 0
    assert result.pain == (4, 2, 2, 5)
    assert result.points == (0, 1, 1, 0)
    assert result.totals == state.scores == (0, 1, 1, 0)
    assert state.hand_no == 2  # the next hand is dealt in the same command


def test_tt2_option_pain_face_value():
    options = GAME.make_options({"pain_face_value": True})
    _, events = plays(last_trick_table(options), (0, "B9"), (1, "B2"), (2, "B3"), (3, "B4"))
    # seat 1: U3 costs 3, the Trump (no number) 1; seat 2: F2 + F3 = 5
    assert scored(events).pain == (9 + 2 + 3 + 4, 4, 5, 35)
    assert scored(events).points == (0, 0, 0, 0)


def test_tt14_pain_counts_are_revealed_at_hand_end_only():
    state = last_trick_table()
    assert GAME.view(state, None).seats[1].pain_count is None
    state, _ = plays(state, (0, "B9"), (1, "B2"), (2, "B3"))
    assert GAME.view(state, 0).seats[1].pain_count is None
    before = state
    _, events = plays(state, (3, "B4"))
    # The view at the hand's end (a replay at `tt.hand_scored`; the engine deals
    # the next hand in the same command, and the event carries the counts too).
    at_scores = GAME.fold(events[: events.index(scored(events)) + 1], before)
    assert [seat.pain_count for seat in GAME.view(at_scores, None).seats] == [4, 2, 2, 5]


def test_the_next_hand_is_dealt_by_the_last_play_of_a_hand_not_by_a_timer():
    # One mechanism for automatic transitions. The hand's last card
    # brings the trick, the scores and the next deal in one command, so a
    # table of people never waits for a timer (a bot driver) to deal.
    playout = Playout(GAME, 4, OPTIONS, 11, ["random"] * 4)
    while playout.state.hand_no == 1:
        playout.step()
    step = playout.log[-4:]
    assert [type(e) for e in step[1:]] == [TrickWon, HandScored, HandDealt] and step[-1].hand == 2
    assert GAME.to_act(playout.state) and GAME.next_timer(playout.state) is None
    assert GAME.automatic(playout.state) == []


def test_an_older_log_that_stops_after_the_scores_is_dealt_by_its_timer():
    playout = Playout(GAME, 4, OPTIONS, 11, ["random"] * 4)
    while playout.state.hand_no == 1:
        playout.step()
    old_log = playout.log[:-1]  # as the old engine logged it: the deal was a timer's
    state = GAME.fold(old_log)
    assert state.phase == SCORED and GAME.to_act(state) == frozenset() and GAME.next_timer(state) == 0
    with pytest.raises(RuleError) as err:
        GAME.decide(state, 0, Play(card=0), Ctx(0))
    assert err.value.code == "not_your_turn"
    assert GAME.on_timer(state, Ctx(0)) == playout.log[-1:]


def test_game_ends_after_the_last_hand_and_the_final_event_carries_seed_and_result():
    state, events = plays(last_trick_table(hand_no=4), (0, "B9"), (1, "B2"), (2, "B3"), (3, "B4"))
    ended = events[-1]
    assert isinstance(ended, GameEnded) and state.phase == OVER
    assert ended.seed == state.seed == 1
    assert ended.scores == (0.0, 1.0, 1.0, 0.0)
    assert ended.winners == (1, 2) and ended.places == (3, 1, 1, 3)  # ties share the win
    result = GAME.result(state)
    assert result.winners == [1, 2] and result.scores == [0.0, 1.0, 1.0, 0.0]
    assert GAME.to_act(state) == frozenset() and GAME.next_timer(state) is None


@pytest.mark.parametrize("players", [3, 4])
def test_a_whole_game_final_event_lets_anyone_rederive_the_deals(players):
    playout = play_game(GAME, players, OPTIONS, 2024, ["random"] * players)
    ended = playout.log[-1]
    assert isinstance(ended, GameEnded) and ended.seed == 2024
    assert list(ended.winners) == GAME.result(playout.state).winners
    replay = GAME.start(players, OPTIONS, Chance(ended.seed))
    first_deal = next(e for e in playout.log if isinstance(e, HandDealt))
    assert replay[1] == first_deal


def test_tt14_views_hide_hands_and_won_tricks_and_show_the_public_rest():
    state = table(["B9 U1", "B2 U2", "B3 U3", "B4 U4"], abilities=[None, "chicks", None, None])
    state, _ = plays(state, (0, "B9"), (1, "B2", "chicks"), (2, "B3"), (3, "B4"))
    spectator = GAME.view(state, None)
    assert all(seat.hand is None and seat.won_cards is None for seat in spectator.seats)
    assert [seat.hand_size for seat in spectator.seats] == [1, 1, 1, 1]
    assert [seat.tricks for seat in spectator.seats] == [1, 0, 0, 0]
    assert spectator.seats[1].ability == "chicks" and spectator.seats[1].uses_left == 1
    assert [seat.pain for seat in spectator.seats] == [0, 1, 2, 3]
    assert [seat.bid for seat in spectator.seats] == [0, 1, 2, 3]
    mine = GAME.view(state, 2)
    assert mine.seats[2].hand == cs("U3") and mine.seats[0].hand is None
    assert GAME.hidden_cards(state, 2) == frozenset(cs("U1 U2 U4"))


def test_tt14_the_trick_on_the_table_is_public():
    state = table(["B9 U1", "B2 U2", "B3 U3", "B4 U4"])
    state, _ = plays(state, (0, "B9"), (1, "B2"))
    assert [(p.seat, p.cards) for p in GAME.view(state, None).trick] == [(0, (c("B9"),)), (1, (c("B2"),))]
    assert GAME.view(state, None).led_suit == 0


def test_after_the_game_every_view_is_the_full_view():
    playout = play_game(GAME, 4, OPTIONS, 5, ["random"] * 4)
    spectator = GAME.view(playout.state, None)
    assert all(seat.hand is not None and seat.won_cards is not None for seat in spectator.seats)
    assert spectator.seed == 5 and GAME.hidden_cards(playout.state, None) == frozenset()


def test_hand_dealt_is_redacted_to_the_viewers_own_hand():
    _, dealt = GAME.start(4, OPTIONS, Chance(3))
    assert GAME.redact(dealt, 2).hands == ((), (), dealt.hands[2], ())
    assert GAME.redact(dealt, None).hands == ((), (), (), ())
    assert GAME.redact(dealt, None).bids == dealt.bids  # face-up cards are public


def _candidates(state, seat):
    hand = state.hands[seat] if state.hands else ()
    names = [None, *ABILITY_NAMES]
    out = [Play(card=card, ability=name) for card in range(48) for name in names]
    out += [Play(card=a, ability="fire_breathing", second=b) for a in hand for b in hand if a != b]
    out += [Play(card=a, second=b) for a in hand[:2] for b in hand[:2] if a != b]
    out += [Egg(), Sand(), *(PickPain(suit=s) for s in range(4)), *(PickBid(bid=b) for b in range(8))]
    out += [PickAbility(ability=name) for name in ABILITY_NAMES]
    return out


@pytest.mark.parametrize("players", [3, 4])
def test_decide_accepts_exactly_the_listed_actions(players):
    """Every candidate action (any card with any ability, any pair, any pick)
    is accepted by `decide` if and only if `legal_actions` lists it."""
    rng = random.Random(players)
    checked = 0

    def check(before, seat, action, events, state):
        nonlocal checked
        if GAME.is_over(state) or rng.random() > 0.15:
            return
        for s in range(players):
            legal = set(GAME.legal_actions(state, s))
            for candidate in _candidates(state, s):
                try:
                    GAME.decide(state, s, candidate, Ctx())
                    accepted = True
                except RuleError:
                    accepted = False
                assert accepted == (candidate in legal), (candidate, s)
                checked += accepted

    for seed in range(6):
        Playout(GAME, players, OPTIONS, seed, ["random"] * players, hook=check).run()
    assert checked > 100
