"""`hanamichi arena MODULE:FUNCTION --game G --players N --vs heuristic --games K --seed S`:
the author's function against house bots, in this process, on the real
engines, with no server.

- **The request.** At each of its turns the function gets exactly the JSON
  the service's push call sends (services/app/agents/calls.py): the seat's view
  and legal actions encoded by msgspec, then decoded to plain JSON.
- **Games and seats.** Game k (k = 0..K-1) is dealt from seed
  `S * 1_000_003 + k`, as in `simulate`. The author's seat is that game seed
  modulo N, so consecutive games rotate it through every seat and seat
  advantage cancels out; `--seat N` holds it in seat N instead. Python's global `random` is seeded from the game
  seed before each game, so an author's `random.choice` replays exactly.
- **Failures.** An exception, an answer that is not one of legal_actions
  (`illegal`), or an answer later than `deadline_ms` (`timeout`) is recorded
  as `{seed, step, kind, message}` (step: the n-th request of that game to
  the function, from 0) and the default move is played, as the service would.
  `--replay SEED:STEP` plays that game again up to that request, prints the
  request, calls the function once more and prints what it does.
- **Opponents.** `--vs` names a house bot (`heuristic`, `house:expert`) or
  another author function (MODULE:FUNCTION, file.py:FUNCTION: A against B,
  or self-play), for every other seat or one per seat; only the author's
  figures are reported.
- **House bots.** `house:NAME` in the function's place seats that house
  bot instead (`house:expert`), timed the same way (and by CPU time,
  `move_cpu_ms_p50/p99`): the expert's figures. `house:expert:cpu` budgets
  its search by CPU time rather than the wall clock.
- **Scores.** A win is the author's seat among the winners (a shared win
  counts, as in `simulate`); `mean_score` is the author's mean score over
  all games with its 95% interval (`mean_score_ci95`), and
  `mean_score_by_seat[s]` its mean in the games it sat in seat s.
"""

from __future__ import annotations

import functools
import json
import math
import random
import time
import traceback
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from engines.core import Game
from engines.expert import make_bot
from engines.playout import Playout
from services.kit.arena_report import render, summarise

__all__ = ["arena", "check_seat", "load_player", "opponent", "play_games", "render", "replay"]

SEED_STRIDE = 1_000_003
DEFAULT_DEADLINE_MS = 5000
DEFAULT_BANK_MS = 30000
_json = msgspec.json.Encoder()


def game_seed(seed: int, number: int) -> int:
    return seed * SEED_STRIDE + number


def author_seat(seed_of_game: int, players: int, fixed: int | None = None) -> int:
    """The author's seat: `fixed` (`--seat N`), else rotating with the game seed."""
    return fixed if fixed is not None else seed_of_game % players


class _Replay(Exception):
    """Stops a replay at the step asked for."""

    def __init__(self, request: dict) -> None:
        self.request = request


class AuthorSeat:
    """The Bot protocol (engines/core.py) around the author's function."""

    blind = False
    observes = False

    def __init__(
        self,
        fn: Callable[[dict], Any],
        game: Game,
        seat: int,
        seed_of_game: int,
        deadline_ms: int,
        bank_ms: int,
        stop_at: int | None = None,
    ) -> None:
        self.fn, self.game, self.seat, self.seed = fn, game, seat, seed_of_game
        self.deadline_ms, self.bank_ms = deadline_ms, bank_ms
        self.stop_at = stop_at
        self.playout: Playout | None = None
        self.step = 0
        self.times_ms: list[float] = []
        self.failures: list[dict] = []

    def observe(self, event: Any) -> None:
        pass

    def request(self, view: Any, legal: Sequence[Any], optional: bool = False) -> dict:
        assert self.playout is not None  # seated at its playout before the first move
        # Encoded and decoded as the push call does: exactly the service's JSON.
        body = {
            "game": self.game.name,
            "game_id": f"arena-{self.seed}",
            "seat": self.seat,
            "version": len(self.playout.log),
            "view": view,
            "legal_actions": legal,
            "deadline_ms": self.deadline_ms,
            "time_bank_ms": self.bank_ms,
        }
        if optional:  # a chance while the table waits for another seat (a Kabuki masks Stop)
            body["time_bank_ms"] = 0
            body["optional"] = True
        return msgspec.json.decode(_json.encode(body))

    def act(self, view: Any, legal: Sequence[Any], rng: random.Random) -> Any:
        assert self.playout is not None  # seated at its playout before the first move
        awaited = self.seat in self.game.waiting_for(self.playout.state)
        request = self.request(view, legal, optional=not awaited)
        step = self.step
        self.step += 1
        if self.stop_at is not None and step == self.stop_at:
            raise _Replay(request)
        started = time.perf_counter()
        try:
            answer = self.fn(request)
        except Exception as exc:
            self.times_ms.append((time.perf_counter() - started) * 1000)
            return self._fail(step, "exception", f"{type(exc).__name__}: {exc}", legal, rng, awaited)
        took = (time.perf_counter() - started) * 1000
        self.times_ms.append(took)
        if took > self.deadline_ms:
            return self._fail(
                step, "timeout", f"answered after {took:.0f} ms (deadline_ms {self.deadline_ms})", legal, rng, awaited
            )
        if answer is None and not awaited:
            return None  # a seat nobody waits for may let the moment pass (a Kabuki masks Stop not called)
        if answer not in request["legal_actions"]:
            return self._fail(
                step,
                "illegal",
                f"{json.dumps(answer, default=repr)[:200]} is not one of legal_actions",
                legal,
                rng,
                awaited,
            )
        return legal[request["legal_actions"].index(answer)]

    def _fail(self, step: int, kind: str, message: str, legal: Sequence[Any], rng: random.Random, awaited: bool) -> Any:
        self.failures.append({"seed": self.seed, "step": step, "kind": kind, "message": message})
        # The default move for a seat the table waits for; otherwise nothing.
        return legal[int(rng.random() * len(legal))] if awaited else None


