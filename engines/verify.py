"""Provably fair deals: check a finished game's log on its own.

One module for `hanamichi verify GAME_EXPORT.ndjson` and
`GET /api/v1/games/{id}/verify`. Pure: it reads bytes it is handed and runs
the engine, with no IO, clock or randomness. Three independent checks:

- commitment_ok: the first event's public `commitment` is
  `core.commitment(seed, salt)` of the seed and salt the final event reveals,
  so the seed was fixed before the first card was dealt;
- deals_ok: re-running the game's `start` from the revealed seed gives the
  logged start events (every round's deck is drawn there), and every later
  deal event is the one the engine deals from those decks;
- replay_ok: every other event is what the engine decides for a legal
  command of a seat that could act (or for a due timer) in the state folded
  so far, and the log ends with the game over.

The export holds events, not commands, so the replay searches each state's
legal actions for the one whose events are the next ones in the log. The
seed, salt and commitment fields are left out of the deal and replay
comparisons: they are the first check's business, so a forged seed fails
the commitment and the deals, not the replay. Service events (`hm.*`) are
skipped: they never change the engine's state."""

from __future__ import annotations

import typing
from collections.abc import Sequence
from typing import Any

import msgspec

from engines import chain
from engines.core import Chance, Ctx, Game, OptionsError, RuleError, commitment, deal_seed
from engines.registry import available, get_game

_OPENING = ("seed", "salt", "commitment")  # compared by the commitment check only


class Verdict(msgspec.Struct):
    commitment_ok: bool
    deals_ok: bool
    replay_ok: bool
    game: str | None = None
    problems: list[str] = []  # why a check failed, for people
    # The log's hash chain (engines/chain.py): "ok", "failed", or "absent"
    # for a game stored before the log was chained (not a failure).
    chain: str = "absent"
    receipts_ok: bool | None = None  # None: no receipts given

    @property
    def ok(self) -> bool:
        checks = self.commitment_ok and self.deals_ok and self.replay_ok
        return checks and self.chain != "failed" and self.receipts_ok is not False


class Seeding(msgspec.Struct, frozen=True):
    """How a deal's seed was made when the seats added client seeds: the
    server's commitment and the client seeds (`hm.deal_seeded`) and the
    server's seed the end revealed (`hm.game_finished`)."""

    commitment: str
    client_seeds: list[str]
    server_seed: int | None = None


def read_seeding(data: bytes) -> Seeding | None:
    """The export's client-seed records (service events), if its deal mixed
    client seeds in; None for a game dealt from the server's seed alone."""
    seeded: dict | None = None
    server_seed = None
    for line in data.splitlines():
        if b'"hm.deal_seeded"' not in line and b'"hm.game_finished"' not in line:
            continue
        try:
            record = msgspec.json.decode(line)
            tag, event = record["type"], record["event"]
        except (msgspec.DecodeError, KeyError, TypeError):
            continue  # read_export names the bad line
        if tag == "hm.deal_seeded" and isinstance(event, dict):
            seeded = event
        elif tag == "hm.game_finished" and isinstance(event, dict):
            server_seed = event.get("server_seed")
    if seeded is None:
        return None
    try:
        return msgspec.convert({**seeded, "server_seed": server_seed}, Seeding)
    except msgspec.ValidationError as exc:
        raise ExportError(f"the hm.deal_seeded record is malformed: {exc}") from None


def seeding_problems(seeding: Seeding, seed: int, salt: str) -> list[str]:
    """Why the client-seed derivation does not hold: the server's seed must
    hash (with the revealed salt) to the commitment published before any
    client seed, and the engine's seed must be `deal_seed` of it and the
    client seeds."""
    if seeding.server_seed is None:
        return ["the client seeds are logged but the end reveals no server seed"]
    problems = []
    if commitment(seeding.server_seed, salt) != seeding.commitment:
        problems.append("the revealed server seed and salt do not hash to the server's commitment")
    if deal_seed(seeding.server_seed, seeding.client_seeds) != seed:
        problems.append("the deal's seed is not the one derived from the server seed and the client seeds")
    return problems


