"""The `expert` house bot: determinised search, the same for every game.

At each decision with more than one legal action it repeatedly
1. samples a *world*: the seat's own redacted events, with every hidden card
   filled in at random consistently with what the seat has seen (each game's
   `determinize`, in its expert.py; the expert is given nothing else: the
   events it observed as its seat and the view);
2. folds it, and scores every candidate action by a fast playout with the
   heuristic bots to the end of the round (or game): the seat's score lead
   over the best other seat (`evaluate`);
and plays the candidate with the best mean. Every candidate is scored in the
same worlds with the same playout seeds, so that the comparison is not noise.

Engines stay pure: the randomness is the `rng` handed to `act`, and time is a
`clock` handed in by the caller (services pass `time.perf_counter`). With a
clock the bot searches for `budget_ms` per move (default 50 ms); without one
it counts playout steps instead (STEP_COST_S each) and plays at most `worlds`
worlds, which makes it deterministic (service tables, golden files, tests)
and still bounded.

A little over 300 lines: the search, its engine playout (used by a game
without a lean state) and the world-sampling helper the games share."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, cast

from engines.core import Ctx, Game, RuleError

DEFAULT_BUDGET_MS = 50
DEFAULT_WORLDS = 6
# Without a clock the budget is counted in playout steps at this nominal
# cost each (50 ms = 1000 steps): deterministic, and still bounded.
STEP_COST_S = 0.00005
MAX_PLAYOUT_STEPS = 2000
MIN_EVIDENCE = 3  # worlds a candidate needs before it may override the heuristic


@dataclass(frozen=True)
class Search:
    """One game's part: how to sample a world and read a playout's outcome."""

    determinize: Callable[[list, int, Any, random.Random], list]  # (events, seat, view, rng) -> full events
    round_of: Callable[[Any], Any]  # the playout stops when this changes (or the game ends)
    scores: Callable[[Any], Sequence[float]]  # running scores per seat
    # The time a state was reached at, for games that keep time (Kabuki
    # masks' stop window, KM-3): playouts act at it, or when the wait ends.
    clock_of: Callable[[Any], int] = lambda state: 0
    # Gives a playout's freshly made bots what they would have observed so
    # far (Kabuki masks' memory of the piles), from the world's state.
    prime: Callable[[list, Any], None] | None = None
    # How many times `round_of` may change before the playout stops (Cahoots
    # counts tricks: its one deal is the whole game).
    horizon: int = 1
    # A lean playout (engines/<game>/lean.py): `ExpertBot._playout`'s
    # work (the seat's action, then heuristic play to the same horizon, the
    # seat's lead over the best other seat) on a mutable array copy of the
    # world's folded state, checked against the engine side by side by
    # tests/engines/test_lean_<game>.py. (state, seat, action, seed, options)
    # -> (lead, steps taken), or None when the action is refused.
    lean_playout: Callable[[Any, int, Any, int, Any], tuple[float, int] | None] | None = None
    # How many times `round_of` may change before the post-game analysis's
    # open-hand playouts stop: the end of the round (Cahoots: of its deal).
    judged_rounds: int = 1
    # Open-hand playouts per move: 1 where the heuristic draws nothing from
    # the playout's rng and no two seats may act at once (the playout is then
    # exact), more where chance orders the Stops (Kabuki masks).
    judged_playouts: int = 1
    # Random play of a whole game from a fresh deal on the lean state
    # (players, options, rng) -> final scores: `simulate --calibrate`'s figure.
    lean_random_game: Callable[[int, Any, random.Random], Sequence[float]] | None = None


@dataclass(frozen=True)
class Evaluation:
    """A search's evidence: the heuristic's choice (`first`, scored first in
    every world), the order candidates were scored in, and per candidate the
    sum, sum of squares and count of its advantage over `first`."""

    first: int
    order: list[int]
    sums: list[float]
    squares: list[float]
    counts: list[int]

    def mean(self, i: int) -> float | None:
        if i == self.first:
            return 0.0
        return self.sums[i] / self.counts[i] if self.counts[i] >= MIN_EVIDENCE else None

    def stderr(self, i: int) -> float:
        n = self.counts[i]
        if i == self.first or n < 2:
            return 0.0
        mean = self.sums[i] / n
        return math.sqrt(max(0.0, self.squares[i] / n - mean * mean) / (n - 1))


class ExpertBot:
    blind = False
    observes = True

    def __init__(
        self,
        game: Game,
        search: Search,
        seat: int,
        options: Any,
        budget_ms: float = DEFAULT_BUDGET_MS,
        clock: Callable[[], float] | None = None,
        worlds: int = DEFAULT_WORLDS,
    ) -> None:
        self.game, self.search, self.seat, self.options = game, search, seat, options
        self.budget_s = budget_ms / 1000
        # No clock (the service's tables, golden files): a clock of playout
        # steps, so that the search is deterministic and its cost bounded.
        self.clock = clock if clock is not None else self._step_clock
        self.clockless = clock is None
        self.steps = 0
        self.worlds = worlds
        self.events: list = []  # exactly what the seat was shown (redacted events)
        self.fallback = game.bots["heuristic"](seat, options)
        self.searched = 0  # worlds sampled (figures)
        self.errors = 0  # worlds or playouts that raised (tests hold it at 0)

    def observe(self, event: Any) -> None:
        self.events.append(event)
        self.fallback.observe(event)

    def act(self, view: Any, legal: Sequence[Any], rng: random.Random) -> Any:
        if not legal:
            return None
        if len(legal) == 1 or not self.events:
            return self.fallback.act(view, legal, rng)
        found = self.evaluate(view, legal, rng)
        return legal[self._pick(found.first, found.order, found.sums, found.squares, found.counts)]

    def evaluate(self, view: Any, legal: Sequence[Any], rng: random.Random) -> Evaluation:
        """The search behind `act`: every candidate's advantage over the
        heuristic's choice, paired world by world (also what the post-game
        analysis reads as the seat's own judgement of a move)."""
        clock = self.clock
        # A hard budget: nothing new starts once it is spent, and a playout
        # running past it is abandoned (`_playout` checks the clock). The
        # heuristic's choice is scored first in every world, so whenever the
        # budget ends there is a scored answer, and with no evidence at all
        # the answer is the heuristic's own.
        deadline = clock() + self.budget_s
        choice = self.fallback.act(view, legal, random.Random(rng.getrandbits(32)))
        first = legal.index(choice) if choice in legal else 0
        order = [first] + [i for i in range(len(legal)) if i != first]
        # Per candidate, its advantage over the heuristic's choice in the
        # same world (paired: the same deal and playout seed): sum, sum of
        # squares and count.
        k = len(legal)
        sums, squares, counts = [0.0] * k, [0.0] * k, [0] * k
        worlds = 0
        longest = 0.0  # the longest playout so far: one that would not fit is not started
        while True:
            if (self.clockless and worlds >= self.worlds) or clock() + longest > deadline:
                break
            worlds += 1
            try:
                state = self.game.fold(self.search.determinize(self.events, self.seat, view, rng))
            except Exception:  # a world the sampler could not make consistent: skip it
                self.errors += 1
                continue
            seed = rng.getrandbits(32)
            base = 0.0  # the first candidate's value: `order` scores it before any other
            for i in order:
                began = clock()
                if began + longest > deadline and counts[first]:
                    break
                try:
                    value = self._playout(state, legal[i], seed, deadline)
                except Exception:  # a world the rules cannot play on: no evidence, not a crash
                    self.errors += 1
                    value = None
                longest = max(longest, clock() - began)
                if value is None:
                    if i == first:
                        break  # nothing to compare with in this world
                    continue
                if i == first:
                    base = value
                    counts[first] += 1
                    continue
                d = value - base
                sums[i] += d
                squares[i] += d * d
                counts[i] += 1
        self.searched += worlds
        return Evaluation(first, order, sums, squares, counts)

    @staticmethod
    def _pick(first: int, order: list[int], sums: list[float], squares: list[float], counts: list[int]) -> int:
        """The candidate whose advantage over the heuristic's choice has the
        best lower confidence bound, if that bound is above 0; else the
        heuristic's choice. The bound widens with the number of candidates:
        the best of 48 noisy means (a Kabuki Tricks Director's choices, with
        a few worlds each) beats the heuristic by luck alone (the winner's
        curse), and search should override the heuristic only on evidence."""
        z = 1.0 + 0.5 * math.log(len(order))
        best, best_bound = first, 0.0
        for i in order[1:]:
            n = counts[i]
            if n < MIN_EVIDENCE:
                continue
            mean = sums[i] / n
            variance = max(0.0, squares[i] / n - mean * mean) * n / (n - 1)
            bound = mean - z * math.sqrt(variance / n)
            if bound > best_bound:
                best, best_bound = i, bound
        return best

    def _step_clock(self) -> float:
        return self.steps * STEP_COST_S

    def _playout(self, state: Any, action: Any, seed: int, deadline: float | None = None) -> float | None:
        """The expert's `action`, then heuristic bots to the end of the round
        (`heuristic_playout`, or the game's lean copy of it): the seat's lead
        over the best other seat."""
        game, search, seat = self.game, self.search, self.seat
        if search.lean_playout is not None:
            # One call, too short to abandon midway: `act` starts none that
            # the longest so far says would not fit in the budget.
            out = search.lean_playout(state, seat, action, seed, self.options)
            if out is None:
                return None
            lead, steps = out
            self.steps += steps
            return lead
        clock = self.clock

        def tick() -> None:
            self.steps += 1

        def expired(step: int) -> bool:
            return deadline is not None and step & 15 == 15 and clock() > deadline

        final = heuristic_playout(game, search, self.options, state, seat, action, seed, search.horizon, tick, expired)
        if final is None:
            return None
        scores = search.scores(final)
        mine = scores[seat]
        best_other = max(s for i, s in enumerate(scores) if i != seat)
        return mine - best_other