class HouseSeat:
    """`house:NAME` in the function's place: a house bot (the expert, given
    this process's clock) in the rotating seat, timed like a function, so
    that the house bots' own figures come from the same table (README)."""

    def __init__(
        self,
        name: str,
        game: Game,
        seat: int,
        seed_of_game: int,
        options: Any,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.bot = make_bot(game, name, seat, options, clock=clock)
        self.cpu_ms: list[float] = []
        self.blind = self.bot.blind  # the Bot protocol's flags (engines/core.py)
        self.observes = self.bot.observes
        self.seat, self.seed = seat, seed_of_game
        self.playout: Playout | None = None
        self.times_ms: list[float] = []
        self.failures: list[dict] = []

    def observe(self, event: Any) -> None:
        self.bot.observe(event)

    def act(self, view: Any, legal: Sequence[Any], rng: random.Random) -> Any:
        started, cpu = time.perf_counter(), time.thread_time()
        answer = self.bot.act(view, legal, rng)
        if answer is not None:  # a chance let pass is not a move
            self.times_ms.append((time.perf_counter() - started) * 1000)
            self.cpu_ms.append((time.thread_time() - cpu) * 1000)
        return answer


@functools.cache  # a file's function is loaded once per process, however many seats and games use it
def load_player(spec: str) -> Any:
    """`house:NAME` (a house bot's name) or MODULE:FUNCTION."""
    if spec.startswith("house:"):
        return spec
    from services.kit import load_function

    return load_function(spec)


def _make_playout(
    fn,
    game: Game,
    players: int,
    options: Any,
    seed_of_game: int,
    vs: list[str],
    deadline_ms: int,
    bank_ms: int,
    stop_at: int | None = None,
    fixed_seat: int | None = None,
) -> tuple[Playout, AuthorSeat | HouseSeat]:
    seat = author_seat(seed_of_game, players, fixed_seat)
    author: AuthorSeat | HouseSeat
    if isinstance(fn, str):
        name = fn.partition(":")[2]
        if name.partition(":")[0] not in game.bots:
            raise ValueError(f"{game.name} has no house bot {name!r}; known: {', '.join(game.bots)}")
        # `house:expert:cpu` budgets by this thread's CPU time: on a machine
        # shared with other work, the strength an idle machine would give.
        clock = time.thread_time if fn.endswith(":cpu") else time.perf_counter
        author = HouseSeat(name.partition(":")[0], game, seat, seed_of_game, options, clock)
    else:
        author = AuthorSeat(fn, game, seat, seed_of_game, deadline_ms, bank_ms, stop_at)
    others = iter(vs)
    seated = [author if s == seat else _opponent(next(others), game, s, seed_of_game, options) for s in range(players)]
    random.seed(seed_of_game)  # the author's own `random` replays too
    playout = Playout(game, players, options, seed_of_game, seated)
    for bot in seated:
        if isinstance(bot, AuthorSeat | HouseSeat):
            bot.playout = playout
    return playout, author


def opponent(spec: str, game: Game) -> str | Callable[[dict], Any]:
    """What a `--vs` entry names: a house bot's name (`heuristic`, or
    `house:heuristic`), or another author's function (MODULE:FUNCTION,
    path/to/file.py:FUNCTION), loaded; ValueError (or the import's own
    error) when it names neither."""
    name = spec.removeprefix("house:")
    if name in game.bots:
        return name
    if spec.startswith("house:") or ":" not in spec:
        raise ValueError(
            f"{spec!r} is not a house bot among {', '.join(game.bots)} (or house:NAME),"
            " nor MODULE:FUNCTION / file.py:FUNCTION"
        )
    return load_player(spec)


def _opponent(spec: str, game: Game, seat: int, seed_of_game: int, options: Any) -> Any:
    """A `--vs` seat: a house bot, or another author function called as the
    author's is, with the default deadline (its figures are not reported)."""
    found = opponent(spec, game)
    if isinstance(found, str):
        # The expert searches by this process's clock for its budget.
        return make_bot(game, found, seat, options, clock=time.perf_counter)
    return AuthorSeat(found, game, seat, seed_of_game, DEFAULT_DEADLINE_MS, DEFAULT_BANK_MS)


def check_seat(seat: int | None, players: int) -> None:
    """`--seat`: a seat of the table, or None (rotating)."""
    if seat is not None and not 0 <= seat < players:
        raise ValueError(f"--seat is a seat of the table: 0 to {players - 1}")


def play_games(
    fn,
    game: Game,
    players: int,
    options: Any,
    seed: int,
    numbers: range,
    vs: list[str],
    deadline_ms: int = DEFAULT_DEADLINE_MS,
    bank_ms: int = DEFAULT_BANK_MS,
    fixed_seat: int | None = None,
) -> list[dict]:
    """One record per game: {seed, seat, score, won, times_ms, failures}."""
    records = []
    for number in numbers:
        seed_of_game = game_seed(seed, number)
        playout, author = _make_playout(
            fn, game, players, options, seed_of_game, vs, deadline_ms, bank_ms, fixed_seat=fixed_seat
        )
        state = playout.run()
        result = game.result(state)
        records.append(
            {
                "seed": seed_of_game,
                "seat": author.seat,
                "score": float(result.scores[author.seat]),
                "won": author.seat in result.winners,
                "times_ms": author.times_ms,
                "failures": author.failures,
                "cpu_ms": getattr(author, "cpu_ms", []),
            }
        )
    return records


def replay(
    fn,
    game: Game,
    players: int,
    options: Any,
    seed_of_game: int,
    step: int,
    vs: list[str],
    deadline_ms: int = DEFAULT_DEADLINE_MS,
    bank_ms: int = DEFAULT_BANK_MS,
    fixed_seat: int | None = None,
) -> dict:
    """Play the game dealt from `seed_of_game` up to the function's request
    number `step`, then call the function on it once more: {request, answer |
    error, ms, legal}."""
    playout, _author = _make_playout(
        fn, game, players, options, seed_of_game, vs, deadline_ms, bank_ms, stop_at=step, fixed_seat=fixed_seat
    )
    try:
        playout.run()
    except _Replay as stop:
        request = stop.request
    else:
        raise ValueError(f"game {seed_of_game} has no request number {step} for the function")
    out: dict[str, Any] = {"seed": seed_of_game, "step": step, "request": request}
    started = time.perf_counter()
    try:
        answer = fn(request)
    except Exception as exc:
        out["error"] = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    else:
        out["answer"] = answer
        out["legal"] = answer in request["legal_actions"]
    out["ms"] = round((time.perf_counter() - started) * 1000, 3)
    out["late"] = out["ms"] > deadline_ms
    return out


def _job(args: tuple) -> list[dict]:
    spec, game_name, players, raw_options, seed, start, stop, vs, deadline_ms, bank_ms, fixed_seat = args
    from engines.registry import get_game

    game = get_game(game_name)
    return play_games(
        load_player(spec),
        game,
        players,
        game.make_options(raw_options),
        seed,
        range(start, stop),
        vs,
        deadline_ms,
        bank_ms,
        fixed_seat,
    )


def arena(
    spec: str,
    game_name: str,
    players: int,
    games: int,
    seed: int,
    vs: list[str],
    jobs: int = 1,
    options: dict | None = None,
    deadline_ms: int = DEFAULT_DEADLINE_MS,
    bank_ms: int = DEFAULT_BANK_MS,
    fixed_seat: int | None = None,
) -> dict:
    """Play `games` games and summarise them (the `--json` object); the
    author sits in `fixed_seat` in every game, or in a rotating seat."""
    from engines.registry import get_game

    game = get_game(game_name)
    game.check_players(players)
    game.make_options(options)
    check_seat(fixed_seat, players)
    if jobs <= 1:
        args = (spec, game_name, players, options, seed, 0, games, vs, deadline_ms, bank_ms, fixed_seat)
        return summarise(_job(args), players)
    import multiprocessing

    size = math.ceil(games / jobs)
    chunks = [
        (spec, game_name, players, options, seed, lo, min(games, lo + size), vs, deadline_ms, bank_ms, fixed_seat)
        for lo in range(0, games, size)
    ]
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        parts = pool.map(_job, chunks)
    return summarise([r for part in parts for r in part], players)
