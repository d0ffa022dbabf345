"""start, to_act, legal_actions, decide, scoring and result.

About 330 lines, kept whole: one module of rules per game, as in the other
three engines; scoring (KT-3, KT-8, KT-9, KT-12, KT-14) is its last third."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engines.core import Chance, Ctx, Result, RuleError, places_from, settle

from .actions import ADJUSTS, Action, Deal, Direct, Joker, Play
from .cards import (
    HAND_SIZE,
    JOKER,
    NUMBER_OF,
    ORDERS,
    STRENGTH,
    SUIT_INDEX,
    SUIT_OF,
    SUITS,
    TRICKS_PER_ROUND,
    deck_for,
)
from .events import Dealt, Directed, GameEnded, JokerPlayed, Played, RoundEnded, ScoreLine, Started, TrickWon
from .options import Options
from .state import DEAL, DIRECT, OVER, PLAY, State, evolve

DUMMY = 2  # KT-13: the non-human third hand of the 2-player variant


def rounds_for(players: int) -> int:
    return 4 if players == 2 else players  # KT-13: 4 rounds with 2 players


def start(players: int, options: Options, chance: Chance) -> list:
    deck = list(deck_for(players))
    decks = tuple(tuple(chance.shuffled(f"round-{r}", deck)) for r in range(1, rounds_for(players) + 1))
    return [
        Started(
            players=players,
            options=options,
            rounds=rounds_for(players),
            first_dealer=chance.choice("first-dealer", list(range(players))),
            high=chance.choice("high-low", [True, False]),  # KT-10: random side ...
            order=tuple(chance.shuffled("actors", list(SUITS))),  # ... and random order
            seed=chance.seed,
            decks=decks,
            commitment=chance.commitment,
            salt=chance.salt,
        )
    ]


# --- who acts, and what they may do ------------------------------------------

_ONE = tuple(frozenset((seat,)) for seat in range(6))
_NOBODY: frozenset[int] = frozenset()


def to_act(state: State) -> frozenset[int]:
    return _NOBODY if state.phase == OVER else _ONE[state.turn]


DEAL_ACTIONS = [Deal()]
# KT-10: every side and every order, the unchanged configuration included.
DIRECT_ACTIONS = [Direct(high=high, order=tuple(SUITS[i] for i in order)) for high in (True, False) for order in ORDERS]
PLAY_ACTIONS = tuple(Play(card=c) for c in range(40))


def _joker_combos(free_mask: int) -> list[Joker]:
    """Every Joker action when the actors in `free_mask` (bit per suit) are free:
    placement x prediction x adjustment (KT-6), or adjustment only (KT-7)."""
    adjusts = ADJUSTS
    free = [SUITS[s] for s in range(4) if free_mask >> s & 1]
    if not free:
        return [Joker(actor=None, prediction=None, adjust=a) for a in adjusts]
    return [Joker(actor=actor, prediction=p, adjust=a) for actor in free for p in (1, 2, 3) for a in adjusts]


JOKER_COMBOS = tuple(_joker_combos(mask) for mask in range(16))


def _free_mask(placed: tuple[int, ...]) -> int:
    return (placed[0] < 0) | (placed[1] < 0) << 1 | (placed[2] < 0) << 2 | (placed[3] < 0) << 3


def legal_actions(state: State, seat: int, now_ms: int | None = None) -> list:
    # `now_ms` (engine contract): no rule of this game depends on time.
    if seat != state.turn:
        return []
    phase = state.phase
    if phase == PLAY:
        hand = state.hands[seat]
        trick = state.trick
        if not trick:  # KT-4: a trick cannot start with a Joker
            return [PLAY_ACTIONS[c] for c in hand if c < JOKER]
        led = SUIT_OF[trick[0]]
        plays = [PLAY_ACTIONS[c] for c in hand if SUIT_OF[c] == led]
        if not plays:
            plays = [PLAY_ACTIONS[c] for c in hand if c < JOKER]
        # KT-4: the Joker may be played even when following is possible; one per trick.
        if hand[-1] >= JOKER and max(trick) < JOKER:
            return plays + JOKER_COMBOS[_free_mask(state.placed)]
        return plays
    if phase == DIRECT:
        return DIRECT_ACTIONS
    if phase == DEAL:
        return DEAL_ACTIONS
    return []


# --- decide --------------------------------------------------------------------


def decide(state: State, seat: int, action, ctx: Ctx) -> list:
    if state.phase == OVER:
        raise RuleError("game_over", "the game is over")
    if seat != state.turn:
        raise RuleError("not_your_turn", f"it is seat {state.turn}'s turn, not seat {seat}'s")
    handler = _DECIDE.get(type(action))
    if handler is None:
        raise RuleError("bad_action", f"not a Kabuki Tricks action: {action!r}")
    return handler(state, seat, action)


def _deal(state: State, seat: int, action: Deal) -> list:
    if state.phase != DEAL:
        raise RuleError("wrong_phase", "the cards are already dealt")
    n = state.players
    deck = state.decks[state.round - 1]
    hands = tuple(deck[HAND_SIZE * s : HAND_SIZE * (s + 1)] for s in range(n))
    dummy = deck[HAND_SIZE * n : HAND_SIZE * (n + 1)] if n == 2 else ()
    used = HAND_SIZE * (n + (1 if n == 2 else 0))
    return [Dealt(round=state.round, dealer=state.dealer, hands=hands, dummy=dummy, discard=tuple(sorted(deck[used:])))]


def _direct(state: State, seat: int, action: Direct) -> list:
    if state.phase != DIRECT:
        raise RuleError("wrong_phase", "only the dealer directs, once, right after the deal")
    order = action.order
    if (
        type(action.high) is not bool
        or not isinstance(order, (tuple, list))
        or sorted(map(str, order)) != sorted(SUITS)
    ):
        raise RuleError("bad_action", "direct needs high (true/false) and the four actors in an order")
    directed = Directed(seat=seat, high=action.high, order=tuple(order))
    if state.players == 2:  # KT-13: the dummy leads every trick with its top card
        return settle(evolve, automatic, state, [directed])
    return [directed]


def _play(state: State, seat: int, action: Play) -> list:
    if state.phase != PLAY:
        raise RuleError("wrong_phase", "cards are played only during the tricks")
    card = action.card
    hand = state.hands[seat]
    if type(card) is not int or card not in hand:
        raise RuleError("illegal_card", f"{card!r} is not a card in your hand")
    if card >= JOKER:
        raise RuleError("illegal_card", "play the Joker with a joker action (it places a Player card)")
    trick = state.trick
    if trick:
        led = SUIT_OF[trick[0]]
        if SUIT_OF[card] != led:
            for c in hand:
                if SUIT_OF[c] == led:
                    raise RuleError("must_follow_suit", f"you must follow {SUITS[led]}")
    return _after_card(state, Played(seat=seat, card=card))


def _joker(state: State, seat: int, action: Joker) -> list:
    if state.phase != PLAY:
        raise RuleError("wrong_phase", "the Joker is played only during the tricks")
    hand = state.hands[seat]
    trick = state.trick
    if hand[-1] < JOKER:
        raise RuleError("illegal_card", "you have already played your Joker this round")
    if not trick:
        raise RuleError("joker_cannot_lead", "a trick cannot start with a Joker (KT-4)")
    if max(trick) >= JOKER:
        raise RuleError("one_joker_per_trick", "only one Joker can be played per trick (KT-4)")
    placed = state.placed
    actor, prediction = action.actor, action.prediction
    if -1 in placed:  # mandatory placement
        suit = SUIT_INDEX.get(actor) if type(actor) is str else None
        if suit is None:
            raise RuleError("placement_required", "place your Player card beside a free actor")
        if placed[suit] >= 0:
            raise RuleError("actor_taken", f"a Player card already sits beside the {actor} actor")
        if type(prediction) is not int or prediction not in (1, 2, 3):
            raise RuleError("bad_prediction", "a prediction is 1, 2 or 3 tricks (KT-1)")
    elif actor is not None or prediction is not None:  # KT-7
        raise RuleError("actor_taken", "every actor already has a Player card: place nothing (KT-7)")
    # KT-6: the adjustment itself is applied by `evolve` (and so counts for
    # the trick's end, KT-5); here it is only checked.
    adjust = action.adjust
    if adjust is not None and not (
        (adjust.flip is True and adjust.swap is None)
        or (adjust.flip is False and type(adjust.swap) is int and 0 <= adjust.swap <= 2)
    ):
        raise RuleError("bad_adjust", "adjust is null, {flip: true} or {swap: 0..2} (KT-6)")
    return _after_card(state, JokerPlayed(seat=seat, actor=actor, prediction=prediction, adjust=adjust))


def _after_card(state: State, event) -> list:
    if len(state.trick) + 1 < state.trick_size:
        return [event]  # not the trick's last card: nothing follows by itself
    return settle(evolve, automatic, state, [event])


# --- what follows by itself ------------------------------------------------------
# The contract's one mechanism for automatic transitions: a full trick is won (KT-5 with the
# configuration at its end), the dummy leads (KT-13), the 7th trick ends the
# round (Phase 4) and the last round the game (KT-12). `decide` ends with
# `settle`, which applies these until a seat must act.


def automatic(state: State) -> list:
    phase = state.phase
    if phase == PLAY:
        if len(state.trick) == state.trick_size:
            return [_trick_won(state)]
        if state.trick_no > TRICKS_PER_ROUND:
            return [score_round(state)]
        if state.turn == DUMMY and state.players == 2:  # KT-13: its top card leads
            return [Played(seat=DUMMY, card=state.hands[DUMMY][0])]
        return []
    if phase == DEAL and len(state.history) == state.rounds:
        return [_game_ended(state)]
    return []


def _trick_won(state: State) -> TrickWon:
    # KT-5: the configuration at the end of the trick (a Joker in it may have
    # changed it) decides, and the state after the last card holds that one.
    cards, seats = state.trick, state.trick_seats
    strength = STRENGTH[state.high, state.order]
    best = 0
    for i in range(1, len(cards)):
        if strength[cards[i]] > strength[cards[best]]:
            best = i
    winner = seats[best]
    nxt = winner
    if state.players == 2 and winner == DUMMY:
        # KT-13: after a dummy win the human whose card ranked higher plays second.
        if state.options.second_after_dummy_win == "same_order":
            nxt = state.second
        else:
            nxt = seats[1] if strength[cards[1]] > strength[cards[2]] else seats[2]
    return TrickWon(seat=winner, cards=cards, next=nxt)


def _game_ended(state: State) -> GameEnded:
    """After the last round's scoring: KT-12 breaks ties by the final cards."""
    places = places_from(state.scores, final_strengths(state))
    return GameEnded(
        seed=state.seed,
        scores=state.scores,
        places=tuple(places),
        winners=tuple(i for i, p in enumerate(places) if p == 1),
        salt=state.salt,
    )


