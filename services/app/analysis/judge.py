"""The analysis of one finished game: the log replayed into moves
(services/app/integrity/replay.py), every decision with more than one legal
move judged open-hand and from the seat's own view (report.py says what the
figures mean), then each seat's figures (figures.py)."""

from __future__ import annotations

import hashlib
import random
import typing
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from engines.core import Game
from engines.expert import Evaluation, ExpertBot, Search, heuristic_playout
from engines.registry import get_game, get_search
from services.app.analysis.figures import graph_of, seat_figures
from services.app.analysis.masks import review
from services.app.analysis.report import ANALYSIS_VERSION, Analysis, Judgement, Method
from services.app.integrity.feeding import Move
from services.app.integrity.replay import moves_from_log
from services.app.ports.integrity import LogEvent

MARGIN = 0.5  # points of margin: a move this close to the best is accurate
# The expert's worlds per decision, from the seat's view: its search is most
# of an analysis's time (a 4-player Tezuma Trick game: about 200 decisions).
WORLDS = 8
# The expert's budget counted in playout steps (engines/expert.py): large
# enough that `WORLDS` ends every search, never the step clock.
KNEW_BUDGET_MS = 1e9


class NotAnalysable(ValueError):
    """A stream that is not a finished game the engines can replay."""


def analyse(
    game_id: str,
    log: Sequence[LogEvent],
    progress: Callable[[int, int], None] | None = None,
    worlds: int = WORLDS,
) -> Analysis:
    """The analysis of a finished game's whole stream (service events
    included: they say which moves were the seat's own); `progress(done,
    total)` after each move judged."""
    judge, moves = prepare(game_id, log, worlds)
    search, name = judge.search, judge.game.name
    judged: list[Judgement] = []
    for done, move in enumerate(moves, start=1):
        judged.append(judge.judgement(move))
        if progress is not None:
            progress(done, len(moves))
    method = Method(
        open_hand=f"heuristic playouts from the true state to the end of the round ({search.judged_rounds} round(s))",
        playouts_per_move=search.judged_playouts,
        worlds=worlds,
        margin=MARGIN,
    )
    decisions = [j for j in judged if j.choices > 1]
    masks = msgspec.to_builtins(review(judge.engine)) if name == "kabuki-masks" else None
    return Analysis(
        game_id=game_id,
        game=name,
        analysis_version=ANALYSIS_VERSION,
        method=method,
        seats=[seat_figures(s, decisions, MARGIN) for s in range(judge.players)],
        moves=decisions,
        graph=graph_of(judged),
        masks=masks,
    )


def prepare(game_id: str, log: Sequence[LogEvent], worlds: int = WORLDS) -> tuple[Judge, list[Move]]:
    """The judge of a finished game's stream and the seats' moves it judges
    (`analyse`'s, and the validation's, which asks it about other moves)."""
    finished = next((e for e in reversed(log) if e.type == "hm.game_finished"), None)
    if finished is None:
        raise NotAnalysable("the game has not finished: only a finished game is analysed")
    name = msgspec.json.decode(finished.data).get("game")
    game, search = get_game(name), get_search(name)
    moves = [m for m in moves_from_log(game, log) if m.seat in game.waiting_for(m.before)]
    engine = engine_log(game, log)
    players, options = game.setup(engine[0][1])
    return Judge(game, search, options, players, engine, _seed(game_id), worlds), moves


def _seed(game_id: str) -> int:
    return int.from_bytes(hashlib.sha256(f"analysis:{ANALYSIS_VERSION}:{game_id}".encode()).digest()[:8], "big")


def engine_log(game: Game, log: Sequence[LogEvent]) -> list[tuple[int, Any]]:
    tags = frozenset(t.__struct_config__.tag for t in typing.get_args(game.event_type))
    return [(e.version, msgspec.json.decode(e.data, type=game.event_type)) for e in log if e.type in tags]


