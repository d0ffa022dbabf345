"""Bot games as stored logs, for the analysis's own checks
(`hanamichi analyse --validate`, tests): the engine's events at versions
1, 2, ... and the service's `hm.game_finished` after them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from engines.core import Bot, Game
from engines.playout import Playout
from services.app.ports.integrity import LogEvent


def bot_game_log(game: Game, bots: Sequence[str | Bot], seed: int, options: Any = None) -> list[LogEvent]:
    playout = Playout(game, len(bots), options if options is not None else game.make_options({}), seed, bots)
    playout.run()
    return log_of(game, playout.log)


def log_of(game: Game, events: Sequence[Any]) -> list[LogEvent]:
    log = [LogEvent(v, e.__struct_config__.tag, msgspec.json.encode(e)) for v, e in enumerate(events, start=1)]
    finished = msgspec.json.encode({"game": game.name})
    return [*log, LogEvent(len(log) + 1, "hm.game_finished", finished)]
