"""Ratings: OpenSkill (Plackett-Luce) per game, a projection of the event
log. Every ranked game's `hm.game_finished` event, in global position order,
updates the ratings of its seats; the same fold from an empty table is
`hanamichi ratings rebuild`, and must give exactly what is stored."""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from dataclasses import dataclass

import msgspec
from openskill.models import PlackettLuce

from services.app.games.events import GameFinished
from services.app.ports import FinishedRow, RatingChange, RatingRow, RatingStore, Transactions
from services.app.ratings.scale import is_provisional
from services.infra.outages import OUTAGES

log = logging.getLogger("hanamichi.ratings")

MODEL = PlackettLuce()
_decode = msgspec.json.Decoder(GameFinished).decode


@dataclass
class Rating:
    rated_id: str
    kind: str
    name: str
    mu: float = MODEL.rating().mu
    sigma: float = MODEL.rating().sigma
    games: int = 0
    forfeits: int = 0  # games a house bot finished for it after its strikes (rated as last)

    @property
    def ordinal(self) -> float:
        """The cautious estimate leaderboards rank by."""
        return self.mu - 3 * self.sigma

    @property
    def provisional(self) -> bool:
        """While sigma >= 5 (services/app/ratings/scale.py)."""
        return is_provisional(self.sigma)

    def row(self, game: str) -> RatingRow:
        return RatingRow(game, self.rated_id, self.kind, self.name, self.mu, self.sigma, self.games, self.forfeits)

    @classmethod
    def of(cls, row: RatingRow) -> Rating:
        return cls(row.rated_id, row.kind, row.name, row.mu, row.sigma, row.games, row.forfeits)


# How one game moved one rating: the row the projection keeps as it is.
Change = RatingChange


def rated_identity(seat) -> tuple[str, str, str]:
    """(id, kind, name): people and agents by player id; house bots by bot
    name, one rating per bot per game, listed apart."""
    if seat.kind == "bot":
        return f"bot:{seat.bot}", "bot", f"{seat.bot} (house bot)"
    # Not the name an old event carried: reads join the players table's
    # (services/app/ratings/queries.py), which a deleted account's
    # pseudonym replaced; the projection keeps no name of a person.
    return seat.player_id, seat.kind, seat.player_id


def apply_game(ratings: dict[str, Rating], finished: GameFinished, position: int, game_id: str) -> list[Change]:
    """Update `ratings` (one game's) in place from one finished ranked game."""
    seats = sorted(finished.seats, key=lambda s: s.seat)
    ids = []
    for seat in seats:
        rated_id, kind, name = rated_identity(seat)
        ids.append(rated_id)
        if rated_id not in ratings:
            ratings[rated_id] = Rating(rated_id, kind, name)
    before = {i: (ratings[i].mu, ratings[i].sigma) for i in ids}
    teams = [[MODEL.rating(mu=before[i][0], sigma=before[i][1])] for i in ids]
    # A seat handed to a house bot after its strikes is rated as last: failing never pays.
    places = [finished.ranking[s.seat] for s in seats]
    forfeited = {ids[i] for i, s in enumerate(seats) if s.seat in finished.forfeited}
    rated = MODEL.rate(teams, ranks=[float(p) for p in places])  # ranks are only compared
    # A house bot may hold several seats of one game: it moves by the mean.
    after: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for rated_id, team in zip(ids, rated, strict=True):
        after[rated_id].append((team[0].mu, team[0].sigma))
    changes = []
    for rated_id, values in after.items():
        rating = ratings[rated_id]
        rating.mu = sum(v[0] for v in values) / len(values)
        rating.sigma = sum(v[1] for v in values) / len(values)
        rating.games += 1
        rating.forfeits += rated_id in forfeited
        place = min(p for i, p in zip(ids, places, strict=True) if i == rated_id)
        changes.append(
            Change(
                position,
                finished.game,
                game_id,
                rated_id,
                place,
                *before[rated_id],
                rating.mu,
                rating.sigma,
                rated_id in forfeited,
            )
        )
    return changes


