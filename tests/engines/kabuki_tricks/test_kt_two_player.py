"""KT-13: the 2-player variant with the non-human dummy."""

from __future__ import annotations

from engines.kabuki_tricks import GAME
from engines.kabuki_tricks.events import Dealt, Played, RoundEnded
from engines.playout import play_game
from tests.engines.kabuki_tricks.kt_helpers import Table, c

DUMMY = 2


def _table(option: str | None = None) -> Table:
    hands = {0: [c("1G"), c("3B")], 1: [c("2G"), c("4B")]}
    dummy = [c("7G"), c("1B"), c("6P"), c("5P"), c("4P"), c("3P"), c("2P")]
    options = {"second_after_dummy_win": option} if option else None
    return Table(2, hands=hands, dummy=dummy, dealer=0, options=options)


def test_kt13_dummy_leads_top_card_dealer_plays_second_in_trick_1():
    table = _table()
    (dealt,) = table.deal()
    assert dealt.dummy[0] == c("7G") and len(dealt.dummy) == 7 and len(dealt.discard) == 7
    events = table.direct()
    assert events[-1] == Played(seat=DUMMY, card=c("7G"))
    assert GAME.to_act(table.state) == {0}  # the dealer plays second
    assert not GAME.legal_actions(table.state, DUMMY)


def test_kt13_after_dummy_win_higher_human_plays_second():
    table = _table()
    table.deal()
    table.direct()
    table.play(0, "1G")
    events = table.play(1, "2G")  # 7 Green (dummy) wins; seat 1's 2 Green ranked higher
    assert events[1].seat == DUMMY and events[1].next == 1
    assert events[2] == Played(seat=DUMMY, card=c("1B"))  # the dummy leads again
    assert GAME.to_act(table.state) == {1}
    table.play(1, "4B")
    events = table.play(0, "3B")  # 4 Blue wins: its owner plays second next
    assert events[1].seat == 1 and GAME.to_act(table.state) == {1}


def test_kt13_same_order_option_keeps_the_order_after_dummy_win():
    table = _table("same_order")
    table.deal()
    table.direct()
    table.play(0, "1G")
    events = table.play(1, "2G")
    assert events[1].seat == DUMMY and events[1].next == 0
    assert GAME.to_act(table.state) == {0}


def test_kt13_four_rounds_dealers_alternate_dummy_scores_nothing():
    playout = play_game(GAME, 2, GAME.make_options({}), seed=2, bots=["random", "random"])
    dealt = [e for e in playout.log if isinstance(e, Dealt)]
    assert len(dealt) == 4
    assert [e.dealer for e in dealt] == [dealt[0].dealer, 1 - dealt[0].dealer] * 2
    for end in (e for e in playout.log if isinstance(e, RoundEnded)):
        assert len(end.lines) == 2 and len(end.tricks) == 3 and sum(end.tricks) == 7
    assert len(GAME.result(playout.state).scores) == 2
