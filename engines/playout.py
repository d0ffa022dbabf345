"""Whole games between bots in one process: the simulator's, the conformance
suite's and the golden files' driver. Pure apart from the RNG it is given.

Turn model (the contract's, for every game): `to_act(state)` lists the seats
that *may* act now. Each such seat's bot is asked in a random order; a bot
returns an action, or None to let the moment pass (a Kabuki masks player who
does not call "Stop!"). Time is simulated: the clock moves 1 ms per action,
and when an action is refused with `too_early` (KM-3) or nobody acts, it jumps
to `next_timer(state)`, whose `on_timer` events are applied when due.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from engines.core import Chance, Ctx, Game, RuleError

StepHook = Callable[[Any, int | None, Any, list, Any], None]  # (state_before, seat, action, events, state_after)


class Deadlock(RuntimeError):
    """No seat acts and no timer is due: an engine bug, never a rules outcome."""


class Playout:
    __slots__ = ("game", "players", "options", "state", "log", "actions", "now_ms", "bots", "rng", "hook", "_observers")

    def __init__(
        self,
        game: Game,
        players: int,
        options: Any,
        seed: int,
        bots: Sequence[str],
        hook: StepHook | None = None,
        chance: Chance | None = None,
    ) -> None:
        self.game = game
        self.players = players
        self.options = options
        self.rng = random.Random(seed)
        self.bots = [game.bots[name](seat, options) for seat, name in enumerate(bots)]
        # Only bots that remember (KM memory bot) pay for per-seat redaction.
        self._observers = [(seat, bot) for seat, bot in enumerate(self.bots) if getattr(bot, "observes", False)]
        self.hook = hook
        self.now_ms = 0
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
        if due is not None and due <= self.now_ms:
            events = game.on_timer(state, Ctx(self.now_ms))
            if events:
                self._apply(None, None, events)
                return True
        seats = list(game.to_act(state))
        if len(seats) > 1:
            self.rng.shuffle(seats)
        for seat in seats:
            legal = game.legal_actions(state, seat)
            if not legal:
                continue
            bot = self.bots[seat]
            # A bot that ignores the view (`blind`, the random bot) spares
            # the simulator a redaction per action.
            view = None if getattr(bot, "blind", False) else game.view(state, seat)
            action = bot.act(view, legal, self.rng)
            if action is None:
                continue
            self.now_ms += 1
            try:
                events = game.decide(state, seat, action, Ctx(self.now_ms))
            except RuleError as err:
                if err.code != "too_early" or due is None:
                    raise
                self.now_ms = max(self.now_ms, due)
                return True
            self.actions += 1
            self._apply(seat, action, events)
            return True
        if due is None:
            raise Deadlock(f"{game.name}: nobody acts and no timer is due")
        self.now_ms = max(self.now_ms + 1, due)
        return True

    def run(self, max_steps: int = 1_000_000) -> Any:
        for _ in range(max_steps):
            if not self.step():
                return self.state
        raise Deadlock(f"{self.game.name}: not over after {max_steps} steps")


def play_game(game: Game, players: int, options: Any, seed: int, bots: Sequence[str], **kw: Any) -> Playout:
    playout = Playout(game, players, options, seed, bots, **kw)
    playout.run()
    return playout