class ExportError(ValueError):
    """The file is not a game export (not the checks failing: nothing to check)."""


def event_tags(game: Game) -> frozenset[str]:
    return frozenset(t.__struct_config__.tag for t in typing.get_args(game.event_type))


def read_export(data: bytes) -> tuple[Game, list[Any]]:
    """The game and its engine events from an export (`GET .../export`: one
    `{"version", "type", "event"}` object a line, versions 1, 2, ...)."""
    games = [get_game(name) for name in available()]
    game: Game | None = None
    tags: frozenset[str] = frozenset()
    events: list[Any] = []
    expected = 1
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = msgspec.json.decode(line)
            version, tag, raw = record["version"], record["type"], record["event"]
        except (msgspec.DecodeError, KeyError, TypeError):
            raise ExportError(f"line {number} is not an export record") from None
        if version != expected:
            raise ExportError(f"line {number} has version {version}, expected {expected}")
        expected += 1
        if game is None:
            game = next((g for g in games if tag in event_tags(g)), None)
            if game is None:
                raise ExportError(f"the first event, {tag!r}, starts no known game")
            tags = event_tags(game)
        if tag not in tags:
            continue  # a service event (hm.*)
        try:
            events.append(msgspec.convert(raw, game.event_type))
        except msgspec.ValidationError as exc:
            raise ExportError(f"line {number}: not a {game.title} event: {exc}") from None
    if game is None:
        raise ExportError("the export is empty")
    return game, events


def verify_export(data: bytes, receipts: Sequence[chain.Receipt] | None = None) -> Verdict:
    """Every check of an export; with a player's `receipts`, also that the
    log holds, up to each receipt's version, what the player was answered."""
    game, events = read_export(data)
    verdict = verify_events(game, events, read_seeding(data))
    links, key = chain.read_links(data)
    linked = chain.check(links, key, receipts)
    problems = list(verdict.problems)
    if linked.present and not linked.ok or linked.receipts_ok is False:
        problems.extend(linked.problems)
    state = "absent" if not linked.present else "ok" if linked.ok else "failed"
    return msgspec.structs.replace(verdict, chain=state, receipts_ok=linked.receipts_ok, problems=problems)


def _bare(event: Any) -> dict:
    data = msgspec.to_builtins(event)
    for name in _OPENING:
        data.pop(name, None)
    return data


def _tag(event: Any) -> str:
    return type(event).__struct_config__.tag


def verify_events(game: Game, events: Sequence[Any], seeding: Seeding | None = None) -> Verdict:
    problems: list[str] = []
    if not events:
        return Verdict(False, False, False, game.name, ["the log has no events"])
    first, final = events[0], events[-1]
    seed, salt = getattr(final, "seed", None), getattr(final, "salt", None)
    if not isinstance(seed, int) or not isinstance(salt, str):
        problems.append("the last event reveals no seed and salt: the game has not ended")
        return Verdict(False, False, False, game.name, problems)

    published = getattr(first, "commitment", "")
    commitment_ok = bool(published) and published == commitment(seed, salt)
    if not commitment_ok:
        problems.append("the revealed seed and salt do not hash to the first event's commitment")
    if seeding is not None:
        derived = seeding_problems(seeding, seed, salt)
        commitment_ok = commitment_ok and not derived
        problems.extend(derived)
    disagreeing = _disagreeing_openings(events, seed, salt)
    if disagreeing:
        # The deals and replay comparisons leave these fields out, so a
        # start event naming another seed than the one revealed is caught here.
        commitment_ok = False
        problems.extend(disagreeing)

    try:
        players, options = game.setup(first)
        derived = game.start(players, options, Chance(seed, salt=salt))
    except (OptionsError, RuleError, AttributeError, TypeError) as exc:
        problems.append(f"the start cannot be re-run: {exc}")
        return Verdict(commitment_ok, False, False, game.name, problems)
    logged_start = list(events[: len(derived)])
    deals_ok = [_bare(e) for e in derived] == [_bare(e) for e in logged_start]
    if not deals_ok:
        problems.append("the start events are not the ones the revealed seed deals")

    replay_ok, later_deals_ok, why = _replay(game, logged_start, events[len(derived) :])
    if not later_deals_ok:
        problems.append("a deal event differs from the deal the engine makes from the seed's decks")
    if not replay_ok:
        problems.append(f"the replay failed: {why}")
    return Verdict(commitment_ok, deals_ok and later_deals_ok, replay_ok, game.name, problems)


