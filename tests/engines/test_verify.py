"""Provably fair deals: the commitment in the first event, the
salt in the last, and `engines.verify`'s three checks, for every game."""

from __future__ import annotations

import hashlib

import msgspec
import pytest
from msgspec.structs import replace

from engines.core import Chance, commitment, deal_seed, valid_client_seed
from engines.playout import Playout
from engines.registry import available, get_game
from engines.verify import ExportError, Seeding, read_export, verify_events, verify_export

SALT = "5a" * 32
GAMES = [get_game(name) for name in available()]


def _tag(event) -> str:
    return type(event).__struct_config__.tag


def finished_log(game, seed: int = 4, salt: str = SALT) -> list:
    players = game.min_players + 1
    bots = ["heuristic"] + ["random"] * (players - 1)
    playout = Playout(game, players, game.make_options({}), seed, bots, chance=Chance(seed, salt=salt))
    playout.run()
    return list(playout.log)


def with_opening(log: list, **fields) -> list:
    """The log with the seed/salt changed in the start and the final event
    alike (what a forger would do: both copies agree)."""
    return [replace(log[0], **fields), *log[1:-1], replace(log[-1], **fields)]


def test_commitment_is_sha256_of_decimal_seed_colon_salt() -> None:
    # The documented byte encoding (docs/fairness.md).
    assert commitment(12345, "ab" * 32) == hashlib.sha256(b"12345:" + b"ab" * 32).hexdigest()
    assert Chance(12345, salt="ab" * 32).commitment == commitment(12345, "ab" * 32)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_a_finished_game_verifies(game) -> None:
    log = finished_log(game)
    first, final = log[0], log[-1]
    assert first.commitment == commitment(final.seed, SALT)
    assert final.salt == SALT
    verdict = verify_events(game, log)
    assert (verdict.commitment_ok, verdict.deals_ok, verdict.replay_ok) == (True, True, True), verdict.problems


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_the_salt_never_changes_the_deal(game) -> None:
    # Duplicate tournaments give one deal seed to several tables, each with
    # its own salt: the deals must stay identical.
    players = game.min_players
    one = game.start(players, game.make_options({}), Chance(9, salt="00" * 32))
    other = game.start(players, game.make_options({}), Chance(9, salt="ff" * 32))
    assert one[0].commitment != other[0].commitment
    assert [replace(e, commitment="", salt=None) if hasattr(e, "salt") else e for e in one] == [
        replace(e, commitment="", salt=None) if hasattr(e, "salt") else e for e in other
    ]


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_the_commitment_is_public_and_the_seed_and_salt_are_not(game) -> None:
    log = finished_log(game)
    for viewer in [None, *range(log[0].players)]:
        seen = game.redact(log[0], viewer)
        assert seen.commitment == log[0].commitment
        assert seen.seed is None and seen.salt is None


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_a_changed_salt_fails_the_commitment_only(game) -> None:
    verdict = verify_events(game, with_opening(finished_log(game), salt="00" * 32))
    assert (verdict.commitment_ok, verdict.deals_ok, verdict.replay_ok) == (False, True, True)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_a_changed_seed_fails_the_commitment_and_the_deals(game) -> None:
    log = finished_log(game)
    verdict = verify_events(game, with_opening(log, seed=log[-1].seed + 1))
    assert (verdict.commitment_ok, verdict.deals_ok, verdict.replay_ok) == (False, False, True)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_a_start_event_naming_another_seed_than_the_final_reveals_fails(game) -> None:
    # The final event's seed and salt open the commitment and re-deal the
    # game, so only the start event's copy is forged: the export then names
    # two seeds, and must not pass.
    log = finished_log(game)
    assert log[0].seed == log[-1].seed
    forged = [replace(log[0], seed=log[-1].seed + 1), *log[1:]]
    verdict = verify_events(game, forged)
    assert not verdict.ok
    assert not verdict.commitment_ok
    assert any(f"names seed {log[-1].seed + 1}" in p for p in verdict.problems), verdict.problems
    salted = [replace(log[0], salt="00" * 32), *log[1:]]
    assert not verify_events(game, salted).commitment_ok


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_a_changed_card_in_a_move_fails_the_replay(game) -> None:
    log = finished_log(game)
    i, event = next((i, e) for i, e in enumerate(log) if i > 5 and _tag(e).endswith(("played", "placed")))
    if hasattr(event, "card"):
        forged = replace(event, card=(event.card + 1) % 40)
    else:  # Tezuma Trick plays carry `cards`
        forged = replace(event, cards=tuple((c + 1) % 48 for c in event.cards))
    verdict = verify_events(game, [*log[:i], forged, *log[i + 1 :]])
    assert verdict.commitment_ok and verdict.deals_ok
    assert not verdict.replay_ok


