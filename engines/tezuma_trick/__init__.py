"""Tezuma Trick (docs/rules/tezuma-trick.md, rulings TT-1..TT-15): must-follow tricks with
off-suit Trumps, drafted Bid, Pain Suit and Ability cards."""

from __future__ import annotations

from engines.core import Game
from engines.expert import expert_factory
from engines.tezuma_trick.actions import AnyAction
from engines.tezuma_trick.bots import BOTS
from engines.tezuma_trick.events import DEAL_TAGS, AnyEvent
from engines.tezuma_trick.expert import SEARCH
from engines.tezuma_trick.options import Options
from engines.tezuma_trick.rules import (
    automatic,
    decide,
    describe,
    is_over,
    legal_actions,
    next_timer,
    on_timer,
    result,
    start,
    to_act,
)
from engines.tezuma_trick.state import State, evolve
from engines.tezuma_trick.view import (
    all_cards,
    blank,
    blank_view,
    hidden_cards,
    moment,
    moments,
    past_cards,
    redact,
    revealed_cards,
    view,
)

GAME: Game = Game(
    name="tezuma-trick",
    title="Tezuma Trick",
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
    next_timer=next_timer,
    on_timer=on_timer,
    automatic=automatic,
    hidden_cards=hidden_cards,
    revealed_cards=revealed_cards,
    all_cards=all_cards,
    describe=describe,
    moment=moment,
    moments=moments,
    blank=blank,
    blank_view=blank_view,
    past_cards=past_cards,
    deal_tags=DEAL_TAGS,
)

__all__ = ["GAME", "Options", "State"]
