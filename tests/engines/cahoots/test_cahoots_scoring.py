"""CH-5 scoring: every row of the rulebook's table, the 3-player note, and the
cases the table leaves to the general rule."""

from __future__ import annotations

import pytest

from engines.cahoots.cards import CLUBS, CUPS, DIAMONDS, HEARTS, IDENTITIES, SPADES, STARS
from engines.cahoots.rules import pick_order, trick_points, winning_suits
from tests.engines.cahoots.ch_helpers import I1, I2, I3, I4, c

FOUR = (I1, I2, I3, I4)  # seat s holds identity I(s+1)


def test_ch1_every_pair_of_identity_cards_shares_exactly_one_suit():
    for a in range(4):
        for b in range(a + 1, 4):
            assert len(set(IDENTITIES[a]) & set(IDENTITIES[b])) == 1
        assert len(set(IDENTITIES[a])) == 3
    assert sorted(s for suits in IDENTITIES for s in suits) == sorted(list(range(6)) * 2)


def test_winning_suits_are_those_with_the_highest_total():
    assert winning_suits([c("8S"), c("6S"), c("5Cu"), c("6Cu"), c("7Cu")]) == (CUPS,)
    assert winning_suits([c("8S"), c("4S"), c("5H"), c("7H")]) == (HEARTS, SPADES)


# Table rows of the rulebook (4 players): (winning suits, points per seat).
TABLE_ROWS = {
    # 1 winning suit: the two players with it score 2 each (spades: I1, I4).
    "one_suit": ((SPADES,), (2, 0, 0, 2)),
    # 2 suits, one player has both: cahoots, 4 points (spades+hearts: I1).
    "two_suits_one_player_has_both": ((SPADES, HEARTS), (4, 0, 0, 0)),
    # 2 suits, every player has one: 1 point each (hearts: I1 I2, diamonds: I3 I4).
    "two_suits_all_players_have_one": ((HEARTS, DIAMONDS), (1, 1, 1, 1)),
    # 3 suits, one player has all three: cahoots, 4 points (I3's suits).
    "three_suits_one_player_has_all": ((CLUBS, DIAMONDS, STARS), (0, 0, 4, 0)),
    # 3 suits, two players have two each: 2 points each
    # (hearts I1 I2, stars I1 I3, cups I2 I4: I1 and I2 have two).
    "three_suits_two_players_have_two": ((HEARTS, STARS, CUPS), (2, 2, 0, 0)),
}


@pytest.mark.parametrize("row", list(TABLE_ROWS))
def test_ch5_reproduces_every_row_of_the_rulebook_table(row):
    winning, points = TABLE_ROWS[row]
    assert trick_points(winning, FOUR) == points


def test_ch5_three_players_each_holding_two_winning_suits_get_one_and_a_point_is_lost():
    # hearts (I1 I2), stars (I1 I3), clubs (I2 I3): a triangle; I4 has none.
    assert trick_points((HEARTS, STARS, CLUBS), FOUR) == (1, 1, 1, 0)


def test_ch5_four_suit_tie_forming_a_cycle_gives_everyone_one_point():
    # hearts (I1 I2), clubs (I2 I3), diamonds (I3 I4), spades (I4 I1).
    assert trick_points((HEARTS, CLUBS, DIAMONDS, SPADES), FOUR) == (1, 1, 1, 1)


def test_ch5_four_suit_tie_where_one_player_holds_three_is_cahoots():
    # all of I4's suits plus hearts: I4 counts 3, everyone else 2 or 1.
    assert trick_points((SPADES, DIAMONDS, CUPS, HEARTS), FOUR) == (0, 0, 0, 4)


def test_ch5_five_suit_tie_two_players_hold_three():
    # every suit but hearts: I3 and I4 hold three each.
    assert trick_points((SPADES, CLUBS, DIAMONDS, CUPS, STARS), FOUR) == (0, 0, 2, 2)


def test_ch5_points_follow_the_identity_card_not_the_seat():
    assert trick_points((SPADES,), (I4, I3, I2, I1)) == (2, 0, 0, 2)
    assert trick_points((SPADES,), (I2, I1, I3, I4)) == (0, 2, 0, 2)


# 3 players with I1, I2, I3 (I4 out): own suits are spades (I1), cups (I2),
# diamonds (I3); hearts, stars, clubs are shared by two.
THREE = (I1, I2, I3)


@pytest.mark.parametrize(("suit", "seat"), [(SPADES, 0), (CUPS, 1), (DIAMONDS, 2)])
def test_ch5_three_players_own_suit_alone_is_cahoots_for_its_owner(suit, seat):
    points = [0, 0, 0]
    points[seat] = 4
    assert trick_points((suit,), THREE) == tuple(points)


def test_ch5_three_players_shared_suit_gives_two_each():
    assert trick_points((HEARTS,), THREE) == (2, 2, 0)


def test_ch5_three_players_each_holding_one_winning_suit_get_one_each():
    # each own suit wins: each player counts 1; the fourth point is lost.
    assert trick_points((SPADES, CUPS, DIAMONDS), THREE) == (1, 1, 1)


def test_ch5_three_players_two_own_suits_tie_gives_two_each():
    assert trick_points((SPADES, CUPS), THREE) == (2, 2, 0)


def test_ch5_three_players_one_holds_two_is_cahoots():
    # spades (own I1) and stars (I1 I3): I1 counts 2.
    assert trick_points((SPADES, STARS), THREE) == (4, 0, 0)


def test_ch8_pick_order_snakes_from_the_scorer_nearest_the_start_player():
    assert pick_order((2, 0, 0, 2), start=0) == (0, 3, 3, 0)
    assert pick_order((2, 0, 0, 2), start=2) == (3, 0, 0, 3)
    assert pick_order((4, 0, 0, 0), start=1) == (0, 0, 0, 0)
    assert pick_order((1, 1, 1, 1), start=3) == (3, 0, 1, 2)
    assert pick_order((1, 1, 1), start=1) == (1, 2, 0)