def heuristic_playout(
    game: Game,
    search: Search,
    options: Any,
    state: Any,
    seat: int,
    action: Any,
    seed: int,
    horizon: int,
    tick: Callable[[], None] = lambda: None,
    expired: Callable[[int], bool] = lambda step: False,
) -> Any | None:
    """The seat's `action` in `state`, then fresh heuristic bots for every
    seat until `search.round_of` has changed `horizon` times (or the game
    ends): the state reached, or None when the action is refused or
    `expired(step)` says the budget is spent (`tick` counts the steps). The turn model is the
    simulator's (engines/playout.py), on the playout's seeded rng: seats that
    may act without being awaited (a Kabuki masks Stop) are asked first in a
    random order, each may let the moment pass (None); then the awaited seat
    acts, once its wait (`next_timer`) is over; with nobody to ask, the timer
    fires. The expert's engine playout, and the post-game analysis's."""
    now = search.clock_of(state)
    try:
        events = game.decide(state, seat, action, Ctx(_when(game, state, seat, now)))
    except RuleError:
        return None
    start_round = search.round_of(state)
    bots = [game.bots["heuristic"](s, options) for s in range(len(search.scores(state)))]
    if search.prime is not None:
        search.prime(bots, state)
    watchers = [(s, b) for s, b in enumerate(bots) if b.observes]  # the Bot protocol's flag
    redact, evolve = game.redact, game.evolve

    def apply(events: list) -> None:
        nonlocal state
        for event in events:
            state = evolve(state, event)
            for s, bot in watchers:
                seen = redact(event, s)
                if seen is not None:
                    bot.observe(seen)

    apply(events)
    now = max(now, search.clock_of(state))
    rng = random.Random(seed)
    left = horizon
    for step in range(MAX_PLAYOUT_STEPS):
        tick()
        if game.is_over(state):
            break
        if search.round_of(state) != start_round:
            left -= 1
            if not left:
                break
            start_round = search.round_of(state)
        if expired(step):
            return None  # past the budget: abandoned, not scored
        awaited = game.waiting_for(state)
        acted = False
        chances = sorted(game.to_act(state) - awaited)
        if len(chances) > 1:
            rng.shuffle(chances)  # who speaks first is luck, as in the simulator: no seat is favoured
        for mover in chances:  # chances first: each may pass
            legal = game.legal_actions(state, mover, now)
            if legal:
                choice = bots[mover].act(game.view(state, mover), legal, rng)
                if choice is not None:
                    apply(game.decide(state, mover, choice, Ctx(now)))
                    acted = True
                    break
        if acted:
            continue
        if awaited:
            mover = min(awaited)
            now = _when(game, state, mover, now)
            legal = game.legal_actions(state, mover, now)
            if not legal:
                break
            choice = bots[mover].act(game.view(state, mover), legal, rng)
            if choice is None:
                choice = legal[-1]
            apply(game.decide(state, mover, choice, Ctx(now)))
            continue
        due = game.next_timer(state)
        if due is None:
            break
        now = max(now, due)
        events = game.on_timer(state, Ctx(now))
        if not events:
            break
        apply(events)
    return state