class Judge:
    def __init__(
        self,
        game: Game,
        search: Search,
        options: Any,
        players: int,
        engine: list[tuple[int, Any]],
        seed: int,
        worlds: int,
    ) -> None:
        self.game, self.search, self.options, self.players = game, search, options, players
        self.engine, self.seed, self.worlds = engine, seed, worlds
        self._seen: dict[int, list[tuple[int, Any]]] = {}

    def seen(self, seat: int, before: int) -> list[Any]:
        """The seat's redacted events at versions before `before`: what it
        had been shown when it moved (redacted once per seat per game)."""
        if seat not in self._seen:
            redacted = ((v, self.game.redact(e, seat)) for v, e in self.engine)
            self._seen[seat] = [(v, e) for v, e in redacted if e is not None]
        return [e for v, e in self._seen[seat] if v < before]

    def open_hand(self, move: Move, rng: random.Random) -> tuple[list, int, dict[int, list[float]]]:
        """The legal moves at `move`, the index of the one played and, per
        move judged (every legal one when there is a choice), every seat's
        projected score after it (moves the rules refuse are left out); the
        playouts' seeds are drawn from `rng` (`self.rng(move)`)."""
        game, seat, before = self.game, move.seat, move.before
        legal = game.legal_actions(before, seat, game.event_time(move.events[0]))
        played = next((i for i, a in enumerate(legal) if a == move.action), None)
        if played is None:  # taken at a moment the legal list does not show (never for a genuine log)
            legal, played = [*legal, move.action], len(legal)
        seeds = [rng.getrandbits(32) for _ in range(self.search.judged_playouts)]
        # Forced moves are played out too: the graph has a point per move.
        candidates = range(len(legal)) if len(legal) > 1 else [played]
        projected = {i: p for i in candidates if (p := self._open_hand(before, seat, legal[i], seeds)) is not None}
        return legal, played, projected

    def judgement(self, move: Move) -> Judgement:
        seat = move.seat
        rng = self.rng(move)
        legal, played, projected = self.open_hand(move, rng)
        leads = {i: lead(p, seat) for i, p in projected.items()}
        mine = leads.get(played)
        best = max(leads, key=lambda i: (leads[i], i == played)) if leads else played
        expected = projected.get(played) or [0.0] * self.players
        out = Judgement(
            version=move.version,
            seat=seat,
            own=move.own,
            choices=len(legal),
            played=msgspec.to_builtins(legal[played]),
            best=msgspec.to_builtins(legal[best]),
            loss=round(max(0.0, leads[best] - mine), 3) if mine is not None else 0.0,
            expected=[round(x, 3) for x in expected],
        )
        if len(legal) < 2 or not self.worlds:
            return out
        return self._with_knew(out, move, legal, played, rng)

    def rng(self, move: Move) -> random.Random:
        """The move's own: its figures do not depend on which moves were judged before it."""
        return random.Random(f"{self.seed}:{move.version}")

    def _open_hand(self, state: Any, seat: int, action: Any, seeds: list[int]) -> list[float] | None:
        """Every seat's mean score at the horizon after `action`."""
        totals = [0.0] * self.players
        for seed in seeds:
            final = heuristic_playout(
                self.game, self.search, self.options, state, seat, action, seed, self.search.judged_rounds
            )
            if final is None:
                return None
            for s, x in enumerate(self.search.scores(final)):
                totals[s] += x
        return [x / len(seeds) for x in totals]

    def _with_knew(self, out: Judgement, move: Move, legal: list, played: int, rng: random.Random) -> Judgement:
        """The expert's search from the seat's view at that moment: what it
        saw (its redacted events), the view and the legal moves."""
        game, seat = self.game, move.seat
        bot = ExpertBot(game, self.search, seat, self.options, budget_ms=KNEW_BUDGET_MS, worlds=self.worlds)
        for event in self.seen(seat, move.version):
            bot.observe(event)
        found = bot.evaluate(game.view(move.before, seat), legal, rng)
        means = {i: m for i in range(len(legal)) if (m := found.mean(i)) is not None}
        if played not in means:
            return out
        best = max(means, key=lambda i: (means[i], i == played))
        return msgspec.structs.replace(
            out,
            knew_best=msgspec.to_builtins(legal[best]),
            knew_loss=round(means[best] - means[played], 3),
            knew_stderr=round(_stderr(found, best, played), 3),
        )


def lead(scores: Sequence[float], seat: int) -> float:
    return scores[seat] - max(x for i, x in enumerate(scores) if i != seat)


def _stderr(found: Evaluation, best: int, played: int) -> float:
    """Of the difference of two candidates' means over the same worlds: each
    is paired with the heuristic's choice; their own pairing is not kept, so
    the two errors are added as if independent (an upper bound when they
    are positively correlated, as in the same worlds they are)."""
    if best == played:
        return 0.0
    return (found.stderr(best) ** 2 + found.stderr(played) ** 2) ** 0.5


__all__ = ["MARGIN", "WORLDS", "Judge", "NotAnalysable", "analyse", "lead", "prepare"]