@pytest.mark.parametrize(
    "game", [g for g in GAMES if g.name in ("kabuki-tricks", "tezuma-trick")], ids=lambda g: g.name
)
def test_a_changed_card_in_a_later_deal_fails_the_deals(game) -> None:
    # Deals after the start (kt.dealt, tt.hand_dealt) are checked against the
    # decks the seed gives; the moves still replay on the engine's own deal.
    log = finished_log(game)
    i = max(i for i, e in enumerate(log) if _tag(e) in game.deal_tags and getattr(e, "hands", None))
    hands = [list(h) for h in log[i].hands]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
    forged = replace(log[i], hands=tuple(tuple(h) for h in hands))
    verdict = verify_events(game, [*log[:i], forged, *log[i + 1 :]])
    assert (verdict.commitment_ok, verdict.deals_ok, verdict.replay_ok) == (True, False, True)


def test_a_changed_card_in_the_first_deal_fails_the_deals() -> None:
    game = get_game("cahoots")  # its deal is a start event
    log = finished_log(game)
    hands = [list(h) for h in log[1].hands]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
    verdict = verify_events(game, [log[0], replace(log[1], hands=tuple(tuple(h) for h in hands)), *log[2:]])
    assert verdict.commitment_ok and not verdict.deals_ok


def test_an_unfinished_log_fails_every_check() -> None:
    game = get_game("kabuki-tricks")
    verdict = verify_events(game, finished_log(game)[:-5])
    assert (verdict.commitment_ok, verdict.deals_ok, verdict.replay_ok) == (False, False, False)


def test_export_lines_round_trip_and_service_events_are_skipped() -> None:
    game = get_game("cahoots")
    log = finished_log(game)
    lines = [{"version": i, "type": _tag(e), "event": e} for i, e in enumerate(log, start=1)]
    lines.insert(3, {"version": 0, "type": "hm.move_played_for_seat", "event": {"type": "hm.move_played_for_seat"}})
    for i, line in enumerate(lines, start=1):
        line["version"] = i
    data = b"\n".join(msgspec.json.encode(line) for line in lines) + b"\n"
    read_game, events = read_export(data)
    assert read_game.name == "cahoots" and events == log
    assert verify_export(data).ok
    with pytest.raises(ExportError):
        read_export(b'{"version": 2, "type": "ch.started", "event": {}}\n')
    with pytest.raises(ExportError):
        read_export(b"not json\n")


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_random_games_of_every_size_verify(game) -> None:
    # The replay must find a legal command for every event of any game the
    # engine can produce (timers and simultaneous Stop calls included).
    for players in range(game.min_players, game.max_players + 1):
        for seed in range(5):
            playout = Playout(
                game, players, game.make_options({}), seed, ["random"] * players, chance=Chance(seed, salt=SALT)
            )
            playout.run()
            verdict = verify_events(game, playout.log)
            assert verdict.ok, (players, seed, verdict.problems)


def test_deal_seed_is_the_documented_hash_of_server_seed_and_client_seeds() -> None:
    # docs/fairness.md, "Client seeds": the JSON array without whitespace.
    digest = hashlib.sha256(b'["4125870123456789","alice: 42","","bob"]').digest()
    assert deal_seed(4125870123456789, ["alice: 42", "", "bob"]) == int.from_bytes(digest[:8], "big") >> 2
    assert deal_seed(1, ['a"b\\']) == int.from_bytes(hashlib.sha256(b'["1","a\\"b\\\\"]').digest()[:8], "big") >> 2
    assert 0 <= deal_seed(1, []) < 2**62
    assert deal_seed(1, ["a", ""]) != deal_seed(1, ["", "a"])  # seat order counts


def test_client_seeds_are_printable_ascii_of_at_most_64_characters() -> None:
    assert valid_client_seed("") and valid_client_seed(" ~" * 32)
    assert not valid_client_seed("x" * 65)
    assert not valid_client_seed("caf\u00e9") and not valid_client_seed("tab\t")


@pytest.mark.parametrize("game", GAMES[:2], ids=lambda g: g.name)
def test_a_deal_mixed_from_client_seeds_verifies_and_another_client_seed_does_not(game) -> None:
    server_seed, seeds = 977, ["mine", ""]
    log = finished_log(game, seed=deal_seed(server_seed, seeds))
    honest = Seeding(commitment(server_seed, SALT), seeds, server_seed)
    assert verify_events(game, log, honest).ok
    for forged in (
        Seeding(honest.commitment, ["someone else's", ""], server_seed),
        Seeding(honest.commitment, seeds, server_seed + 1),
        Seeding(commitment(server_seed + 1, SALT), seeds, server_seed),
        Seeding(honest.commitment, seeds, None),
    ):
        verdict = verify_events(game, log, forged)
        assert not verdict.commitment_ok and verdict.deals_ok and verdict.replay_ok, forged
