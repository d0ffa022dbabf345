"""A lean, mutable playout state for the expert's search.

The service path folds frozen states from events and validates every action;
the search only needs to play a sampled world (engines/kabuki_tricks/expert.py
fills in every hidden card) to the end of the round, many times a move. Here
the same rules run on plain lists and ints, built from the engine's folded
`State`, with no events, views or validation. tests/engines/test_lean_kabuki_tricks.py
plays this and the engine side by side, move by move.

A move is an int:
  0..39     play that suit card
  100..199  the Joker: 100 + 20 * (actor + 1) + 5 * prediction + adjust, where
            actor is a suit index or -1 (KT-7), prediction 1..3 or 0, adjust
            0 none, 1 flip, 2 + i swap the actors at positions i, i + 1 (KT-6)
  200..247  direct: 200 + the configuration index (CONFIGS, DIRECT_ACTIONS' order)
  300       deal
Legal moves come in the engine's `legal_actions` order, so that a bot picking
by position picks alike on both."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .cards import JOKER, NUMBER_OF, ORDERS, STRENGTH, SUIT_OF, TRICKS_PER_ROUND, deck_for
from .state import DEAL, DIRECT, OVER, PLAY

if TYPE_CHECKING:
    from random import Random

    from .options import Options
    from .state import State

HAND = 7
DUMMY = 2  # KT-13: the 2-player variant's third hand
JOKER_MOVE, DIRECT_MOVE, DEAL_MOVE = 100, 200, 300

# The 48 configurations (High/Low x actor order) in DIRECT_ACTIONS' order (KT-10).
CONFIGS = tuple((high, order) for high in (True, False) for order in ORDERS)
CONFIG_INDEX = {config: k for k, config in enumerate(CONFIGS)}
STRENGTHS = tuple(STRENGTH[config] for config in CONFIGS)
POSITION = tuple(tuple(order.index(suit) for suit in range(4)) for _high, order in CONFIGS)
FLIPPED = tuple(CONFIG_INDEX[not high, order] for high, order in CONFIGS)


def _swapped(order: tuple[int, ...], i: int) -> tuple[int, ...]:
    return order[:i] + (order[i + 1], order[i]) + order[i + 2 :]


SWAPPED = tuple(tuple(CONFIG_INDEX[high, _swapped(order, i)] for i in range(3)) for high, order in CONFIGS)
DIRECT_MOVES = tuple(DIRECT_MOVE + k for k in range(len(CONFIGS)))
DEAL_MOVES = (DEAL_MOVE,)


def joker_move(actor: int, prediction: int, adjust: int) -> int:
    return JOKER_MOVE + 20 * (actor + 1) + 5 * prediction + adjust


# Per mask of free actors (bit per suit), the Joker moves in JOKER_COMBOS' order:
# actor x prediction x adjustment (KT-6), or adjustment only when none is free (KT-7).
JOKER_MOVES = tuple(
    tuple(joker_move(a, p, adj) for a in range(4) if mask >> a & 1 for p in (1, 2, 3) for adj in range(5))
    if mask
    else tuple(joker_move(-1, 0, adj) for adj in range(5))
    for mask in range(16)
)


class Lean:
    """One game's state; with 2 players index 2 of the per-hand lists is the dummy."""

    __slots__ = (
        "players",
        "trick_size",
        "rounds",
        "round",
        "dealer",
        "phase",
        "turn",
        "config",
        "hands",
        "trick",
        "trick_seats",
        "trick_no",
        "second",
        "tricks_won",
        "placed",
        "free",
        "predictions",
        "scores",
        "decks",
        "failed_predictions",
        "toxic_number",
        "same_order",
    )

    players: int
    trick_size: int  # the players, plus the dummy with 2 (KT-13)
    rounds: int
    round: int
    dealer: int
    phase: int
    turn: int
    config: int  # an index into CONFIGS
    hands: list[list[int]]
    trick: list[int]
    trick_seats: list[int]
    trick_no: int
    second: int
    tricks_won: list[int]
    placed: list[int]  # per suit: the seat whose Player card sits there, or -1
    free: int  # a bit per suit whose Player card is not placed yet
    predictions: list[int]
    scores: list[int]
    decks: Sequence[Sequence[int]]  # the folded state's tuples or a fresh game's lists
    failed_predictions: bool
    toxic_number: bool
    same_order: bool


def _set_options(lean: Lean, options: Options) -> None:
    lean.failed_predictions = options.failed_predictions  # KT-14
    lean.toxic_number = options.toxic_number
    lean.same_order = options.second_after_dummy_win == "same_order"  # KT-13


