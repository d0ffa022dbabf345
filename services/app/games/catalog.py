"""The game catalog (`GET /api/v1/games/catalog`): what a client needs to
offer a new table of each game: its player counts, its options with their
defaults, the choices of every option that has a fixed set of them (the web
app's lobby shows those as a select, not as free text), and its house bots."""

from __future__ import annotations

from typing import Any

import msgspec

from engines.registry import available, get_game

DEFAULT_BOT = "heuristic"


def option_choices(options_type: type) -> dict[str, list]:
    """Each option typed as a Literal -> its allowed values, in declared order."""
    info = msgspec.inspect.type_info(options_type)
    assert isinstance(info, msgspec.inspect.StructType | msgspec.inspect.DataclassType), info  # a record of options
    return {f.name: list(f.type.values) for f in info.fields if isinstance(f.type, msgspec.inspect.LiteralType)}


def catalog() -> list[dict[str, Any]]:
    out = []
    for name in available():
        game = get_game(name)
        out.append(
            {
                "game": name,
                "title": game.title,
                "min_players": game.min_players,
                "max_players": game.max_players,
                "options": msgspec.to_builtins(game.options_type()),
                "option_choices": option_choices(game.options_type),
                "bots": list(game.bots),
                # What the lobby's New table form seats at the other seats.
                "default_bot": DEFAULT_BOT if DEFAULT_BOT in game.bots else next(iter(game.bots)),
            }
        )
    return out
