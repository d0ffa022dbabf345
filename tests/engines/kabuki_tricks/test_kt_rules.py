"""Deal, Director, card play, the Joker and trick winners (docs/rules/kabuki-tricks.md, KT-1..KT-7, KT-10)."""

from __future__ import annotations

import msgspec
import pytest

from engines.core import Chance, Ctx, RuleError
from engines.kabuki_tricks import GAME
from engines.kabuki_tricks.actions import Adjust, Deal, Direct, Joker, Play
from engines.kabuki_tricks.cards import JOKER, SUITS, deck_for
from engines.kabuki_tricks.events import Dealt, Directed, JokerPlayed, Started, TrickWon
from engines.kabuki_tricks.rules import DIRECT_ACTIONS
from engines.kabuki_tricks.state import DIRECT, PLAY
from tests.engines.kabuki_tricks.kt_helpers import ORANGE, B, G, P, Table, c


def refused(table: Table, seat: int, action, code: str) -> None:
    with pytest.raises(RuleError) as err:
        GAME.decide(table.state, seat, action, Ctx(0))
    assert err.value.code == code, err.value
    assert err.value.message


@pytest.mark.parametrize(("players", "deck", "discard"), [(2, 28, 7), (3, 28, 7), (4, 32, 4), (5, 40, 5)])
def test_setup_deck_hands_and_discard_per_player_count(players, deck, discard):
    assert len(deck_for(players)) == deck
    table = Table(players)
    (dealt,) = table.deal()
    assert all(len(hand) == 7 for hand in dealt.hands)
    assert len(dealt.discard) == discard
    # every hand: 7 suit cards + the player's own Joker
    assert all(len(h) == 8 and h[-1] == JOKER + s for s, h in enumerate(table.state.hands[:players]))


def test_rounds_equal_players_and_dealer_rotates_clockwise():
    playout_state = None
    from engines.playout import play_game

    for players in (3, 4, 5):
        playout = play_game(GAME, players, GAME.make_options({}), seed=3, bots=["random"] * players)
        dealt = [e for e in playout.log if isinstance(e, Dealt)]
        assert [e.round for e in dealt] == list(range(1, players + 1))
        first = dealt[0].dealer
        assert [e.dealer for e in dealt] == [(first + i) % players for i in range(players)]
        playout_state = playout.state
    assert GAME.is_over(playout_state)


def test_kt10_round_1_config_is_drawn_in_start():
    (started,) = GAME.new_game(4, GAME.make_options({}), Chance(seed=5))
    assert isinstance(started, Started)
    assert sorted(started.order) == sorted(SUITS) and isinstance(started.high, bool)
    configs = {(e.high, e.order) for s in range(40) for e in GAME.new_game(4, GAME.make_options({}), Chance(seed=s))}
    assert len(configs) > 10  # random side and order, not a constant


def test_kt10_director_sets_any_configuration_unchanged_allowed():
    table = Table(4, dealer=2, high=True, order=(G, P, ORANGE, B))
    table.deal()
    assert table.state.phase == DIRECT and GAME.to_act(table.state) == {2}
    legal = GAME.legal_actions(table.state, 2)
    assert len(legal) == 48 and legal is DIRECT_ACTIONS
    assert Direct(high=True, order=(G, P, ORANGE, B)) in legal  # unchanged is a legal choice
    refused(table, 0, Direct(high=False, order=(B, ORANGE, P, G)), "not_your_turn")
    refused(table, 2, Direct(high=False, order=(B, ORANGE, P, G, G)), "bad_action")
    (directed,) = table.direct(high=False, order=(B, ORANGE, P, G))
    assert isinstance(directed, Directed)
    assert table.state.phase == PLAY and table.state.turn == 2  # the dealer leads trick 1
    assert (table.state.high, table.state.order) == (False, (3, 2, 1, 0))
    refused(table, 2, Direct(high=True, order=(G, P, ORANGE, B)), "wrong_phase")


def test_kt10_later_rounds_start_from_previous_end_configuration():
    from engines.playout import Playout

    playout = Playout(GAME, 3, GAME.make_options({}), 11, ["random"] * 3)
    while playout.state.round == 1 or playout.state.phase != 0:
        playout.step()
    ended = playout.state.last_round
    assert (playout.state.high, tuple(SUITS[i] for i in playout.state.order)) == (ended.high, ended.order)
    playout.step()  # deal round 2: the configuration stays
    assert (playout.state.high, tuple(SUITS[i] for i in playout.state.order)) == (ended.high, ended.order)