def from_state(s: State) -> Lean:
    """A mutable copy of the engine's folded `State`."""
    lean = Lean.__new__(Lean)
    lean.players, lean.trick_size, lean.rounds = s.players, s.trick_size, s.rounds
    lean.round, lean.dealer, lean.phase, lean.turn = s.round, s.dealer, s.phase, s.turn
    lean.config = CONFIG_INDEX[s.high, s.order]
    lean.hands = [list(h) for h in s.hands]
    lean.trick, lean.trick_seats = list(s.trick), list(s.trick_seats)
    lean.trick_no, lean.second = s.trick_no, s.second
    lean.tricks_won, lean.placed = list(s.tricks_won), list(s.placed)
    lean.free = sum(1 << suit for suit in range(4) if s.placed[suit] < 0)
    lean.predictions, lean.scores = list(s.predictions), list(s.scores)
    lean.decks = s.decks
    _set_options(lean, s.options)
    return lean


def new_game(players: int, options: Options, rng: Random) -> Lean:
    """A fresh game dealt with `rng` (`rules.start`'s draws, made with `rng`)."""
    lean = Lean.__new__(Lean)
    rounds = 4 if players == 2 else players  # KT-13
    decks = []
    for _ in range(rounds):
        deck = list(deck_for(players))
        rng.shuffle(deck)
        decks.append(deck)
    order = [0, 1, 2, 3]
    rng.shuffle(order)
    lean.players, lean.trick_size, lean.rounds = players, max(players, 3), rounds
    lean.dealer = lean.turn = lean.second = rng.randrange(players)
    lean.round, lean.phase, lean.trick_no = 1, DEAL, 1
    lean.config = CONFIG_INDEX[rng.random() < 0.5, tuple(order)]  # KT-10: random side and order
    holders = players + (players == 2)
    lean.hands = [[JOKER + seat] for seat in range(players)] + ([[]] if players == 2 else [])
    lean.trick, lean.trick_seats = [], []
    lean.tricks_won, lean.placed, lean.free = [0] * holders, [-1] * 4, 15
    lean.predictions, lean.scores = [0] * players, [0] * players
    lean.decks = decks
    _set_options(lean, options)
    return lean


def legal(lean: Lean) -> list[int] | tuple[int, ...]:
    """The moves of the seat to act (`lean.turn`), in `legal_actions`' order."""
    phase = lean.phase
    if phase == PLAY:
        hand = lean.hands[lean.turn]
        trick = lean.trick
        if not trick:  # KT-4: a trick cannot start with a Joker
            return [c for c in hand if c < JOKER]
        led = SUIT_OF[trick[0]]
        plays = [c for c in hand if SUIT_OF[c] == led]
        if not plays:
            plays = [c for c in hand if c < JOKER]
        # KT-4: the Joker may be played even when following is possible; one per trick.
        if hand[-1] >= JOKER and max(trick) < JOKER:
            return plays + list(JOKER_MOVES[lean.free])
        return plays
    if phase == DIRECT:
        return DIRECT_MOVES
    if phase == DEAL:
        return DEAL_MOVES
    return ()


def apply(lean: Lean, move: int) -> None:
    """The seat to act makes `move` (which must be legal)."""
    seat = lean.turn
    if move < JOKER_MOVE:
        lean.hands[seat].remove(move)
        card = move
    elif move < DIRECT_MOVE:
        lean.hands[seat].pop()  # the Joker, always last in a hand
        card = JOKER + seat
        code = move - JOKER_MOVE
        actor, adjust = code // 20 - 1, code % 5
        if actor >= 0:  # KT-7: the 5th Joker places nothing
            lean.placed[actor] = seat
            lean.free &= ~(1 << actor)
            lean.predictions[seat] = code % 20 // 5
        if adjust == 1:  # KT-6; Player cards sit by suit, so they move with their actor
            lean.config = FLIPPED[lean.config]
        elif adjust:
            lean.config = SWAPPED[lean.config][adjust - 2]
    elif move < DEAL_MOVE:
        lean.config = move - DIRECT_MOVE
        lean.phase = PLAY
        if lean.players == 2:  # KT-13: the dummy leads every trick with its top card
            _dummy_leads(lean)
        return
    else:
        _deal(lean)
        return
    trick = lean.trick
    trick.append(card)
    lean.trick_seats.append(seat)
    if len(trick) == lean.trick_size:
        _finish_trick(lean)
    elif lean.players == 2:
        lean.turn = lean.second if seat == DUMMY else 1 - seat
    else:
        lean.turn = seat + 1 if seat + 1 < lean.players else 0