def _disagreeing_openings(events: Sequence[Any], seed: int, salt: str) -> list[str]:
    """Why an event that names a seed or salt (the start event, once the game
    is over) names another one than the final event reveals: an export
    carries one seed and one salt."""
    out = []
    for number, event in enumerate(events[:-1], start=1):
        named_seed, named_salt = getattr(event, "seed", None), getattr(event, "salt", None)
        if named_seed is not None and named_seed != seed:
            out.append(f"event {number} ({_tag(event)}) names seed {named_seed}, the final event reveals {seed}")
        if named_salt and named_salt != salt:
            out.append(f"event {number} ({_tag(event)}) names another salt than the final event reveals")
    return out


def _replay(game: Game, start: list, rest: Sequence[Any]) -> tuple[bool, bool, str]:
    """(replay_ok, later deals ok, why the replay failed)."""
    state = game.fold(start)
    deals_ok = True
    i = 0
    while i < len(rest):
        if game.is_over(state):
            return False, deals_ok, f"events go on after the end (event {len(start) + i + 1})"
        candidates = _candidates(game, state, rest[i])
        match, strict = _match(game, candidates, rest[i:])
        if match is None:
            return False, deals_ok, f"no legal command gives event {len(start) + i + 1} ({_tag(rest[i])})"
        deals_ok = deals_ok and strict
        # Fold the engine's own events: a forged deal event is the deals
        # check's finding and must not derail the replay of the moves.
        state = game.fold(match, state)
        i += len(match)
    if not game.is_over(state):
        return False, deals_ok, "the log stops before the game is over"
    return True, deals_ok, ""


def _candidates(game: Game, state: Any, next_event: Any) -> list[list]:
    return [events for _, _, events in commands_now(game, state, next_event)]


def commands_now(game: Game, state: Any, next_event: Any) -> list[tuple[int | None, Any, list]]:
    """(seat, action, events) of every command the engine would accept now:
    each legal action of each seat that may act, and a due timer (seat and
    action None). The time is the one the next event records, if it records
    one (Kabuki masks), else the timer's due time. Also the integrity
    screening's replay of a stored log (services/app/integrity/replay.py)."""
    due = game.next_timer(state)
    recorded = game.event_time(next_event)
    ctx = Ctx(now_ms=recorded if recorded is not None else (due or 0))
    out: list[tuple[int | None, Any, list]] = []
    if due is not None:
        try:
            timed = game.on_timer(state, ctx if recorded is not None else Ctx(now_ms=due))
        except RuleError:
            timed = []
        if timed:
            out.append((None, None, timed))
    for seat in sorted(game.to_act(state)):
        for action in game.legal_actions(state, seat):
            try:
                out.append((seat, action, game.decide(state, seat, action, ctx)))
            except RuleError:
                continue
    return out


def _match(game: Game, candidates: list[list], log: Sequence[Any]) -> tuple[list | None, bool]:
    """The candidate the log continues with, and whether it matched exactly.
    Exact beats lenient (same events, deal events allowed to differ: that is
    a forged deal); among equals the longest wins."""
    best, best_strict = None, False
    for events in candidates:
        n = len(events)
        if not events or n > len(log):
            continue
        segment = log[:n]
        if list(segment) == events:
            strict = True
        elif [_tag(e) for e in events] != [_tag(e) for e in segment]:
            continue
        else:
            strict, fits = True, True
            for mine, logged in zip(events, segment, strict=True):
                if _bare(mine) == _bare(logged):
                    continue
                if _tag(mine) in game.deal_tags:
                    strict = False
                else:
                    fits = False
                    break
            if not fits:
                continue
        if best is None or (strict and not best_strict) or (strict == best_strict and n > len(best)):
            best, best_strict = events, strict
    return best, best_strict
