"""Events the service itself writes into a game's stream, beside the
engine's: facts about the table rather than the rules (who sat where when the
game ended, a move played for a seat whose time ran out, a seat handed to a
house bot). Tags are stable and public; the engine never sees these events."""

from __future__ import annotations

import msgspec

from engines.core import Result


class TableEvent(msgspec.Struct, frozen=True, tag_field="type"):
    pass


class SeatRecord(msgspec.Struct, frozen=True):
    seat: int
    kind: str  # 'human', 'agent', 'bot'
    player_id: str | None = None
    bot: str | None = None
    name: str | None = None


class GameFinished(TableEvent, frozen=True, tag="hm.game_finished"):
    """Written in the same commit as the engine's last events: what the
    ratings projection and tournaments read, whatever the game."""

    game: str
    ranked: bool
    seats: list[SeatRecord]
    result: Result
    tournament_id: str | None = None
    # Seats a house bot took over after their strikes: ranked last at the
    # table whatever the bot then scored (as Board Game Arena counts a player
    # who leaves), the others placed among themselves in `table_places`.
    forfeited: list[int] = []
    table_places: list[int] | None = None
    # The server's seed, revealed with the engine's own seed and salt at the
    # end, when the deal mixed in client seeds (DealSeeded): anyone can then
    # re-derive the deal's seed (engines.core.deal_seed).
    server_seed: int | None = None

    @property
    def ranking(self) -> list[int]:
        """Places for tournament points and ratings: forfeits last."""
        return self.table_places if self.table_places is not None else self.result.places


def places_after_forfeits(places: list[int], forfeited: list[int]) -> list[int]:
    """The seats that played to the end keep their order among themselves
    (ties shared as the game had them); every forfeited seat shares the last place."""
    gone = set(forfeited)
    kept = [p for s, p in enumerate(places) if s not in gone]
    last = len(kept) + 1
    return [last if s in gone else 1 + sum(1 for q in kept if q < p) for s, p in enumerate(places)]


class MovePlayedForSeat(TableEvent, frozen=True, tag="hm.move_played_for_seat"):
    """The service played the default move for a seat: its deadline passed
    (`timeout`) or its agent failed (`invalid_response`, `illegal_action`,
    `unreachable`). `strikes` counts such moves in a row for the seat."""

    seat: int
    reason: str
    strikes: int
    detail: str = ""


class DealSeeded(TableEvent, frozen=True, tag="hm.deal_seeded"):
    """In the deal's commit, after the engine's start events: the server's
    commitment to its seed, `sha256("<server seed>:<salt>")`, published when
    the table opened and before any client seed was taken, and every seat's
    client seed in seat order ("" for a seat that sent none). The engine was
    dealt from `engines.core.deal_seed(server seed, client_seeds)`."""

    commitment: str
    client_seeds: list[str]


class SeatHandedToBot(TableEvent, frozen=True, tag="hm.seat_handed_to_bot"):
    """After too many strikes in a row a house bot plays the seat to the end."""

    seat: int
    bot: str
    reason: str


TABLE_EVENTS = (GameFinished, MovePlayedForSeat, SeatHandedToBot, DealSeeded)
