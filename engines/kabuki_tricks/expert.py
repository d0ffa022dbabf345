"""Kabuki Tricks' part of the `expert` bot (engines/expert.py): a world
consistent with what the seat has seen.

From its redacted events the seat knows its own hand, every card played
live this round and who played it, and every Joker placement, but not the
other hands, the discard (and with 2 players the dummy pile's unplayed
cards), the other seats' predictions (KT-11) or later rounds' decks. A
world deals the cards the seat has not seen at random: each other seat
gets the cards it was seen to play plus random unseen ones up to 7, the
dummy likewise, the rest is the discard; hidden predictions are drawn from
1..3. A seat that did not follow the led suit has none of it left (KT-4):
its random cards avoid that suit. Cards blanked by the history (GEN-1,
`card: None`) count as unseen.
The playout ends with the round, so later decks are never needed.

The playouts run on the lean state (lean.py, lean_bot.py: lists and ints,
the heuristic ported move for move), built from the world's folded State;
tests/engines/test_lean_kabuki_tricks.py holds them to the engine's."""

from __future__ import annotations

import random

from msgspec.structs import replace

from engines.expert import Search, deal_unseen

from .actions import ADJUSTS, Deal, Direct, Joker, Play
from .cards import JOKER, SUIT_INDEX, SUIT_OF, SUITS, deck_for
from .events import Dealt, JokerPlayed, Played, RoundEnded, Started, TrickWon
from .lean import CONFIG_INDEX, DEAL_MOVE, DIRECT_MOVE, JOKER_MOVE, apply, from_state, joker_move, legal, random_game
from .lean_bot import heuristic
from .rules import DIRECT_ACTIONS, PLAY_ACTIONS
from .state import OVER, State

HAND = 7


def determinize(events: list, seat: int, view, rng: random.Random) -> list:
    last = max(i for i, e in enumerate(events) if type(e) is Dealt)
    dealt = events[last]
    n = len(dealt.hands)
    holders = n + (1 if n == 2 else 0)  # with 2 players the dummy (index 2) holds cards too
    seen: list[list[int]] = [[] for _ in range(holders)]
    blanks = [0] * holders
    voids: list[set[int]] = [set() for _ in range(holders)]
    led = None  # the suit led in the trick in play (None: no trick, or its lead is blanked)
    leading = True
    for e in events[last + 1 :]:
        kind = type(e)
        if kind is Played:
            if leading:
                led = None if e.card is None else SUIT_OF[e.card]
                leading = False
            elif e.card is not None and led is not None and SUIT_OF[e.card] != led:
                voids[e.seat].add(led)  # KT-4: it would have followed: none of the led suit left
            if e.seat != seat:
                if e.card is None:
                    blanks[e.seat] += 1
                else:
                    seen[e.seat].append(e.card)
        elif kind is TrickWon:
            leading, led = True, None
    mine = set(dealt.hands[seat])
    known = mine.union(*map(set, seen))
    pool = [c for c in deck_for(n) if c not in known]
    need = [0 if s == seat else HAND - len(seen[s]) for s in range(holders)]
    extras = deal_unseen(pool, need, voids, SUIT_OF, rng)
    hands, fills = [], []
    for s in range(holders):
        if s == seat:
            hands.append(tuple(dealt.hands[seat]))
            # Its own plays blanked by the history (a bot rebuilt after a
            # restart): the dealt cards no longer in its hand.
            held = set(view.hand) if view is not None else set()
            fills.append([c for c in dealt.hands[seat] if c not in held])
            continue
        extra = extras[s]
        fills.append(extra[: blanks[s]])  # the blanked plays are some of these
        hands.append(tuple(seen[s]) + tuple(extra))
    # Earlier rounds count only through their public results (scores,
    # the next round's side and order): their hidden deals are not needed.
    world = [e for e in events[:last] if type(e) in (Started, RoundEnded)]
    world.append(replace(dealt, hands=tuple(hands[:n]), dummy=hands[2] if n == 2 else (), discard=tuple(pool)))
    for e in events[last + 1 :]:
        kind = type(e)
        if kind is Played and e.card is None:
            e = replace(e, card=fills[e.seat].pop())
        elif kind is JokerPlayed and e.seat != seat and e.actor is not None and e.prediction is None:
            e = replace(e, prediction=rng.randint(1, 3))
        world.append(e)
    return world


# --- the lean playout: engine actions as lean moves (lean.py) ---------------------


def to_move(action) -> int | None:
    """The move for an engine action, or None for one `decide` refuses
    whatever the state (a malformed Joker adjustment or Director order)."""
    kind = type(action)
    if kind is Play:
        return action.card if type(action.card) is int and 0 <= action.card < JOKER else None
    if kind is Joker:
        actor = -1 if action.actor is None else SUIT_INDEX.get(action.actor)
        prediction = 0 if action.prediction is None else action.prediction
        adjust = action.adjust
        if adjust is None:
            code = 0
        elif adjust.flip is True and adjust.swap is None:
            code = 1
        elif adjust.flip is False and type(adjust.swap) is int and 0 <= adjust.swap <= 2:
            code = 2 + adjust.swap
        else:
            return None
        if actor is None or type(prediction) is not int or not 0 <= prediction <= 3 or (actor < 0) != (prediction == 0):
            return None
        return joker_move(actor, prediction, code)
    if kind is Direct:
        order = tuple(SUIT_INDEX.get(x, -1) for x in action.order) if isinstance(action.order, (tuple, list)) else ()
        k = CONFIG_INDEX.get((action.high, order)) if type(action.high) is bool else None
        return None if k is None else DIRECT_MOVE + k
    if kind is Deal:
        return DEAL_MOVE
    return None


def to_action(move: int):
    """The engine action for a move (tests play both side by side)."""
    if move < JOKER_MOVE:
        return PLAY_ACTIONS[move]
    if move < DIRECT_MOVE:
        code = move - JOKER_MOVE
        actor, prediction, adjust = code // 20 - 1, code % 20 // 5, code % 5
        return Joker(actor=SUITS[actor] if actor >= 0 else None, prediction=prediction or None, adjust=ADJUSTS[adjust])
    if move < DEAL_MOVE:
        return DIRECT_ACTIONS[move - DIRECT_MOVE]
    return Deal()


def lean_playout(state: State, seat: int, action, seed: int, options) -> tuple[int, int] | None:
    """`ExpertBot._playout` on the lean state: the seat's `action` (None if
    `decide` would refuse it), then heuristic bots to the end of the round;
    the seat's lead over the best other seat. No rule here draws from the
    playout's rng, so `seed` changes nothing, as on the engine path. `steps`
    counts as the engine playout does (one per bot action and one for the
    check that ends it), so a clockless expert spends its step budget alike."""
    lean = from_state(state)
    move = to_move(action)
    if move is None or lean.phase == OVER or lean.turn != seat or move not in legal(lean):
        return None
    start_round = lean.round
    apply(lean, move)
    zero = [False] * state.players  # fresh bots: HeuristicBot.zero_mode starts False
    steps = 1
    while lean.phase != OVER and lean.round == start_round:
        apply(lean, heuristic(lean, zero))
        steps += 1
    scores = lean.scores
    return scores[seat] - max(x for i, x in enumerate(scores) if i != seat), steps


def _round(state: State):
    return state.round


def _scores(state: State):
    return state.scores


SEARCH = Search(
    determinize=determinize, round_of=_round, scores=_scores, lean_playout=lean_playout, lean_random_game=random_game
)
