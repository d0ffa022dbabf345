"""Table options (docs/rules/tezuma-trick.md: TT-1, TT-2, TT-3)."""

from __future__ import annotations

import msgspec

from engines.core import OptionsError
from engines.tezuma_trick.cards import DEFAULT_BID_CARDS, TRICKS_PER_HAND


class BidCard(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A Bid card: the trick counts it accepts and the points it then scores."""

    tricks: tuple[int, ...]
    points: int


DEFAULT_BIDS = tuple(BidCard(tricks=tricks, points=points) for tricks, points in DEFAULT_BID_CARDS)
FACE_UP = 5  # Bid and Ability cards dealt face up (4 with 3 players, TT-3)
MAX_BID_CARDS = 32
# A hand's score stays a small number a page can show and a rating can use;
# the default set's best card is worth 7 (TT-1).
MAX_BID_POINTS = 99


class Options(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    # TT-1: the set of Bid cards the face-up ones are drawn from.
    bid_cards: tuple[BidCard, ...] = DEFAULT_BIDS
    # TT-2: lose a pain-suit card's number instead of 1 per card.
    pain_face_value: bool = False
    # TT-3: deal new face-up Bid and Ability cards for every hand.
    redeal_each_hand: bool = False

    def validate(self) -> None:
        if len(self.bid_cards) < FACE_UP:
            raise OptionsError(
                "bad_option",
                f"bid_cards needs at least {FACE_UP} Bid cards (5 are dealt face up), got {len(self.bid_cards)}",
            )
        if len(self.bid_cards) > MAX_BID_CARDS:
            raise OptionsError("bad_option", f"bid_cards holds at most {MAX_BID_CARDS} Bid cards")
        for number, card in enumerate(self.bid_cards, 1):
            if not card.tricks:
                raise OptionsError("bad_option", f"Bid card {number} lists no trick count")
            if len(set(card.tricks)) != len(card.tricks):
                raise OptionsError("bad_option", f"Bid card {number} lists a trick count twice")
            if any(not 0 <= count <= TRICKS_PER_HAND for count in card.tricks):
                raise OptionsError(
                    "bad_option", f"Bid card {number}: trick counts must be between 0 and {TRICKS_PER_HAND}"
                )
            if not 0 <= card.points <= MAX_BID_POINTS:
                raise OptionsError("bad_option", f"Bid card {number}: points must be between 0 and {MAX_BID_POINTS}")

    def bid_points(self, bid: int, tricks: int) -> int:
        card = self.bid_cards[bid]
        return card.points if tricks in card.tricks else 0