def test_rulebook_must_follow_example_5_players():
    """Ang leads 7 Purple, Beth plays 2 Purple, Chad may not play 8 Green while
    holding 5 Purple, Dalila plays her Joker, Eliot may not play a second Joker."""
    hands = {0: [c("7P")], 1: [c("2P")], 2: [c("8G"), c("5P")], 3: [c("9P")], 4: [c("3P")]}
    table = Table(5, hands=hands, dealer=0)
    table.deal()
    table.direct(high=True, order=(G, P, ORANGE, B))
    table.play(0, "7P")
    table.play(1, "2P")
    refused(table, 2, Play(card=c("8G")), "must_follow_suit")
    table.play(2, "5P")
    # Dalila holds 9 Purple yet may play the Joker (KT-4)
    (event,) = table.joker(3, actor=B, prediction=2)
    assert isinstance(event, JokerPlayed)
    refused(table, 4, Joker(actor=G, prediction=1), "one_joker_per_trick")
    assert not any(isinstance(a, Joker) for a in GAME.legal_actions(table.state, 4))
    events = table.play(4, "3P")
    assert isinstance(events[1], TrickWon) and events[1].seat == 0  # 7 Purple, High


def _one_trick(cards: list[str], high: bool, order) -> int:
    """4-player trick in which seat i plays cards[i]; returns the winner."""
    table = Table(4, hands={i: [c(x)] for i, x in enumerate(cards)}, dealer=0)
    table.deal()
    table.direct(high=high, order=order)
    events = []
    for seat, card in enumerate(cards):
        events = table.play(seat, card)
    return events[-1].seat


def test_rulebook_trick_example_same_suit_high_and_low():
    cards = ["7P", "2P", "5P", "4P"]
    assert _one_trick(cards, True, (G, P, ORANGE, B)) == 0  # 7 Purple wins, higher is stronger
    assert _one_trick(cards, False, (G, P, ORANGE, B)) == 1  # 2 Purple would win with Low


def test_rulebook_trick_example_strongest_suit_wins_kt5_led_suit_no_priority():
    """8 Orange led; 2 Green wins because Green is the strongest actor; 8 Orange is weakest."""
    hands = {
        0: [c(f"{n}O") for n in (8, 1, 2, 3, 4, 5, 6)],
        1: [c(f"{n}G") for n in (2, 1, 3, 4, 5, 6, 7)],
        2: [c(f"{n}P") for n in (5, 1, 2, 3, 4, 6, 7)],
        3: [c(f"{n}B") for n in (6, 1, 2, 3, 4, 5, 7)],
    }
    table = Table(4, hands=hands, dealer=0)
    table.deal()
    table.direct(high=True, order=(G, P, B, ORANGE))
    for seat, card in enumerate(["8O", "2G", "5P", "6B"]):
        events = table.play(seat, card)
    assert events[-1] == TrickWon(seat=1, cards=(c("8O"), c("2G"), c("5P"), c("6B")), next=1)
    assert table.state.turn == 1 and table.state.tricks_won == (0, 1, 0, 0)


def test_kt4_joker_cannot_lead():
    table = Table(3, dealer=0)
    table.deal()
    table.direct()
    assert not any(isinstance(a, Joker) for a in GAME.legal_actions(table.state, 0))
    refused(table, 0, Joker(actor=G, prediction=1), "joker_cannot_lead")
    refused(table, 0, Play(card=JOKER), "illegal_card")  # the Joker goes through a joker action


def test_kt4_one_joker_per_trick_and_joker_allowed_when_following_possible():
    hands = {0: [c("5G")], 1: [c("6G")], 2: [c("7G")]}
    table = Table(3, hands=hands, dealer=0)
    table.deal()
    table.direct()
    table.play(0, "5G")
    assert any(isinstance(a, Joker) for a in GAME.legal_actions(table.state, 1))  # holds 6 Green
    table.joker(1, actor=G, prediction=1)
    refused(table, 2, Joker(actor=P, prediction=1), "one_joker_per_trick")
    refused(table, 1, Play(card=c("6G")), "not_your_turn")


def _first_play(table: Table, seat: int):
    return next(a for a in GAME.legal_actions(table.state, seat) if isinstance(a, Play))


def test_kt4_joker_in_trick_7_is_legal_and_kt2_one_placement_per_round():
    table = Table(3, dealer=0)
    table.deal()
    table.direct()
    while table.state.trick_no < 7 or not table.state.trick:
        seat = table.state.turn
        table.act(seat, _first_play(table, seat))
    seat = table.state.turn
    jokers = [a for a in GAME.legal_actions(table.state, seat) if isinstance(a, Joker)]
    assert len(jokers) == 4 * 3 * 5  # free actors x predictions 1-3 (KT-1) x adjustments (KT-6)
    assert {a.prediction for a in jokers} == {1, 2, 3}
    table.joker(seat, actor=ORANGE, prediction=2)
    assert table.state.predictions[seat] == 2 and table.state.placed[2] == seat
    # KT-2: no second Joker, no second placement
    assert table.state.hands[seat][-1] < JOKER


def test_kt1_prediction_must_be_1_2_or_3():
    hands = {0: [c("5G")]}
    table = Table(3, hands=hands, dealer=0)
    table.deal()
    table.direct()
    table.play(0, "5G")
    refused(table, 1, Joker(actor=G, prediction=0), "bad_prediction")
    refused(table, 1, Joker(actor=G, prediction=4), "bad_prediction")
    refused(table, 1, Joker(actor=None, prediction=None), "placement_required")
    refused(table, 1, Joker(actor="red", prediction=1), "placement_required")


