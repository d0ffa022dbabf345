"""The screening report over the stored log: the finished games read
through the `FinishedGames` port, each replayed into moves and feeding
chances, then screened. The replays are CPU work: they run in a thread so
that an API process keeps serving while an operator asks for a report."""

from __future__ import annotations

import asyncio

import msgspec

from engines.core import OptionsError
from engines.registry import get_game
from services.app.games.events import GameFinished
from services.app.integrity.feeding import opportunities
from services.app.integrity.replay import ReplayError, moves_from_log
from services.app.integrity.screening import (
    FAMILY_ALPHA,
    MIN_SHARED_GAMES,
    Account,
    IntegrityReport,
    ScreenedGame,
    screen,
)
from services.app.ports.integrity import FinishedGames, FinishedLog
from services.app.ports.names import PlayerNames
from services.app.upcast import current_names

_FINISHED = msgspec.json.Decoder(GameFinished)


def screened_game(finished: FinishedLog) -> ScreenedGame | None:
    """A finished stream as the screening reads it; None for a game it does
    not know or a log that cannot be replayed."""
    record = next((e for e in reversed(finished.events) if e.type == "hm.game_finished"), None)
    if record is None:
        return None
    ended = _FINISHED.decode(record.data)
    try:
        game = get_game(ended.game)
        moves = moves_from_log(game, finished.events)
    except (OptionsError, ReplayError, msgspec.ValidationError):
        return None
    seats: list[Account | None] = [None] * len(ended.seats)
    for seat in ended.seats:
        # House bots are the reference the population's rates include, never suspects.
        if seat.kind != "bot" and seat.player_id is not None and 0 <= seat.seat < len(seats):
            seats[seat.seat] = Account(seat.player_id, seat.kind, seat.name or "")
    return ScreenedGame(finished.game_id, ended.game, tuple(seats), tuple(opportunities(game, moves)))


def report_of(
    logs: list[FinishedLog], min_shared_games: int = MIN_SHARED_GAMES, family_alpha: float = FAMILY_ALPHA
) -> IntegrityReport:
    games = [g for g in map(screened_game, logs) if g is not None]
    report = screen(games, min_shared_games, family_alpha)
    return msgspec.structs.replace(report, skipped=len(logs) - len(games))


async def integrity_report(
    log: FinishedGames,
    game: str | None = None,
    min_shared_games: int = MIN_SHARED_GAMES,
    family_alpha: float = FAMILY_ALPHA,
    names: PlayerNames | None = None,
) -> IntegrityReport:
    """The report; with `names`, each pair's accounts named as the players
    table names them now (a stored seat's name is joined when read, so the
    log's own is often empty)."""
    logs = [finished async for finished in log.finished_logs(game)]
    report = await asyncio.to_thread(report_of, logs, min_shared_games, family_alpha)
    if names is None or not report.pairs:
        return report
    now = await current_names(names, [a for p in report.pairs for a in (p.giver, p.receiver)])
    pairs = [
        msgspec.structs.replace(
            p, giver_name=now.get(p.giver, p.giver_name), receiver_name=now.get(p.receiver, p.receiver_name)
        )
        for p in report.pairs
    ]
    return msgspec.structs.replace(report, pairs=pairs)
