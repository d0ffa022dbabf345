"""Builders for Kabuki tests: games with fixed decks, and a tiny table driver."""

from __future__ import annotations

import msgspec

from engines.core import Chance, Ctx
from engines.kabuki_masks import GAME
from engines.kabuki_masks.actions import Place, Stop

IN_ORDER = list(range(50))  # cards 0-4 are mask kind 0, 5-9 kind 1, ...


class Table:
    """A game folded from explicit events; `act` decides and applies."""

    def __init__(self, players: int = 4, first: int = 0, decks=(IN_ORDER, IN_ORDER, IN_ORDER), **options) -> None:
        fixed = {f"round-{r}": list(deck) for r, deck in enumerate(decks, start=1)}
        fixed["first-player"] = [first]
        self.options = GAME.make_options(options)
        self.log = GAME.new_game(players, self.options, Chance(seed=99, fixed=fixed))
        self.state = GAME.fold(self.log)
        self.clock = 0  # ms; each command without a time comes a window later

    def act(self, seat: int, action, now_ms: int | None = None) -> list:
        if now_ms is None:
            now_ms = self.clock + self.options.stop_window_ms
        self.clock = max(self.clock, now_ms)
        events = GAME.decide(self.state, seat, action, Ctx(now_ms))
        self._apply(events)
        return events

    def place(self, seat: int, pile: int, now_ms: int | None = None) -> list:
        return self.act(seat, Place(pile), now_ms)

    def stop(self, seat: int, placement: int | None = None, now_ms: int | None = None) -> list:
        return self.act(seat, Stop(placement), now_ms)

    def timer(self, now_ms: int) -> list:
        events = GAME.on_timer(self.state, Ctx(now_ms))
        self._apply(events)
        return events

    def _apply(self, events: list) -> None:
        self.log.extend(events)
        self.state = GAME.fold(events, self.state)
        assert GAME.fold(self.log) == self.state

    def view(self, seat: int | None):
        return GAME.view(self.state, seat)


def types(events) -> list[str]:
    return [msgspec.to_builtins(e)["type"] for e in events]
