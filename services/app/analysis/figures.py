"""Each seat's figures over its judged decisions, and the game's graph."""

from __future__ import annotations

from collections.abc import Sequence

from services.app.analysis.report import GraphPoint, Judgement, Mistake, SeatFigures

LARGEST = 3


def seat_figures(seat: int, decisions: Sequence[Judgement], margin: float) -> SeatFigures:
    """Over the seat's own decisions (not the service's default moves, nor a
    house bot's after a hand-over) with more than one legal move."""
    mine = [j for j in decisions if j.seat == seat and j.own and j.choices > 1]
    if not mine:
        return SeatFigures(seat, 0, 0.0, 1.0, None, [])
    knew = [j.knew_loss for j in mine if j.knew_loss is not None]
    worst = sorted(mine, key=lambda j: (-j.loss, j.version))[:LARGEST]
    return SeatFigures(
        seat=seat,
        decisions=len(mine),
        mean_loss=round(sum(j.loss for j in mine) / len(mine), 3),
        accuracy=round(sum(1 for j in mine if j.loss <= margin) / len(mine), 3),
        knew_mean_loss=round(sum(knew) / len(knew), 3) if knew else None,
        largest=[Mistake(j.version, j.loss, j.played, j.best) for j in worst if j.loss > 0],
    )


def graph_of(judged: Sequence[Judgement]) -> list[GraphPoint]:
    return [GraphPoint(j.version, j.expected) for j in judged]
