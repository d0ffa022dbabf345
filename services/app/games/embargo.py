"""The embargo of duplicate tournaments, in one place.

A duplicate round plays one deal at several tables, seats rotated. Until the
round has ended at every table, anything shown of one table (a hand, a card
played, a score) tells a player at another what their opponents hold. So a
table of a duplicate round is embargoed from its creation until the
tournament lifts it when the round ends (games.embargoed, migration 005):

- a person seated at the table sees what their seat saw while playing: their
  own seat's events and views, up to the last move (the final commit reveals
  the seed, which fixes every hand), and never another seat's view;
- everyone else (spectators, players of the other tables, any other token)
  sees none of its play: its events, replays, export and verification answer
  409 `results_embargoed`, its view is empty, and its SSE stream stays open
  and delivers once the embargo lifts;
- the tournament's own stream (`/events`, `/stream`) stops before the round's
  first `tn.table_finished` until `tn.round_ended`, and `/rounds/{n}` and
  `/standings` show the round's tables as in play, without places or scores.

Every route of a game calls `check` (or `visible_upto` for a stream), and
every tournament read goes through `tournament_upto`/`tournament_view`."""

from __future__ import annotations

from typing import Any

import engines.tournament as tn
from services.app.errors import Conflict

CODE = "results_embargoed"
MESSAGE = "other tables of this duplicate round are still playing these cards; this is shown when the round ends"


def withheld(table: Any, viewer: int | None) -> bool:
    """Whether `viewer` (their seat at the table; None: anyone else) is kept
    from the table's play."""
    return bool(table.record.embargo) and viewer is None


def visible_upto(table: Any, viewer: int | None) -> int:
    """The last version `viewer` may see (0: nothing)."""
    if withheld(table, viewer):
        return 0
    return table.visible_version


def check(table: Any, viewer: int | None, seat: int | None = None, whole: bool = False) -> None:
    """The one embargo check of a game's routes: 409 `results_embargoed`
    while the table is embargoed and the caller holds no seat at it, asks
    for another seat's view (`seat`), or wants the whole log (`whole`:
    export, verify, which carry the seed)."""
    if not table.record.embargo:
        return
    if whole or viewer is None or (seat is not None and seat != viewer):
        raise Conflict(CODE, MESSAGE)


# --- the tournament's side ------------------------------------------------------


def round_withheld(state: Any) -> bool:
    """A duplicate round is being played: its tables' results stay hidden."""
    return (
        state is not None
        and state.settings.duplicate
        and state.status == "running"
        and state.round > 0
        and not state.round_over
    )


def tournament_upto(state: Any, events: list) -> int:
    """The last version of the tournament's stream anyone may see: during a
    duplicate round, the version before its first `tn.table_finished` (what
    follows in the round is only more results, then `tn.round_ended`)."""
    if round_withheld(state):
        for version, event in enumerate(events, start=1):
            if isinstance(event, tn.TableFinished) and event.round == state.round:
                return version - 1
    return len(events)


def tournament_view(state: Any, events: list) -> Any:
    """The tournament state as anyone may see it: during a duplicate round,
    folded without that round's results (standings without them, every
    table of the round in play)."""
    upto = tournament_upto(state, events)
    if upto == len(events):
        return state
    return tn.fold(events[:upto])