def _dummy_leads(lean: Lean) -> None:
    lean.trick.append(lean.hands[DUMMY].pop(0))
    lean.trick_seats.append(DUMMY)
    lean.turn = lean.second


def _deal(lean: Lean) -> None:
    n = lean.players
    deck = lean.decks[lean.round - 1]
    hands = [sorted(deck[HAND * s : HAND * (s + 1)]) + [JOKER + s] for s in range(n)]
    if n == 2:
        hands.append(list(deck[HAND * 2 : HAND * 3]))  # the dummy pile, in dealt order
    lean.hands = hands
    lean.phase, lean.turn, lean.second = DIRECT, lean.dealer, lean.dealer
    lean.trick, lean.trick_seats, lean.trick_no = [], [], 1
    lean.tricks_won = [0] * len(hands)
    lean.placed, lean.free, lean.predictions = [-1] * 4, 15, [0] * n


def _finish_trick(lean: Lean) -> None:
    # KT-5: the configuration at the end of the trick decides it; a Joker never wins.
    strength = STRENGTHS[lean.config]
    cards, seats = lean.trick, lean.trick_seats
    best = 0
    for i in range(1, len(cards)):
        if strength[cards[i]] > strength[cards[best]]:
            best = i
    winner = nxt = seats[best]
    if winner == DUMMY and lean.players == 2:
        # KT-13: after a dummy win the human whose card ranked higher plays second.
        nxt = lean.second if lean.same_order else (seats[1] if strength[cards[1]] > strength[cards[2]] else seats[2])
    lean.tricks_won[winner] += 1
    lean.trick, lean.trick_seats = [], []
    lean.second = lean.turn = nxt
    lean.trick_no += 1
    if lean.trick_no > TRICKS_PER_ROUND:
        _end_round(lean)
    elif lean.players == 2:
        _dummy_leads(lean)


def round_points(lean: Lean) -> list[int]:
    """Phase 4 (`rules.score_round`) on the state after the 7th trick."""
    n = lean.players
    finals = [lean.hands[seat][0] for seat in range(n)]
    tricks, predictions = lean.tricks_won, lean.predictions
    actor_of = [-1] * n
    for suit, seat in enumerate(lean.placed):
        if seat >= 0:
            actor_of[seat] = suit
    position = POSITION[lean.config]
    # KT-8: by value, right or wrong; beside the strongest actor 2 if right, the others 1.
    best_of: dict[int, int] = {}  # prediction value -> the seat with the strongest actor
    for seat in range(n):
        value = predictions[seat]
        if value:
            other = best_of.get(value)
            if other is None or position[actor_of[seat]] < position[actor_of[other]]:
                best_of[value] = seat
    toxic = None
    if lean.toxic_number:  # KT-14: the strongest number by High/Low, Jokers exempt
        numbers = [NUMBER_OF[c] for c in finals if c < JOKER]
        if numbers:
            toxic = max(numbers) if CONFIGS[lean.config][0] else min(numbers)
    points = []
    for seat in range(n):
        final, won, predicted = finals[seat], tricks[seat], predictions[seat]
        total = won
        if predicted:
            if predicted == won:
                total += 2 if best_of[predicted] == seat else 1
            elif lean.failed_predictions:  # KT-14
                total -= 1
            if final < JOKER and SUIT_OF[final] == actor_of[seat]:  # KT-9
                total += 1
        if final >= JOKER:
            if not won:  # KT-3
                total += 5
        elif toxic is not None and NUMBER_OF[final] == toxic:
            total -= 1
        points.append(total)
    return points


def _end_round(lean: Lean) -> None:
    lean.scores = [a + b for a, b in zip(lean.scores, round_points(lean), strict=True)]
    lean.phase = DEAL
    if lean.round == lean.rounds:
        lean.phase = OVER
    else:
        lean.round += 1
        lean.dealer = (lean.dealer + 1) % lean.players
    lean.turn = lean.dealer


def random_game(players: int, options: Options, rng: Random) -> list[int]:
    """A whole game of uniformly random legal moves from a fresh deal: the
    RandomBot's policy (`legal[int(rng.random() * len(legal))]`)."""
    lean = new_game(players, options, rng)
    rand = rng.random
    while lean.phase != OVER:
        moves = legal(lean)
        apply(lean, moves[int(rand() * len(moves))])
    return lean.scores