class RatingsProjector:
    """Follows the log by global position (never skipping a late commit:
    see eventstore's APPEND_LOCK) and keeps the ratings tables current. The
    checkpoint moves in the same transaction as the ratings."""

    def __init__(self, store: RatingStore, transactions: Transactions, batch: int = 500) -> None:
        self.store = store
        self.transactions = transactions
        self.batch = batch

    async def run_forever(self, idle_s: float = 0.5) -> None:
        while True:
            try:
                if await self.step() == 0:
                    await asyncio.sleep(idle_s)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if not OUTAGES.failed(exc, "ratings projection"):
                    log.exception("ratings projection step failed")
                await asyncio.sleep(1)

    async def step(self) -> int:
        async with self.transactions.transaction() as tx:
            # Held until the transaction ends: one projector at a time.
            checkpoint = await self.store.claim_checkpoint(tx)
            rows = await self.store.finished_after(checkpoint, self.batch, tx)
            rows = await _released(self.store, rows, tx)
            if not rows:
                return 0
            changes: list[Change] = []
            touched: dict[tuple[str, str], Rating] = {}
            for row in rows:
                finished = _decode(row.data)
                if not finished.ranked:
                    continue
                ratings = await _load(self.store, finished.game, finished, touched, tx)
                changes += apply_game(ratings, finished, row.position, row.stream_id)
                for rated_id, rating in ratings.items():
                    touched[(finished.game, rated_id)] = rating
            await self.store.store(_rows(touched), changes, tx)
            await self.store.move_checkpoint(rows[-1].position, tx)
            return len(rows)


async def _released(store: RatingStore, rows: list[FinishedRow], tx) -> list[FinishedRow]:
    """The rows up to the first game still under a duplicate round's embargo
    (services/app/games/embargo.py): its result would tell the other tables of the group
    how the deal went. The projection waits there rather
    than skip it, so ratings are still applied in position order and
    `rebuild` gives exactly what is stored; the tournament lifts the embargo
    when the round ends, and the projection moves on."""
    if not rows:
        return rows
    # Only ranked games: an unranked one changes no rating, and held
    # here (a duplicate round never ended) it stopped every rating after it.
    held = await store.embargoed_ranked([row.stream_id for row in rows], tx)
    for index, row in enumerate(rows):
        if row.stream_id in held:
            return rows[:index]
    return rows


async def _load(store: RatingStore, game: str, finished: GameFinished, touched: dict, tx) -> dict[str, Rating]:
    ratings: dict[str, Rating] = {}
    missing = []
    for seat in finished.seats:
        rated_id = rated_identity(seat)[0]
        if (game, rated_id) in touched:
            ratings[rated_id] = touched[(game, rated_id)]
        else:
            missing.append(rated_id)
    if missing:
        for row in await store.ratings_of(game, missing, tx):
            ratings[row.rated_id] = Rating.of(row)
    return ratings


def _rows(ratings: dict[tuple[str, str], Rating]) -> list[RatingRow]:
    return [rating.row(game) for (game, _), rating in ratings.items()]


def _key(rating: Rating | None) -> tuple | None:
    return None if rating is None else (rating.mu, rating.sigma, rating.games, rating.forfeits)


async def ranked_games(store: RatingStore, game: str) -> list[list[tuple[str, int]]]:
    """Every ranked game of `game` in the log, in commit order, as the
    projection rates it: (rated id, counted place) per seat."""
    out = []
    async with store.snapshot(False) as tx:
        async for row in store.every_finished(None, tx):
            finished = _decode(row.data)
            if finished.ranked and finished.game == game:
                seats = sorted(finished.seats, key=lambda s: s.seat)
                out.append([(rated_identity(s)[0], finished.ranking[s.seat]) for s in seats])
    return out


async def rebuild(store: RatingStore, write: bool = False) -> dict:
    """Recompute every rating from the log; compare with (or replace) what is stored."""
    computed: dict[tuple[str, str], Rating] = {}
    per_game: dict[str, dict[str, Rating]] = defaultdict(dict)
    changes: list[Change] = []
    last = 0
    async with store.snapshot(write) as tx:
        checkpoint = await store.checkpoint(tx)
        # Replacing what is stored folds the whole log; comparing, what the projection applied.
        async for row in store.every_finished(None if write else checkpoint, tx):
            last = row.position
            finished = _decode(row.data)
            if finished.ranked:
                changes += apply_game(per_game[finished.game], finished, row.position, row.stream_id)
        for game, ratings in per_game.items():
            for rated_id, rating in ratings.items():
                computed[(game, rated_id)] = rating
        stored = await store.stored_ratings(tx)
        stored_changes = await store.count_changes(tx)
        mismatched = sorted(
            f"{g}/{i}" for (g, i) in set(stored) | set(computed) if stored.get((g, i)) != _key(computed.get((g, i)))
        )
        if write:
            await store.replace_all(_rows(computed), changes, last, tx)
    return {
        "ratings": len(computed),
        "changes": len(changes),
        "stored_changes": stored_changes,
        "mismatched": mismatched,
        "equal": not mismatched and stored_changes == len(changes),
        "written": write,
    }
