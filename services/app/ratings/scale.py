"""The rating people see, from OpenSkill's (mu, sigma): the one home of the
scale, used by every read (leaderboards, a player's ratings, the account's
data) so the table, the profile and the leaderboard show the same number.

    rating = round(1500 + 42 * (mu - 25))

- 1500 at the start (mu = 25), as on Lichess.
- 42 points per mu point: the starting uncertainty, sigma = 25/3, is then
  350 points, Glicko's (and Lichess's) starting rating deviation, so a new
  player reads "1500 +- 350" there and here. (OpenSkill's own two-player
  odds put Elo's 400 points for 10:1 between 30 and 51 points per mu point,
  depending on whether one reads its logistic update or its normal
  `predict_win`; 42 sits between them.)
- Provisional while sigma >= 5 (210 points), a few games in: shown with "?"
  appended ("1500?").
- The number moves with mu alone. Leaderboards still rank by the cautious
  estimate mu - 3 sigma (`ordinal`, kept in the API), which a new player's
  wide sigma holds down; the raw mu and sigma stay in the API too.

docs/tournaments.md ("Ratings") says the same for people."""

from __future__ import annotations

import math

START = 1500  # the rating shown at mu = MU0
MU0 = 25.0  # OpenSkill's starting mu
POINTS_PER_MU = 42  # 350 points for the starting sigma, 25/3
# Provisional until the uncertainty falls below this (it starts at 25/3).
PROVISIONAL_SIGMA = 5.0


def display_rating(mu: float) -> int:
    """The rating shown for `mu`, rounded half up to a whole number."""
    return math.floor(START + POINTS_PER_MU * (mu - MU0) + 0.5)


def is_provisional(sigma: float) -> bool:
    return sigma >= PROVISIONAL_SIGMA


def shown(mu: float, sigma: float) -> str:
    """The rating as a page shows it: "1500", or "1500?" while provisional
    (the pages build the same text from the API's `rating` and `provisional`)."""
    return f"{display_rating(mu)}{'?' if is_provisional(sigma) else ''}"
