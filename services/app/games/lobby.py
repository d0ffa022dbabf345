"""The lobby's list of tables, read for `GET /api/v1/games`
(services/http/routes/lobby.py).

Newest first, with cursor paging: `next` is the `before` of the next page.
Open and playing tables are ordered by creation, finished ones by when they
finished. Only what a spectator may see: seats, options, time control; no
view, no result (an embargoed table's result stays hidden)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal, overload

import msgspec

from engines.registry import available
from services.app.errors import BadRequest
from services.app.games.info import SeatInfo  # a seat as anyone may see it, the same in the lobby
from services.app.ports import Lobby, TableRow


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


async def list_tables(lobby: Lobby, status: str | None, game: str | None, limit: int, before: str | None) -> LobbyPage:
    """Tables, newest first: `status` open, playing or finished; `game` one game's."""
    if game is not None and game not in available():
        raise BadRequest("unknown_game", f"there is no game {game!r}; see /api/v1/games/catalog")
    rows = await lobby.page(status, game, _parse_cursor(before) if before is not None else None, limit + 1)
    page = [_table(r) for r in rows[:limit]]
    if len(rows) <= limit:
        return LobbyPage(page, None)
    last = rows[limit - 1]
    key = (last.finished_at or last.created_at) if status == "finished" else last.created_at
    return LobbyPage(page, _cursor(key, last.table.game_id))


def _table(row: TableRow) -> LobbyTable:
    taken = {s.seat: s for s in row.seats}
    new = row.table
    seats = []
    for i in range(new.players):
        s = taken.get(i)
        if s is None:
            seats.append(SeatInfo(i, False))
        elif s.bot is not None:
            seats.append(SeatInfo(i, True, f"{s.bot} bot", "bot", s.bot))
        else:
            seats.append(SeatInfo(i, True, s.name, s.kind))
    return LobbyTable(
        game_id=new.game_id,
        game=new.game,
        status=row.status,
        players=new.players,
        ranked=new.ranked,
        options=new.options,
        seats=seats,
        time_control=new.time_control,
        bot_delay_ms=new.bot_delay_ms,
        tournament_id=new.tournament_id,
        created_at_ms=_ms(row.created_at),
        finished_at_ms=_ms(row.finished_at),
    )