def _when(game: Game, state: Any, seat: int, now: int) -> int:
    """When an awaited seat's action is taken: once its wait is over."""
    if seat in game.waiting_for(state):
        due = game.next_timer(state)
        if due is not None and due > now:
            return due
    return now


def deal_unseen(
    pool: list[int], need: list[int], voids: list[set[int]], suit_of: Sequence[int], rng: random.Random, tries: int = 8
) -> list[list[int]]:
    """`need[s]` random cards of `pool` for each holder, none of a suit it is
    known to lack (it did not follow it); what is left stays in `pool` (the
    discard). The most constrained holders draw first; after `tries`
    shuffles that cannot satisfy everyone the voids are dropped: a world
    slightly off beats no world."""
    order = sorted(range(len(need)), key=lambda s: -len(voids[s]))
    for attempt in range(tries + 1):
        rng.shuffle(pool)
        left = list(pool)
        out: list[list[int]] = [[] for _ in need]
        ok = True
        for s in order:
            if not need[s]:
                continue
            lacking = voids[s] if attempt < tries else ()
            take = [c for c in left if suit_of[c] not in lacking][: need[s]]
            if len(take) < need[s]:
                ok = False
                break
            out[s] = take
            chosen = set(take)
            left = [c for c in left if c not in chosen]
        if ok:
            pool[:] = left
            return out
    raise AssertionError("unreachable: the last try ignores voids")


