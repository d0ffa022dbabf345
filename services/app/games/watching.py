"""Reads for watching and following (routes in
services/http/routes/watch.py): the live tables, most watched first, and a
player's games and tournaments.

Only what a spectator may see: the public view, seats, counts; a result
only once it is disclosed (a duplicate round's tables stay embargoed,
services/app/games/embargo.py)."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from typing import Any, overload

import asyncpg
import msgspec

from engines.registry import available
from services.app.errors import BadRequest, NotFound
from services.app.games.info import SeatInfo, game_info
from services.app.seatclock import ClockDefaults

MAX_LIVE = 50
# How many tables in play are ranked by spectators (the newest ones): enough
# for this service's scale, and it bounds the cost of the list.
LIVE_CANDIDATES = 500


class LiveTable(msgspec.Struct):
    game_id: str
    game: str
    players: int
    ranked: bool
    tournament_id: str | None
    version: int
    spectators: int | None  # over every API process; None when it cannot be counted
    seats: list[SeatInfo]
    to_act: list[int]
    view: Any  # the public view, for a miniature (None for an embargoed table)


class LiveTables(msgspec.Struct):
    tables: list[LiveTable]
    spectators_total: int | None


class PlayerGame(msgspec.Struct):
    game_id: str
    game: str
    status: str  # 'open', 'playing', 'finished'
    seat: int
    players: int
    ranked: bool
    tournament_id: str | None
    created_at_ms: int
    finished_at_ms: int | None
    # Once the result is disclosed: the player's place (forfeits last) and score.
    place: int | None = None
    score: float | None = None
    forfeited: bool = False


class PlayerTournament(msgspec.Struct):
    tournament_id: str
    game: str
    status: str
    start_ms: int


class PlayerGames(msgspec.Struct):
    player_id: str
    name: str
    kind: str  # 'human', 'agent'
    games: list[PlayerGame]
    tournaments: list[PlayerTournament]
    next: str | None  # pass as `before` for older games; null at the end


def _check_game(game: str | None) -> None:
    if game is not None and game not in available():
        raise BadRequest("unknown_game", f"there is no game {game!r}; see /api/v1/games/catalog")


async def live_tables(pool, games, watchers, clock: ClockDefaults, game: str | None, limit: int) -> LiveTables:
    """Tables in play, the most watched first (then the newest), each with
    its public view for a miniature."""
    _check_game(game)
    rows = await pool.fetch(
        "SELECT game_id::text AS game_id FROM games WHERE status = 'playing' AND ($1::text IS NULL OR game = $1)"
        " ORDER BY created_at DESC LIMIT $2",
        game,
        LIVE_CANDIDATES,
    )
    ids = [r["game_id"] for r in rows]
    counts = await watchers.of(ids)
    order = {g: i for i, g in enumerate(ids)}
    if counts is not None:
        ids.sort(key=lambda g: (-counts[g], order[g]))
    tables = await asyncio.gather(*(games.load(g) for g in ids[:limit]))
    out = []
    for table in tables:
        if table.over:  # finished since the query
            continue
        info = game_info(table, None, clock)
        out.append(
            LiveTable(
                table.game_id,
                info.game,
                info.players,
                info.ranked,
                table.tournament_id,
                info.version,
                counts[table.game_id] if counts is not None else None,
                info.seats,
                info.to_act,
                info.view,
            )
        )
    return LiveTables(out, sum(counts.values()) if counts is not None else None)


@overload
def _ms(moment: datetime) -> int: ...
@overload
def _ms(moment: datetime | None) -> int | None: ...
def _ms(moment: datetime | None) -> int | None:
    return int(moment.timestamp() * 1000) if moment else None


def _parse_before(before: str | None) -> datetime | None:
    if before is None:
        return None
    if not before.isdigit() or len(before) > 18:
        raise BadRequest("bad_cursor", "before is the `next` value of a previous page")
    return datetime.fromtimestamp(int(before) / 1_000_000, tz=UTC)


def _outcome(row, record: dict | None) -> dict:
    """The player's place and score from the table's hm.game_finished."""
    if record is None or row["embargoed"]:
        return {}
    seat = row["seat"]
    result = record.get("result") or {}
    places = record.get("table_places") or result.get("places") or []
    scores = result.get("scores") or []
    return {
        "place": places[seat] if seat < len(places) else None,
        "score": scores[seat] if seat < len(scores) else None,
        "forfeited": seat in (record.get("forfeited") or []),
    }


async def player_games(pool, player_id: str, limit: int, before: str | None) -> PlayerGames:
    """A player's (or an agent's) games, newest first, with place and score
    once disclosed, and the tournaments they played in."""
    try:
        who = await pool.fetchrow("SELECT name, kind FROM players WHERE player_id = $1::text::uuid", player_id)
    except asyncpg.DataError:  # not a uuid: no such player (an outage propagates: a 503)
        who = None
    if who is None:
        raise NotFound("player_not_found", f"there is no player {player_id}")
    moment = _parse_before(before)
    rows = await pool.fetch(
        "SELECT g.game_id::text AS game_id, g.game, g.status, g.players, g.ranked, g.tournament_id, g.embargoed,"
        " g.created_at, g.finished_at, s.seat,"
        " (SELECT e.data FROM events e WHERE e.stream_id = g.game_id::text AND e.type = 'hm.game_finished' LIMIT 1) AS"
        " record"
        " FROM seats s JOIN games g ON g.game_id = s.game_id"
        " WHERE s.player_id = $1::text::uuid AND ($2::timestamptz IS NULL OR g.created_at < $2)"
        " ORDER BY g.created_at DESC LIMIT $3",
        player_id,
        moment,
        limit + 1,
    )
    games = []
    for r in rows[:limit]:
        record = json.loads(r["record"]) if r["record"] is not None else None
        games.append(
            PlayerGame(
                r["game_id"],
                r["game"],
                r["status"],
                r["seat"],
                r["players"],
                r["ranked"],
                r["tournament_id"],
                _ms(r["created_at"]),
                _ms(r["finished_at"]),
                **_outcome(r, record),
            )
        )
    more = len(rows) > limit
    tournaments = await pool.fetch(
        "SELECT t.tournament_id::text AS id, t.game, t.status, t.start_at FROM tournaments t"
        " WHERE t.tournament_id::text IN (SELECT g.tournament_id FROM seats s JOIN games g ON g.game_id = s.game_id"
        "   WHERE s.player_id = $1::text::uuid AND g.tournament_id IS NOT NULL)"
        " ORDER BY t.start_at DESC LIMIT 50",
        player_id,
    )
    return PlayerGames(
        player_id,
        who["name"],
        who["kind"],
        games,
        [PlayerTournament(t["id"], t["game"], t["status"], _ms(t["start_at"])) for t in tournaments],
        str(int(rows[limit - 1]["created_at"].timestamp() * 1_000_000)) if more else None,
    )
