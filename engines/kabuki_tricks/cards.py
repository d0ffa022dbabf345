"""Card identities and precomputed strength tables.

Every physical card is an int (cheap to compare, hash and copy):
  suit card   10 * suit + (number - 1)   0..39   (green 0-9, purple 10-19, orange 20-29, blue 30-39)
  Joker       40 + seat                  40..44  (each player's own Joker)
  Player card 100 + 10 * seat + value    e.g. 112 = seat 1's "2" (KT-1: values 1, 2, 3)
Suits are indexes into SUITS internally and names in actions, events and views.
"""

from __future__ import annotations

from itertools import permutations
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .actions import Suit

SUITS: tuple[Suit, ...] = ("green", "purple", "orange", "blue")
SUIT_INDEX: dict[str, int] = {name: i for i, name in enumerate(SUITS)}
JOKER = 40
PLAYER_CARD = 100
PREDICTIONS = (1, 2, 3)  # KT-1: no one can predict 0
TRICKS_PER_ROUND = 7
HAND_SIZE = 7  # suit cards; the Joker makes eight

# Highest number per player count (setup step 5; docs/rules/kabuki-tricks.md, components).
TOP_NUMBER = {2: 7, 3: 7, 4: 8, 5: 10}

SUIT_OF = tuple(c // 10 for c in range(40)) + (-1,) * 5
NUMBER_OF = tuple(c % 10 + 1 for c in range(40)) + (0,) * 5


def card_id(suit: int | str, number: int) -> int:
    if isinstance(suit, str):
        suit = SUIT_INDEX[suit]
    return 10 * suit + number - 1


def card_name(card: int) -> str:
    if card >= PLAYER_CARD:
        return f"Player card {card % 10}"
    if card >= JOKER:
        return "the Joker"
    return f"{SUITS[SUIT_OF[card]]} {NUMBER_OF[card]}"


def is_joker(card: int) -> bool:
    return JOKER <= card < PLAYER_CARD


def player_card(seat: int, value: int) -> int:
    return PLAYER_CARD + 10 * seat + value


def _deck(players: int) -> tuple[int, ...]:
    top = TOP_NUMBER[players]
    return tuple(card_id(s, n) for s in range(4) for n in range(1, top + 1))


# Built once: the heuristic asks for the deck at every play (the expert's
# playouts call it hundreds of thousands of times a minute).
_DECKS = {players: _deck(players) for players in TOP_NUMBER}


def deck_for(players: int) -> tuple[int, ...]:
    return _DECKS[players]


def _strength(high: bool, order: tuple[int, ...]) -> tuple[int, ...]:
    """KT-5: the actor order ranks suits first (leftmost strongest, led suit has
    no priority), then High/Low ranks numbers; a Joker (-1) never wins."""
    table = []
    for card in range(40):
        suit_rank = 3 - order.index(SUIT_OF[card])
        number = NUMBER_OF[card]
        table.append(suit_rank * 16 + (number if high else 11 - number))
    return tuple(table) + (-1,) * 5


ORDERS = tuple(permutations(range(4)))
STRENGTH = {(high, order): _strength(high, order) for high in (True, False) for order in ORDERS}


def trick_winner(cards: tuple[int, ...], seats: tuple[int, ...], high: bool, order: tuple[int, ...]) -> int:
    """The seat whose card is strongest (KT-5)."""
    strength = STRENGTH[high, order]
    best = max(range(len(cards)), key=lambda i: strength[cards[i]])
    return seats[best]