class ExpertFactory(Protocol):
    """`expert_factory`'s bot factory: a registry `BotFactory` that also takes a clock and a budget."""

    def __call__(
        self, seat: int, options: Any, budget_ms: float = ..., clock: Callable[[], float] | None = None
    ) -> ExpertBot: ...


def expert_factory(game_ref: Callable[[], Game], search: Search) -> ExpertFactory:
    """The registry's factory (seat, options): clockless, a fixed number of worlds."""

    def make(
        seat: int, options: Any, budget_ms: float = DEFAULT_BUDGET_MS, clock: Callable[[], float] | None = None
    ) -> ExpertBot:
        return ExpertBot(game_ref(), search, seat, options, budget_ms, clock)

    return make


def make_bot(
    game: Game,
    name: str,
    seat: int,
    options: Any,
    clock: Callable[[], float] | None = None,
    budget_ms: float = DEFAULT_BUDGET_MS,
) -> Any:
    """A house bot by name; the expert gets the caller's clock and budget."""
    if name == "expert":
        # Every game registers `expert_factory`'s factory as "expert"; the
        # registry's Mapping types its values as plain `BotFactory`s.
        expert = cast(ExpertFactory, game.bots[name])
        return expert(seat, options, budget_ms=budget_ms, clock=clock)
    return game.bots[name](seat, options)
