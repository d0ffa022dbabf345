"""Reads for watching and following (routes in
services/http/routes/watch.py): the live tables, most watched first, and a
player's games and tournaments.

Only what a spectator may see: the public view, seats, counts; a result
only once it is disclosed (a duplicate round's tables stay embargoed,
services/app/games/embargo.py)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any, overload

import msgspec

from engines.registry import available
from services.app.errors import BadRequest, NotFound
from services.app.games.info import SeatInfo, game_info
from services.app.ports import Lobby, PlayerGameRow
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


async def live_tables(lobby: Lobby, games, watchers, clock: ClockDefaults, game: str | None, limit: int) -> LiveTables:
    """Tables in play, the most watched first (then the newest), each with
    its public view for a miniature."""
    _check_game(game)
    ids = await lobby.playing_ids(game, LIVE_CANDIDATES)
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


def _outcome(row: PlayerGameRow, record: dict | None) -> dict:
    """The player's place and score from the table's hm.game_finished."""
    if record is None or row.embargoed:
        return {}
    seat = row.seat
    result = record.get("result") or {}
    places = record.get("table_places") or result.get("places") or []
    scores = result.get("scores") or []
    return {
        "place": places[seat] if seat < len(places) else None,
        "score": scores[seat] if seat < len(scores) else None,
        "forfeited": seat in (record.get("forfeited") or []),
    }


async def player_games(lobby: Lobby, player_id: str, limit: int, before: str | None) -> PlayerGames:
    """A player's (or an agent's) games, newest first, with place and score
    once disclosed, and the tournaments they played in."""
    who = await lobby.player_identity(player_id)  # an outage propagates: a 503
    if who is None:
        raise NotFound("player_not_found", f"there is no player {player_id}")
    rows = await lobby.player_games(player_id, _parse_before(before), limit + 1)
    games = []
    for r in rows[:limit]:
        record = msgspec.json.decode(r.record) if r.record is not None else None
        games.append(
            PlayerGame(
                r.game_id,
                r.game,
                r.status,
                r.seat,
                r.players,
                r.ranked,
                r.tournament_id,
                _ms(r.created_at),
                _ms(r.finished_at),
                **_outcome(r, record),
            )
        )
    more = len(rows) > limit
    tournaments = await lobby.player_tournaments(player_id)
    return PlayerGames(
        player_id,
        who[0],
        who[1],
        games,
        [PlayerTournament(t.tournament_id, t.game, t.status, _ms(t.start_at)) for t in tournaments],
        str(int(rows[limit - 1].created_at.timestamp() * 1_000_000)) if more else None,
    )
