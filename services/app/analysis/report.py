"""What a finished game's analysis says (`GET /api/v1/games/{id}/analysis`,
`hanamichi analyse`): every decision a seat made, judged twice, each seat's
figures and the graph. Frozen msgspec Structs; the JSON is these fields.

- *open hand* (`loss`, `best`, `expected`): every card known (the game is
  over), each legal move played out from the true state with the heuristic
  bots continuing for every seat to the end of the round (Cahoots: the
  deal). The heuristic is deterministic and the state is known, so one
  playout per move is exact for that continuation (its standard error is 0);
  what comes after the round is dealt afresh and does not depend on the move.
- *from what the player knew* (`knew_loss`, `knew_best`, `knew_stderr`): the
  expert's own determinised search from the seat's view at that moment,
  `Method.worlds` sampled worlds, each move paired with the heuristic's
  choice in the same world; the standard error is that of the paired mean.

Points are points of *margin*: the seat's score minus the best other seat's
score at the end of the round, which is what a move is for in a game of
places. A move within `Method.margin` points of the best counts as accurate."""

from __future__ import annotations

from typing import Any

import msgspec

ANALYSIS_VERSION = 1


class Method(msgspec.Struct, frozen=True):
    open_hand: str  # "heuristic playouts to the end of the round"
    playouts_per_move: int  # open hand: 1 (deterministic continuation)
    worlds: int  # from what the player knew: worlds of the expert's search
    margin: float  # accuracy: a move within this many points of the best


class Judgement(msgspec.Struct, frozen=True):
    """One decision: the stream version of the move's first event (the
    replay's step), whose it was, what was played and what was best."""

    version: int
    seat: int
    own: bool  # False: the service's default move, or a house bot after a hand-over
    choices: int  # legal moves at that moment
    played: Any  # the action, as the API takes it
    best: Any  # open hand
    loss: float  # open hand, points of margin (>= 0)
    expected: list[float]  # every seat's projected score at the round's end after the move played
    knew_best: Any | None = None
    knew_loss: float | None = None  # from the seat's view (>= 0)
    knew_stderr: float | None = None


class Mistake(msgspec.Struct, frozen=True):
    version: int
    loss: float
    played: Any
    best: Any


class SeatFigures(msgspec.Struct, frozen=True):
    seat: int
    decisions: int  # the seat's own decisions with more than one legal move
    mean_loss: float
    accuracy: float  # share of those decisions with loss <= margin
    knew_mean_loss: float | None
    largest: list[Mistake]  # the three largest open-hand losses


class GraphPoint(msgspec.Struct, frozen=True):
    version: int
    expected: list[float]  # every seat's projected score at the round's end


class Analysis(msgspec.Struct, frozen=True):
    game_id: str
    game: str
    analysis_version: int
    method: Method
    seats: list[SeatFigures]
    moves: list[Judgement]  # decisions with more than one legal move, in order
    graph: list[GraphPoint]  # one point per move (forced moves included), in order
    masks: Any | None = None  # Kabuki masks: the Stop review (services/app/analysis/masks.py, MasksReview)


class Progress(msgspec.Struct, frozen=True):
    """The 202 answer while an analysis waits or runs."""

    status: str  # "queued" | "running"
    done: int  # decisions judged so far
    total: int  # decisions to judge (0 until it starts)
