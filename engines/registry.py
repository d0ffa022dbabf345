"""Games by stable name. The names are public (URLs, stored streams, ratings):
never rename one."""

from __future__ import annotations

from importlib import import_module

from engines.core import Game, OptionsError
from engines.expert import Search

# name -> module holding `GAME`; imported lazily so one broken engine
# cannot take the others down and start-up stays cheap.
_MODULES = {
    "kabuki-tricks": "engines.kabuki_tricks",
    "kabuki-masks": "engines.kabuki_masks",
    "cahoots": "engines.cahoots",
    "tezuma-trick": "engines.tezuma_trick",
}


def available() -> list[str]:
    names = []
    for name, module in _MODULES.items():
        try:
            import_module(module)
        except ModuleNotFoundError:
            continue
        names.append(name)
    return names


def get_game(name: str) -> Game:
    module = _MODULES.get(name)
    if module is None:
        raise OptionsError("unknown_game", f"no game named {name!r}; known games: {', '.join(available())}")
    try:
        return import_module(module).GAME
    except ModuleNotFoundError:
        raise OptionsError("unknown_game", f"{name!r} is not available on this server") from None


def all_games() -> list[Game]:
    return [get_game(name) for name in available()]


def get_search(name: str) -> Search:
    """The expert's search parts of a game (engines/expert.py), for the
    post-game analysis."""
    get_game(name)  # the same errors for an unknown game
    return import_module(_MODULES[name]).SEARCH
