"""Whole games between bots in one process: the simulator's, the conformance
suite's and the golden files' driver. Pure apart from the RNG it is given.

Turn model (the contract's, for every game): `to_act(state)` lists the seats
that *may* act now. Each such seat's bot is asked in a random order; a bot
returns an action, or None to let the moment pass (a Kabuki masks player who
does not call "Stop!"). Time is simulated: the clock moves 1 ms per action,
and bots get `legal_actions(state, seat, now)` for the time their action would
have, so nothing they are offered is refused (a Kabuki masks placer is offered
no Place during the stop window, KM-3). When nobody acts, the clock jumps to
`next_timer(state)`, whose `on_timer` events are applied when due, but only
once every seat was asked at the current state: at a Kabuki masks table with
`stop_window_ms` 0 the round-ending timer is due at once, and KM-5a gives every
bot its chance on the last card first.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from engines.core import Bot, Chance, Ctx, Game

StepHook = Callable[[Any, int | None, Any, list, Any], None]  # (state_before, seat, action, events, state_after)


class Deadlock(RuntimeError):
    """No seat acts and no timer is due: an engine bug, never a rules outcome."""


class Playout:
    __slots__ = (
        "game",
        "players",
        "options",
        "state",
        "log",
        "actions",
        "now_ms",
        "bots",
        "rng",
        "hook",
        "_observers",
        "_asked",
    )

    def __init__(
        self,
        game: Game,
        players: int,
        options: Any,
        seed: int,
        bots: Sequence[str | Bot],  # registry names, or bots made by the caller
        hook: StepHook | None = None,
        chance: Chance | None = None,
    ) -> None:
        self.game = game
        self.players = players
        self.options = options
        self.rng = random.Random(seed)
        # A name is a house bot made here; a bot object (an expert given a
        # clock by its caller, the arena's author seat) is used as it is.
        self.bots = [
            game.bots[name](seat, options) if isinstance(name, str) else name for seat, name in enumerate(bots)
        ]
        # Only bots that remember (KM memory bot) pay for per-seat redaction.
        self._observers = [(seat, bot) for seat, bot in enumerate(self.bots) if bot.observes]
        self.hook = hook
        self.now_ms = 0
        self._asked = -1  # the log length at which every seat was last asked and none acted
        self.actions = 0
        self.log: list = []
        self.state = None
        self._apply(None, None, game.new_game(players, options, chance or Chance(seed)))

    def _apply(self, seat: int | None, action: Any, events: list) -> None:
        before = self.state
        state = before
        evolve = self.game.evolve
        for event in events:
            state = evolve(state, event)
        self.state = state
        self.log.extend(events)
        if self._observers:
            redact = self.game.redact
            for event in events:
                for observer_seat, bot in self._observers:
                    seen = redact(event, observer_seat)
                    if seen is not None:
                        bot.observe(seen)
        if self.hook is not None:
            self.hook(before, seat, action, events, state)

    def step(self) -> bool:
        """Play one action (or one timer). False once the game is over."""
        game, state = self.game, self.state
        if game.is_over(state):
            return False
        due = game.next_timer(state)
        # KM-5a: a due timer waits until every seat has had its chance here.
        if due is not None and due <= self.now_ms and self._asked == len(self.log):
            events = game.on_timer(state, Ctx(self.now_ms))
            if events:
                self._apply(None, None, events)
                return True
        seats = list(game.to_act(state))
        if len(seats) > 1:
            self.rng.shuffle(seats)
        at = self.now_ms + 1  # the time an action taken now is decided at
        for seat in seats:
            legal = game.legal_actions(state, seat, at)
            if not legal:
                continue
            bot = self.bots[seat]
            # A bot that ignores the view (`blind`, the random bot) spares
            # the simulator a redaction per action.
            view = None if bot.blind else game.view(state, seat)
            action = bot.act(view, legal, self.rng)
            if action is None:
                continue
            self.now_ms = at
            # A refusal here is a bug (a bot chose an action it was not
            # offered, or legal_actions disagrees with decide): it raises.
            events = game.decide(state, seat, action, Ctx(at))
            self.actions += 1
            self._apply(seat, action, events)
            return True
        self._asked = len(self.log)
        if due is None:
            raise Deadlock(f"{game.name}: nobody acts and no timer is due")
        self.now_ms = max(self.now_ms + 1, due)
        return True

    def run(self, max_steps: int = 1_000_000) -> Any:
        for _ in range(max_steps):
            if not self.step():
                return self.state
        raise Deadlock(f"{self.game.name}: not over after {max_steps} steps")


def play_game(game: Game, players: int, options: Any, seed: int, bots: Sequence[str | Bot], **kw: Any) -> Playout:
    playout = Playout(game, players, options, seed, bots, **kw)
    playout.run()
    return playout
