"""Cards, suits, abilities and the default Bid cards, as plain data.

A card is an int 0..47: `suit * 12 + rank`, rank 0..8 = the numbers 1..9 and
rank 9..11 = the suit's three Trump cards (no number). Ints keep hands cheap to
copy and compare; `card_name` is for messages only.
"""

from __future__ import annotations

SUITS = ("butterflies", "umbrellas", "fans", "masks")
SUIT_COUNT = 4
RANKS = 12  # 9 numbers + 3 Trumps per suit
TRICKS_PER_HAND = 12

# Per card: suit, number (0 for a Trump) and whether it is a Trump.
SUIT_OF = tuple(card // RANKS for card in range(SUIT_COUNT * RANKS))
NUMBER_OF = tuple(card % RANKS + 1 if card % RANKS < 9 else 0 for card in range(SUIT_COUNT * RANKS))
IS_TRUMP = tuple(card % RANKS >= 9 for card in range(SUIT_COUNT * RANKS))


def deck_for(players: int) -> tuple[int, ...]:
    """The 48-card deck, or 36 with 3 players: without the 1, the 9 and one
    Trump (the third) of each suit, so that 12 cards are dealt to each."""
    if players == 4:
        return tuple(range(SUIT_COUNT * RANKS))
    return tuple(c for c in range(SUIT_COUNT * RANKS) if c % RANKS not in (0, 8, 11))


def card_name(card: int) -> str:
    suit = SUITS[SUIT_OF[card]]
    if IS_TRUMP[card]:
        return f"{suit} Trump #{card % RANKS - 8}"
    return f"{NUMBER_OF[card]} of {suit}"


# --- Ability cards (ids 0..11), their names in actions/events and uses ------
SWORD_WALKING = 0
BUTTERFLY_DANCE = 1
LINKING_RING = 2
CUP_AND_BALL = 3
FIRE_BREATHING = 4
PAPER_EGG = 5
WATER_TRICK = 6
CHICKS = 7
PAIL_DANCE = 8
HORSE_SWALLOWING = 9
MANY_UMBRELLAS = 10
FIVE_COLOR_SAND = 11
NO_ABILITY = -1

ABILITY_NAMES = (
    "sword_walking",
    "butterfly_dance",
    "linking_ring",
    "cup_and_ball",
    "fire_breathing",
    "paper_egg",
    "water_trick",
    "chicks",
    "pail_dance",
    "horse_swallowing",
    "many_umbrellas",
    "five_color_sand",
)
ABILITY_IDS = {name: index for index, name in enumerate(ABILITY_NAMES)}
# The circles on each card: how often it may be used per hand.
ABILITY_USES = (4, 2, 2, 2, 2, 4, 2, 2, 2, 2, 2, 1)
# TT-8: the lead player may not use these.
NOT_FOR_LEADER = frozenset({BUTTERFLY_DANCE, PAPER_EGG, LINKING_RING, CUP_AND_BALL})

# --- Bid cards (TT-1): trick counts -> points ---------------------------------
DEFAULT_BID_CARDS: tuple[tuple[tuple[int, ...], int], ...] = (
    ((0,), 5),
    ((0, 1, 2), 3),
    ((1, 2, 3), 3),
    ((2, 3), 4),
    ((3, 4), 4),
    ((4, 5, 6), 5),  # the card the rulebook shows
    ((5, 6, 7), 6),
    ((7, 8, 9, 10, 11, 12), 7),
)
