"""The lobby's list of tables, read for `GET /api/v1/games`
(services/http/routes/lobby.py).

Newest first, with cursor paging: `next` is the `before` of the next page.
Open and playing tables are ordered by creation, finished ones by when they
finished. Only what a spectator may see: seats, options, time control; no
view, no result (an embargoed table's result stays hidden)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any, Literal, overload

import msgspec

from engines.registry import available
from services.app.errors import BadRequest
from services.app.games.info import SeatInfo  # a seat as anyone may see it, the same in the lobby


class LobbyTable(msgspec.Struct):
    game_id: str
    game: str
    status: str  # 'open', 'playing', 'finished'
    players: int
    ranked: bool
    options: dict[str, Any]
    seats: list[SeatInfo]
    time_control: dict | None
    bot_delay_ms: int | None
    tournament_id: str | None
    created_at_ms: int
    finished_at_ms: int | None


class LobbyPage(msgspec.Struct):
    games: list[LobbyTable]
    next: str | None  # pass as `before` for the next (older) page; null at the end


Status = Literal["open", "playing", "finished"]
MAX_LIMIT = 100


@overload
def _ms(moment: datetime) -> int: ...
@overload
def _ms(moment: datetime | None) -> int | None: ...
def _ms(moment: datetime | None) -> int | None:
    return int(moment.timestamp() * 1000) if moment else None


def _cursor(key: datetime, game_id: str) -> str:
    return f"{int(key.timestamp() * 1_000_000)}_{game_id}"


def _parse_cursor(before: str) -> tuple[datetime, str]:
    micros, _, game_id = before.partition("_")
    if not micros.isdigit() or len(micros) > 18 or len(game_id) != 36:
        raise BadRequest("bad_cursor", "before is the `next` value of a previous page")
    return datetime.fromtimestamp(int(micros) / 1_000_000, tz=UTC), game_id


async def list_tables(pool, status: str | None, game: str | None, limit: int, before: str | None) -> LobbyPage:
    """Tables, newest first: `status` open, playing or finished; `game` one game's."""
    if game is not None and game not in available():
        raise BadRequest("unknown_game", f"there is no game {game!r}; see /api/v1/games/catalog")
    key = "coalesce(g.finished_at, g.created_at)" if status == "finished" else "g.created_at"
    where: list[str] = ["true"]
    args: list[Any] = []
    if status is not None:
        args.append(status)
        where.append(f"g.status = ${len(args)}")
    if game is not None:
        args.append(game)
        where.append(f"g.game = ${len(args)}")
    if before is not None:
        moment, game_id = _parse_cursor(before)
        args += [moment, game_id]
        where.append(f"({key}, g.game_id::text) < (${len(args) - 1}, ${len(args)})")
    args.append(limit + 1)
    rows = await pool.fetch(
        f"SELECT g.game_id::text AS game_id, g.game, g.status, g.players, g.ranked, g.options, g.time_control,"
        f" g.bot_delay_ms, g.tournament_id, g.created_at, g.finished_at, {key} AS sort_key,"
        " coalesce((SELECT json_agg(json_build_object('seat', s.seat, 'bot', s.bot, 'name', p.name, 'kind', p.kind))"
        "   FROM seats s LEFT JOIN players p ON p.player_id = s.player_id WHERE s.game_id = g.game_id), '[]') AS seats"
        f" FROM games g WHERE {' AND '.join(where)} ORDER BY {key} DESC, g.game_id::text DESC LIMIT ${len(args)}",
        *args,
    )
    page = [_table(r) for r in rows[:limit]]
    more = len(rows) > limit
    return LobbyPage(page, _cursor(rows[limit - 1]["sort_key"], rows[limit - 1]["game_id"]) if more else None)


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _table(row) -> LobbyTable:
    taken = {s["seat"]: s for s in _json(row["seats"])}
    seats = []
    for i in range(row["players"]):
        s = taken.get(i)
        if s is None:
            seats.append(SeatInfo(i, False))
        elif s["bot"] is not None:
            seats.append(SeatInfo(i, True, f"{s['bot']} bot", "bot", s["bot"]))
        else:
            seats.append(SeatInfo(i, True, s["name"], s["kind"]))
    return LobbyTable(
        game_id=row["game_id"],
        game=row["game"],
        status=row["status"],
        players=row["players"],
        ranked=row["ranked"],
        options=_json(row["options"]),
        seats=seats,
        time_control=_json(row["time_control"]),
        bot_delay_ms=row["bot_delay_ms"],
        tournament_id=row["tournament_id"],
        created_at_ms=_ms(row["created_at"]),
        finished_at_ms=_ms(row["finished_at"]),
    )