# --- scoring -------------------------------------------------------------------


def score_round(s: State) -> RoundEnded:
    """Phase 4 on the state after the 7th trick (its configuration is the end one)."""
    n = s.players
    opts = s.options
    finals = tuple(s.hands[seat][0] for seat in range(n))
    tricks = s.tricks_won[:n]
    actor_of = [-1] * n
    for suit, seat in enumerate(s.placed):
        if seat >= 0:
            actor_of[seat] = suit
    prediction_points = [0] * n
    # KT-8: group every placed Player card by value, right or wrong; the one beside
    # the strongest actor (end order) scores 2 if correct, the others 1 if correct.
    for value in (1, 2, 3):
        group = [seat for seat in range(n) if s.predictions[seat] == value]
        if not group:
            continue
        best = min(group, key=lambda seat: s.order.index(actor_of[seat]))
        for seat in group:
            if tricks[seat] == value:
                prediction_points[seat] = 2 if seat == best else 1
    toxic_number = None
    if opts.toxic_number:
        numbers = [NUMBER_OF[c] for c in finals if c < JOKER]
        if numbers:
            toxic_number = max(numbers) if s.high else min(numbers)
    lines = []
    for seat in range(n):
        final = finals[seat]
        predicted = s.predictions[seat]
        suit = 1 if predicted and final < JOKER and SUIT_OF[final] == actor_of[seat] else 0  # KT-9
        joker = 5 if final >= JOKER and tricks[seat] == 0 else 0  # KT-3
        failed = -1 if opts.failed_predictions and predicted and predicted != tricks[seat] else 0
        toxic = -1 if toxic_number is not None and final < JOKER and NUMBER_OF[final] == toxic_number else 0
        total = tricks[seat] + prediction_points[seat] + suit + joker + failed + toxic
        lines.append(ScoreLine(tricks[seat], prediction_points[seat], suit, joker, failed, toxic, total))
    return RoundEnded(
        round=s.round,
        high=s.high,
        order=tuple(SUITS[i] for i in s.order),
        finals=finals,
        predictions=tuple(p or None for p in s.predictions),
        actors=tuple(SUITS[a] if a >= 0 else None for a in actor_of),
        tricks=s.tricks_won,
        lines=tuple(lines),
        discard=s.discard,
        won=s.won,
    )


def final_strengths(s: State) -> list[int]:
    """KT-12: the last round's final cards, ranked as in KT-5 with its end
    configuration; every Joker is equally weakest (-1)."""
    strength = STRENGTH[s.high, s.order]
    return [strength[s.hands[seat][0]] for seat in range(s.players)]


def is_over(state: State) -> bool:
    return state.phase == OVER


def result(state: State) -> Result:
    scores = list(state.scores)
    places = places_from(scores, final_strengths(state))
    return Result(scores=[float(x) for x in scores], places=places, winners=[i for i, p in enumerate(places) if p == 1])


# Keyed by the action's type; each handler takes its own type, which a table cannot
# tie to its key, hence `Any`.
_DECIDE: dict[type[Action], Callable[[State, int, Any], list]] = {
    Play: _play,
    Joker: _joker,
    Direct: _direct,
    Deal: _deal,
}


def describe(state: State) -> dict:
    return {"rounds": state.rounds}
