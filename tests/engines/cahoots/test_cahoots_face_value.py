"""CH-8: the face_value_scoring option (off by default)."""

from __future__ import annotations

from collections import Counter

import pytest

from engines.cahoots import GAME
from engines.cahoots.actions import Pick
from engines.cahoots.cards import VALUE_OF
from engines.cahoots.events import Picked, TrickScored
from engines.core import Ctx, OptionsError, RuleError
from engines.playout import Playout
from tests.engines.cahoots.ch_helpers import I1, I2, I3, I4, Table, c
from tests.engines.cahoots.test_cahoots_rules import example_table


def test_ch8_face_value_scoring_is_off_by_default_and_validated():
    assert GAME.make_options({}).face_value_scoring is False
    assert GAME.make_options({"face_value_scoring": True}).face_value_scoring is True
    for bad in ({"face_value_scoring": "yes"}, {"face_value": True}):
        with pytest.raises(OptionsError) as err:
            GAME.make_options(bad)
        assert err.value.code == "bad_option"


def test_ch8_scorers_pick_killed_cards_in_snake_order_and_score_face_values():
    table = example_table(face_value_scoring=True)
    table.choose("+8S", "+8H", "-7Cu", "-5C", "-5Cu", "-6S", "+6D", "+6Cu")
    scored = [e for e in table.events if isinstance(e, TrickScored)][0]
    # Bob (seat 1) is the scorer nearest the start player (Anne); snake: 1 3 3 1.
    assert scored.pick_order == (1, 3, 3, 1)
    assert table.state.phase == "pick" and GAME.to_act(table.state) == {1}
    assert sorted(a.card for a in GAME.legal_actions(table.state, 1)) == sorted(map(c, ["7Cu", "5C", "5Cu", "6S"]))
    table.pick("7Cu")
    with pytest.raises(RuleError) as err:
        GAME.decide(table.state, 3, Pick(c("7Cu")), Ctx(0))
    assert err.value.code == "illegal_card"
    table.pick("6S")
    events = table.act(3, Pick(c("5Cu")))
    # Bob's last pick is forced: the engine takes it for him.
    assert events[-1] == Picked(1, c("5C"))
    assert table.state.scores == (0, 7 + 5, 0, 6 + 5)
    assert table.state.won[1] == (c("7Cu"), c("5C"))
    assert table.state.phase == "play" and table.state.start == 1


def test_ch8_a_single_scorer_takes_all_four_without_choosing():
    hands = {0: [c("7S"), c("4C")], 1: [c("5S"), c("4D")], 2: [c("7H"), c("4Cu")], 3: [c("5H"), c("4St")]}
    table = Table(identities=(I1, I2, I3, I4), dealer=0, hands=hands, face_value_scoring=True)
    table.play("7S", "5S", "7H", "5H", "4C", "4D", "4Cu", "4St")
    # spades and hearts tie at 12: only I1 holds both (cahoots).
    table.choose("-7S", "-5S", "-7H", "-5H", "+4C", "+4D", "+4Cu", "+4St")
    scored = [e for e in table.events if isinstance(e, TrickScored)][0]
    assert scored.points == (4, 0, 0, 0) and scored.pick_order == (0, 0, 0, 0)
    assert table.state.scores == (7 + 5 + 7 + 5, 0, 0, 0)
    assert table.state.phase == "play"


@pytest.mark.parametrize("players", [3, 4])
def test_ch8_random_games_keep_the_contract(players):
    """fold == state, cards conserved, every listed action accepted, and every
    score is the face value of the cards the seat took."""
    options = GAME.make_options({"face_value_scoring": True})
    for seed in range(15):
        deck = []

        def check(before, seat, action, events, state, deck=deck):
            cards = Counter(GAME.all_cards(state))
            if not deck:
                deck.append(cards)
            assert cards == deck[0]
            if not GAME.is_over(state):
                for actor in GAME.to_act(state):
                    for legal in GAME.legal_actions(state, actor):
                        GAME.decide(state, actor, legal, Ctx(0))

        playout = Playout(GAME, players, options, seed, ["random"] * (players - 1) + ["heuristic"], hook=check)
        state = playout.run()
        assert GAME.fold(playout.log) == state
        assert state.scores == tuple(sum(VALUE_OF[x] for x in pile) for pile in state.won)
        assert sum(len(pile) for pile in state.won) >= 3 * 11
