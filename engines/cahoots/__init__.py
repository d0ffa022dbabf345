"""Cahoots (Mayday Games): 3-4 players, 11 tricks, identity cards (CH-1..CH-9)."""

from __future__ import annotations

from engines.cahoots.actions import AnyAction
from engines.cahoots.bots import BOTS
from engines.cahoots.events import DEAL_TAGS, AnyEvent
from engines.cahoots.options import Options
from engines.cahoots.rules import automatic, decide, describe, is_over, legal_actions, result, start, to_act
from engines.cahoots.state import evolve
from engines.cahoots.view import all_cards, hidden_cards, redact, revealed_cards, view
from engines.core import Game
from engines.expert import expert_factory

from .expert import SEARCH

GAME: Game = Game(
    name="cahoots",
    title="Cahoots",
    min_players=3,
    max_players=4,
    options_type=Options,
    event_type=AnyEvent,
    action_type=AnyAction,
    start=start,
    evolve=evolve,
    to_act=to_act,
    legal_actions=legal_actions,
    decide=decide,
    view=view,
    redact=redact,
    is_over=is_over,
    result=result,
    bots={**BOTS, "expert": expert_factory(lambda: GAME, SEARCH)},
    hidden_cards=hidden_cards,
    revealed_cards=revealed_cards,
    all_cards=all_cards,
    describe=describe,
    automatic=automatic,
    deal_tags=DEAL_TAGS,
)

__all__ = ["GAME"]
