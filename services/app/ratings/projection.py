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
from services.infra.outages import OUTAGES

log = logging.getLogger("hanamichi.ratings")

MODEL = PlackettLuce()
# Provisional until the uncertainty falls below this (it starts at 25/3).
PROVISIONAL_SIGMA = 5.0
PROJECTION = "ratings"
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
        return self.mu - 3 * self.sigma

    @property
    def provisional(self) -> bool:
        return self.sigma >= PROVISIONAL_SIGMA


@dataclass(frozen=True)
class Change:
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

    def __init__(self, pool, batch: int = 500) -> None:
        self.pool = pool
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
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute("INSERT INTO projections (name) VALUES ($1) ON CONFLICT DO NOTHING", PROJECTION)
            # Row lock: one projector at a time, whatever the number of workers.
            checkpoint = await conn.fetchval("SELECT position FROM projections WHERE name = $1 FOR UPDATE", PROJECTION)
            rows = await conn.fetch(
                "SELECT position, stream_id, data FROM events WHERE position > $1 AND type = 'hm.game_finished'"
                " ORDER BY position LIMIT $2",
                checkpoint,
                self.batch,
            )
            rows = await _released(conn, rows)
            if not rows:
                return 0
            changes: list[Change] = []
            touched: dict[tuple[str, str], Rating] = {}
            for row in rows:
                finished = _decode(row["data"])
                if not finished.ranked:
                    continue
                ratings = await _load(conn, finished.game, finished, touched)
                changes += apply_game(ratings, finished, row["position"], row["stream_id"])
                for rated_id, rating in ratings.items():
                    touched[(finished.game, rated_id)] = rating
            await _store(conn, touched, changes)
            await conn.execute("UPDATE projections SET position = $2 WHERE name = $1", PROJECTION, rows[-1]["position"])
            return len(rows)


async def _released(conn, rows: list) -> list:
    """The rows up to the first game still under a duplicate round's embargo
    (services/app/games/embargo.py): its result would tell the other tables of the group
    how the deal went. The projection waits there rather
    than skip it, so ratings are still applied in position order and
    `rebuild` gives exactly what is stored; the tournament lifts the embargo
    when the round ends, and the projection moves on."""
    held = {
        r["game_id"]
        for r in await conn.fetch(
            # Only ranked games: an unranked one changes no rating, and held
            # here (a duplicate round never ended) it stopped every rating after it.
            "SELECT game_id::text AS game_id FROM games WHERE embargoed AND ranked AND game_id = ANY($1::uuid[])",
            [row["stream_id"] for row in rows],
        )
    }
    for index, row in enumerate(rows):
        if row["stream_id"] in held:
            return rows[:index]
    return rows


async def _load(conn, game: str, finished: GameFinished, touched: dict) -> dict[str, Rating]:
    ratings: dict[str, Rating] = {}
    missing = []
    for seat in finished.seats:
        rated_id = rated_identity(seat)[0]
        if (game, rated_id) in touched:
            ratings[rated_id] = touched[(game, rated_id)]
        else:
            missing.append(rated_id)
    if missing:
        for r in await conn.fetch(
            "SELECT rated_id, kind, name, mu, sigma, games, forfeits FROM ratings WHERE game = $1 AND rated_id ="
            " ANY($2::text[])",
            game,
            missing,
        ):
            ratings[r["rated_id"]] = Rating(
                r["rated_id"], r["kind"], r["name"], r["mu"], r["sigma"], r["games"], r["forfeits"]
            )
    return ratings


async def _store(conn, touched: dict[tuple[str, str], Rating], changes: list[Change]) -> None:
    await conn.executemany(
        "INSERT INTO ratings (game, rated_id, kind, name, mu, sigma, games, forfeits) VALUES ($1, $2, $3, $4, $5, $6,"
        " $7, $8)"
        " ON CONFLICT (game, rated_id) DO UPDATE SET mu = EXCLUDED.mu, sigma = EXCLUDED.sigma, games = EXCLUDED.games,"
        " forfeits = EXCLUDED.forfeits",
        [(g, r.rated_id, r.kind, r.name, r.mu, r.sigma, r.games, r.forfeits) for (g, _), r in touched.items()],
    )
    await conn.executemany(
        "INSERT INTO rating_changes (position, game, game_id, rated_id, place, mu_before, sigma_before, mu_after,"
        " sigma_after,"
        " forfeited) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
        [
            (
                c.position,
                c.game,
                c.game_id,
                c.rated_id,
                c.place,
                c.mu_before,
                c.sigma_before,
                c.mu_after,
                c.sigma_after,
                c.forfeited,
            )
            for c in changes
        ],
    )


def _key(rating: Rating | None) -> tuple | None:
    return None if rating is None else (rating.mu, rating.sigma, rating.games, rating.forfeits)


async def rebuild(pool, write: bool = False) -> dict:
    """Recompute every rating from the log; compare with (or replace) what is stored."""
    computed: dict[tuple[str, str], Rating] = {}
    per_game: dict[str, dict[str, Rating]] = defaultdict(dict)
    changes: list[Change] = []
    last = 0
    async with pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=not write):
        checkpoint = await conn.fetchval("SELECT position FROM projections WHERE name = $1", PROJECTION) or 0
        async for row in conn.cursor(
            "SELECT position, stream_id, data FROM events WHERE type = 'hm.game_finished'"
            + ("" if write else " AND position <= $1")
            + " ORDER BY position",
            *(() if write else (checkpoint,)),
        ):
            last = row["position"]
            finished = _decode(row["data"])
            if finished.ranked:
                changes += apply_game(per_game[finished.game], finished, row["position"], row["stream_id"])
        for game, ratings in per_game.items():
            for rated_id, rating in ratings.items():
                computed[(game, rated_id)] = rating
        stored = {
            (r["game"], r["rated_id"]): (r["mu"], r["sigma"], r["games"], r["forfeits"])
            for r in await conn.fetch("SELECT game, rated_id, mu, sigma, games, forfeits FROM ratings")
        }
        stored_changes = await conn.fetchval("SELECT count(*) FROM rating_changes")
        mismatched = sorted(
            f"{g}/{i}" for (g, i) in set(stored) | set(computed) if stored.get((g, i)) != _key(computed.get((g, i)))
        )
        if write:
            await conn.execute("DELETE FROM rating_changes")
            await conn.execute("DELETE FROM ratings")
            await _store(conn, computed, changes)
            await conn.execute(
                "INSERT INTO projections (name, position) VALUES ($1, $2)"
                " ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position",
                PROJECTION,
                last,
            )
    return {
        "ratings": len(computed),
        "changes": len(changes),
        "stored_changes": stored_changes,
        "mismatched": mismatched,
        "equal": not mismatched and stored_changes == len(changes),
        "written": write,
    }
