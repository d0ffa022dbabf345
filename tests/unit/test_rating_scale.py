"""The rating shown (services/app/ratings/scale.py): 1500 at OpenSkill's
start, 42 points per mu point, "?" while provisional (sigma >= 5)."""

from __future__ import annotations

from openskill.models import PlackettLuce

from services.app.ratings.scale import POINTS_PER_MU, display_rating, is_provisional, shown


def test_a_new_player_is_1500_and_provisional():
    start = PlackettLuce().rating()
    assert display_rating(start.mu) == 1500
    assert is_provisional(start.sigma)
    assert shown(start.mu, start.sigma) == "1500?"


def test_the_starting_sigma_is_lichess_350_points():
    assert round(POINTS_PER_MU * PlackettLuce().rating().sigma) == 350


def test_the_rating_rises_with_mu_alone():
    mus = [m / 4 for m in range(-40, 240)]
    shown_ = [display_rating(mu) for mu in mus]
    assert shown_ == sorted(shown_)
    assert len(set(shown_)) == len(mus), "42 points a mu point: every quarter point shows"
    assert display_rating(26) == 1542 and display_rating(24) == 1458
    assert display_rating(25.012) == 1501 and display_rating(24.988) == 1499  # rounded to the nearest


def test_provisional_until_sigma_falls_below_5():
    assert is_provisional(5.0) and not is_provisional(4.999)
    assert shown(30, 6) == "1710?" and shown(30, 2) == "1710"
    assert shown(20, 1) == "1290"
