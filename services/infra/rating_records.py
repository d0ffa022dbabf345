"""What the ratings adapters (PostgreSQL and memory) speak in: a rating's
row in `ratings`, a change's in `rating_changes`, and a finished game's
event the projection folds. Defined in infra (an adapter may not import the
application layer) and named by the port, services/app/ports/ratings.py."""

from __future__ import annotations

import msgspec


class FinishedRow(msgspec.Struct, frozen=True):
    """An `hm.game_finished` event of the log: its global position, its
    game's stream and the event's JSON."""

    position: int
    stream_id: str
    data: bytes


class RatingRow(msgspec.Struct, frozen=True):
    """A rating as kept. Read for a leaderboard or a player's history, a
    person's or agent's `name` is the players table's now."""

    game: str
    rated_id: str
    kind: str
    name: str
    mu: float
    sigma: float
    games: int
    forfeits: int = 0


class RatingChange(msgspec.Struct, frozen=True):
    """How one finished game moved one rating (a row of `rating_changes`)."""

    position: int
    game: str
    game_id: str
    rated_id: str
    place: int
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    forfeited: bool = False