def test_kt5_joker_adjust_acts_on_the_trick_in_progress():
    hands = {0: [c("7P")], 1: [c("2P")], 2: [c("5P")]}
    table = Table(3, hands=hands, dealer=0)
    table.deal()
    table.direct(high=True)
    table.play(0, "7P")
    table.play(1, "2P")
    events = table.joker(2, actor=P, prediction=1, flip=True)  # now Low: 2 Purple is strongest
    assert events[-1].seat == 1
    assert table.state.high is False  # KT-10: stays for the rest of the round


def test_kt6_swap_adjacent_actors_player_card_moves_with_actor():
    hands = {0: [c("7P"), c("1B")], 1: [c("2P"), c("2B")], 2: [c("5P"), c("3B")]}
    table = Table(3, hands=hands, dealer=0)
    table.deal()
    table.direct(high=True, order=(G, P, ORANGE, B))
    table.play(0, "7P")
    table.joker(1, actor=B, prediction=2, swap=2)  # orange <-> blue
    assert tuple(SUITS[i] for i in table.state.order) == (G, P, B, ORANGE)
    assert table.state.placed[SUITS.index(B)] == 1  # the Player card went with the Blue actor
    view = GAME.view(table.state, None)
    assert view.seats[1].actor == B and view.order == (G, P, B, ORANGE)
    table.play(2, "5P")
    # next trick: adjustments are exactly null, flip, or swap 0..2 (never non-adjacent)
    table.play(0, "1B")
    refused(table, 1, Joker(actor=G, prediction=1), "illegal_card")  # Joker already played
    table.play(1, "2B")
    refused(table, 2, Joker(actor=G, prediction=1, adjust=Adjust(swap=3)), "bad_adjust")
    refused(table, 2, Joker(actor=G, prediction=1, adjust=Adjust(flip=True, swap=0)), "bad_adjust")
    refused(table, 2, Joker(actor=G, prediction=1, adjust=Adjust()), "bad_adjust")
    refused(table, 2, Joker(actor=B, prediction=1), "actor_taken")
    table.joker(2, actor=G, prediction=1, swap=0)  # green <-> purple
    assert tuple(SUITS[i] for i in table.state.order) == (P, G, B, ORANGE)


def test_kt7_fifth_joker_places_nothing_but_may_adjust():
    table = Table(5, dealer=0)
    table.deal()
    table.direct()
    while sum(1 for seat in table.state.placed if seat >= 0) < 4:
        seat = table.state.turn
        legal = GAME.legal_actions(table.state, seat)
        joker = next((a for a in legal if isinstance(a, Joker) and a.adjust is None), None)
        table.act(seat, joker or _first_play(table, seat))
    holder = next(s for s in range(5) if table.state.hands[s][-1] >= JOKER)
    while not (table.state.turn == holder and table.state.trick and max(table.state.trick) < JOKER):
        seat = table.state.turn
        table.act(seat, _first_play(table, seat))
    jokers = [a for a in GAME.legal_actions(table.state, holder) if isinstance(a, Joker)]
    assert {(a.actor, a.prediction) for a in jokers} == {(None, None)} and len(jokers) == 5
    refused(table, holder, Joker(actor=G, prediction=1), "actor_taken")
    before = table.state.high
    (event, *_rest) = table.joker(holder, flip=True)
    assert event.actor is None and table.state.predictions[holder] == 0
    assert table.state.high is not before


def test_error_codes_for_wrong_seat_phase_and_card():
    table = Table(4, dealer=1)
    refused(table, 0, Deal(), "not_your_turn")
    refused(table, 1, Play(card=0), "wrong_phase")
    table.deal()
    refused(table, 1, Deal(), "wrong_phase")
    table.direct()
    foreign = next(x for x in deck_for(4) if x not in table.state.hands[1])
    refused(table, 1, Play(card=foreign), "illegal_card")
    refused(table, 1, Joker(actor=G, prediction=1), "joker_cannot_lead")


def test_actions_decode_from_json_shapes():
    raw = {"type": "joker", "actor": "blue", "prediction": 2, "adjust": {"swap": 1}}
    assert GAME.decode_action(raw) == Joker(actor=B, prediction=2, adjust=Adjust(swap=1))
    assert GAME.decode_action(
        {"type": "joker", "actor": "green", "prediction": 1, "adjust": {"flip": True}}
    ).adjust == Adjust(flip=True)
    assert msgspec.json.decode(msgspec.json.encode(Adjust(swap=1))) == {"swap": 1}
    assert GAME.decode_action({"type": "play", "card": 16}) == Play(card=16)
    with pytest.raises(RuleError) as err:
        GAME.decode_action({"type": "joker", "actor": "red"})
    assert err.value.code == "bad_action"
