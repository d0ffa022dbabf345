"""Hostile and broken requests: each is refused with the right 4xx and a
`{code, message}` body (readable, no traceback, no hidden card), and none of
them changes anything (the game's version, its events, the lobby)."""

from __future__ import annotations

import asyncio
import random
import re
import time
import uuid

import asyncpg
import httpx
import pytest

from tests.service.client import ApiClient, play_randomly

pytestmark = pytest.mark.asyncio(loop_scope="session")

ERROR_KEYS = {"code", "message", "version"}


def _refused(r: httpx.Response, status: int, *codes: str) -> dict:
    assert r.status_code == status, f"expected {status} {codes}, got {r.status_code}: {r.text[:300]}"
    assert r.headers.get("content-type", "").startswith("application/json"), r.headers
    body = r.json()
    assert isinstance(body, dict) and set(body) <= ERROR_KEYS and {"code", "message"} <= set(body), body
    if codes:
        assert body["code"] in codes, body
    message = body["message"]
    assert isinstance(message, str) and 0 < len(message) < 400, body
    for leak in ("Traceback", 'File "', "asyncpg", "Exception", "\n"):
        assert leak not in message, body
    # No list of cards (a hand, a deck) in a refusal.
    assert not re.search(r"\d+\s*,\s*\d+\s*,\s*\d+", message), body
    return body


class Tables:
    """A started kabuki-tricks table, an open one, an outsider, and the DB."""

    def __init__(self, base_url: str, database_url: str) -> None:
        self.base_url = base_url
        self.database_url = database_url

    async def setup(self) -> Tables:
        tag = uuid.uuid4().hex[:6]
        self.seated = [await ApiClient.register(self.base_url, f"h{tag}{i}") for i in range(4)]
        self.outsider = await ApiClient.register(self.base_url, f"out{tag}")
        self.anon = ApiClient(self.base_url)
        self.game_id = await self.seated[0].create_game("kabuki-tricks", 4)
        for seat, client in enumerate(self.seated):
            await client.sit(self.game_id, seat)
        self.open_id = await self.outsider.create_game("kabuki-masks", 3, {"stop_window_ms": 0})
        await self.outsider.sit(self.open_id, 1)
        self.db = await asyncpg.connect(self.database_url)
        return self

    async def close(self) -> None:
        for c in (*self.seated, self.outsider, self.anon):
            await c.close()
        await self.db.close()

    async def snapshot(self) -> tuple:
        games = []
        for gid in (self.game_id, self.open_id):
            info = await self.anon.game(gid)
            events = (await self.anon.get(f"/api/v1/games/{gid}/events", after=0)).json()
            games.append((info["version"], info["status"], info["seats"], info["to_act"], events))
        mine = [(await c.game(self.game_id))["view"] for c in self.seated]
        counts = await self.db.fetchrow(
            "SELECT (SELECT count(*) FROM games) AS games, (SELECT count(*) FROM players) AS players,"
            " (SELECT count(*) FROM seats) AS seats,"
            " (SELECT count(*) FROM events WHERE stream_id = ANY($1::text[])) AS events,"
            " (SELECT count(*) FROM commands WHERE stream_id = ANY($1::text[])) AS commands",
            [self.game_id, self.open_id],
        )
        assert counts is not None  # counts always make a row
        return games, mine, dict(counts)

    def mover(self, info: dict) -> tuple[int, ApiClient]:
        seat = info["to_act"][0]
        return seat, self.seated[seat]


@pytest.fixture
async def tables(server, database_url):
    t = await Tables(server.base_url, database_url).setup()
    yield t
    await t.close()


def _raw(client: ApiClient, method: str, path: str, content: bytes, headers: dict | None = None):
    h = {**client.headers, "content-type": "application/json", **(headers or {})}
    return client.http.request(method, path, content=content, headers=h)


async def test_malformed_bodies_and_wrong_shapes_are_400(tables: Tables):
    t = tables
    before = await t.snapshot()
    info = await t.seated[0].game(t.game_id)
    seat, mover = t.mover(info)
    actions = f"/api/v1/games/{t.game_id}/actions"
    cases = [
        # malformed JSON
        (lambda: _raw(mover, "POST", actions, b"{not json"), 400, ("bad_request",)),
        (
            lambda: _raw(mover, "POST", actions, b'{"action": {"type": "deal"}, "command_id": "x"'),
            400,
            ("bad_request",),
        ),
        (lambda: _raw(mover, "POST", actions, b"\xff\xfe\x00"), 400, ("bad_request",)),
        (lambda: _raw(mover, "POST", actions, b""), 400, ("bad_request",)),
        (lambda: _raw(mover, "POST", "/api/v1/games", b"{'game': 'kabuki-tricks'}"), 400, ("bad_request",)),
        (lambda: _raw(mover, "POST", "/api/v1/players", b"nul\x00l"), 400, ("bad_request",)),
        # wrong types
        (lambda: mover.post(actions, []), 400, ("bad_request",)),
        (lambda: mover.post(actions, {"action": "deal", "command_id": "x"}), 400, ("bad_request",)),
        (lambda: mover.post(actions, {"action": {"type": "deal"}, "command_id": 7}), 400, ("bad_request",)),
        (
            lambda: mover.post(actions, {"action": {"type": "deal"}, "command_id": "x", "expected_version": "one"}),
            400,
            ("bad_request",),
        ),
        (lambda: mover.act(t.game_id, {"type": "play", "card": "seven"}), 400, ("bad_action",)),
        (lambda: mover.act(t.game_id, {"type": "play", "card": True}), 400, ("bad_action",)),
        (lambda: mover.act(t.game_id, {"type": "play", "card": [[[1]]]}), 400, ("bad_action",)),
        (lambda: mover.act(t.game_id, {"type": "direct", "high": "yes", "order": ["green"]}), 400, ("bad_action",)),
        (lambda: mover.post("/api/v1/games", {"game": 4, "players": 4}), 400, ("bad_request",)),
        (lambda: mover.post("/api/v1/games", {"game": "kabuki-tricks", "players": "four"}), 400, ("bad_request",)),
        (lambda: mover.post("/api/v1/games", {"game": "kabuki-tricks", "players": True}), 400, ("bad_request",)),
        (
            lambda: mover.post("/api/v1/games", {"game": "kabuki-tricks", "players": 4, "options": []}),
            400,
            ("bad_request",),
        ),
        (
            lambda: mover.post("/api/v1/games", {"game": "kabuki-tricks", "players": 4, "ranked": "yes"}),
            400,
            ("bad_request",),
        ),
        (lambda: mover.post(f"/api/v1/games/{t.open_id}/seats", {"seat": "two"}), 400, ("bad_request",)),
        (lambda: mover.post("/api/v1/players", {"name": 12}), 400, ("bad_request",)),
        # missing fields, unknown fields, unknown action types
        (lambda: mover.post(actions, {"action": {"type": "deal"}}), 400, ("bad_request",)),
        (lambda: mover.post(actions, {"command_id": "x"}), 400, ("bad_request",)),
        (
            lambda: mover.post(actions, {"action": {"type": "deal"}, "command_id": "x", "as_seat": 2}),
            400,
            ("bad_request",),
        ),
        (lambda: mover.act(t.game_id, {"type": "play"}), 400, ("bad_action",)),
        (lambda: mover.act(t.game_id, {}), 400, ("bad_action",)),
        (lambda: mover.act(t.game_id, {"type": "teleport"}), 400, ("bad_action",)),
        (lambda: mover.post("/api/v1/games", {"players": 4}), 400, ("bad_request",)),
        (lambda: mover.post("/api/v1/games", {"game": "kabuki-tricks"}), 400, ("bad_request",)),
        (lambda: mover.post("/api/v1/players", {}), 400, ("bad_request",)),
        (lambda: mover.post("/api/v1/players", {"name": "ok", "admin": True}), 400, ("bad_request",)),
        # command ids and names out of bounds
        (
            lambda: mover.post(actions, {"action": {"type": "deal"}, "command_id": ""}),
            400,
            ("bad_command_id", "bad_request"),
        ),
        (lambda: mover.act(t.game_id, {"type": "deal"}, command_id="c" * 101), 400, ("bad_command_id",)),
        (lambda: mover.post("/api/v1/players", {"name": ""}), 400, ("bad_name",)),
        (lambda: mover.post("/api/v1/players", {"name": "n" * 41}), 400, ("bad_name",)),
        (lambda: mover.post("/api/v1/players", {"name": "line\nbreak"}), 400, ("bad_name",)),
        # query parameters
        (lambda: t.anon.get(f"/api/v1/games/{t.game_id}/events", after=-1), 400, ("bad_request",)),
        (lambda: t.anon.get(f"/api/v1/games/{t.game_id}/events", after="x"), 400, ("bad_request",)),
        (lambda: t.anon.get(f"/api/v1/games/{t.game_id}/replay", at=-1), 400, ("bad_request",)),
        (lambda: t.anon.get(f"/api/v1/games/{t.game_id}/replay", at=10_000), 400, ("bad_version",)),
        (lambda: t.anon.get(f"/api/v1/games/{t.game_id}/replay", at=0, seat=9), 400, ("bad_seat",)),
        (
            lambda: t.anon.http.get(f"/api/v1/games/{t.game_id}/stream", headers={"Last-Event-ID": "seven"}),
            400,
            ("bad_last_event_id",),
        ),
    ]
    for i, (request, status, codes) in enumerate(cases):
        r = await request()
        assert r.status_code == status, (i, r.status_code, r.text[:200])
        _refused(r, status, *codes)
    assert await t.snapshot() == before


async def test_oversize_bodies_are_413(tables: Tables):
    t = tables
    before = await t.snapshot()
    info = await t.seated[0].game(t.game_id)
    _, mover = t.mover(info)
    big = b'{"action": {"type": "deal", "pad": "' + b"x" * (64 * 1024) + b'"}, "command_id": "big"}'
    _refused(await _raw(mover, "POST", f"/api/v1/games/{t.game_id}/actions", big), 413, "body_too_large")
    _refused(await _raw(mover, "POST", "/api/v1/players", b'{"name": "' + b"n" * 70_000 + b'"}'), 413, "body_too_large")

    async def chunks():  # no Content-Length: the limit holds on the bytes received
        yield b'{"action": {"type": "deal"}, "command_id": "chunked", "pad": "'
        for _ in range(20):
            yield b"y" * 5000
        yield b'"}'

    _refused(await _raw(mover, "POST", f"/api/v1/games/{t.game_id}/actions", chunks()), 413, "body_too_large")
    # Just under the limit is read (and refused for what it says, not its size).
    small = b'{"name": "' + b"n" * (60 * 1024) + b'"}'
    _refused(await _raw(mover, "POST", "/api/v1/players", small), 400, "bad_name")
    assert await t.snapshot() == before


async def test_deeply_nested_json_is_400_not_500(tables: Tables):
    """A small body (well under 64 KiB) nested deeper than the JSON decoder's
    recursion limit is still just malformed input."""
    t = tables
    before = await t.snapshot()
    _, mover = t.mover(await t.seated[0].game(t.game_id))
    deep = b"[" * 3000 + b"]" * 3000
    body = b'{"action": {"type": "play", "card": ' + deep + b'}, "command_id": "deep"}'
    _refused(await _raw(mover, "POST", f"/api/v1/games/{t.game_id}/actions", body), 400, "bad_request", "bad_action")
    assert await t.snapshot() == before


async def test_authentication_and_seat_ownership(tables: Tables):
    t = tables
    before = await t.snapshot()
    info = await t.seated[0].game(t.game_id)
    seat, mover = t.mover(info)
    action = (await mover.game(t.game_id))["legal_actions"][0]
    other = t.seated[(seat + 1) % 4]
    body = {"action": action, "command_id": "auth-check"}
    path = f"/api/v1/games/{t.game_id}/actions"
    h = t.anon.http
    # no token / bad token
    _refused(await h.post(path, json=body), 401, "no_token")
    _refused(await h.post(path, json=body, headers={"Authorization": "Bearer hm_not-a-token"}), 401, "bad_token")
    _refused(await h.post(path, json=body, headers={"Authorization": "Bearer " + "x" * 4000}), 401, "bad_token")
    _refused(await h.post(path, json=body, headers={"Authorization": "Bearer"}), 401, "bad_token")
    assert mover.token is not None
    _refused(await h.post(path, json=body, headers={"Authorization": mover.token}), 401, "bad_token")
    _refused(await h.post(path, json=body, headers={"Authorization": f"Basic {mover.token}"}), 401, "bad_token")
    _refused(await h.post(path, json=body, headers={"Authorization": f"Bearer {mover.token}x"}), 401, "bad_token")
    _refused(await h.post("/api/v1/games", json={"game": "kabuki-tricks", "players": 4}), 401, "no_token")
    _refused(await h.post(f"/api/v1/games/{t.open_id}/seats", json={}), 401, "no_token")
    _refused(await h.get(f"/api/v1/games/{t.game_id}", headers={"Authorization": "Bearer nope"}), 401, "bad_token")
    # another seat's turn; a player without a seat
    _refused(await other.act(t.game_id, action), 409, "not_your_turn")
    _refused(await other.act(t.game_id, action, expected_version=info["version"]), 409, "not_your_turn")
    _refused(await t.outsider.act(t.game_id, action), 403, "not_seated")
    # a seat's private view of a game in progress
    _refused(await other.get(f"/api/v1/games/{t.game_id}/replay", at=1, seat=seat), 403, "not_your_seat")
    _refused(await t.anon.get(f"/api/v1/games/{t.game_id}/replay", at=1, seat=seat), 403, "not_your_seat")
    # house bots are for the host to seat, and only known ones
    _refused(await t.seated[0].post(f"/api/v1/games/{t.open_id}/bots", {"bot": "random"}), 403, "not_table_host")
    _refused(await t.outsider.post(f"/api/v1/games/{t.open_id}/bots", {"bot": "skynet"}), 422, "unknown_bot")
    # a stale expected version; a command id another seat used is judged on its own (ids are per seat)
    _refused(await mover.act(t.game_id, action, expected_version=info["version"] - 1), 409, "version_conflict")
    # (beyond any version: refused by the type's bound)
    _refused(await mover.act(t.game_id, action, expected_version=2**70), 400, "bad_request")
    assert await t.snapshot() == before
    # (the one accepted command, then its id reused by another seat)
    ok = await mover.act(t.game_id, action, command_id="mine")
    assert ok.status_code == 200, ok.text
    after_ok = await t.snapshot()
    _refused(await other.act(t.game_id, action, command_id="mine"), 409, "not_your_turn")
    assert await t.snapshot() == after_ok


async def test_lobby_refusals(tables: Tables):
    t = tables
    before = await t.snapshot()
    c = t.outsider
    # unknown game (name and id)
    _refused(await c.post("/api/v1/games", {"game": "chess", "players": 2}), 422, "unknown_game")
    # (a NUL in a name or an id is refused before any lookup: see the NUL test below)
    for gid in (str(uuid.uuid4()), "not-a-uuid", "x" * 300):
        _refused(await t.anon.get(f"/api/v1/games/{gid}"), 404, "game_not_found", "not_found")
        _refused(await t.anon.get(f"/api/v1/games/{gid}/events"), 404, "game_not_found", "not_found")
        _refused(await c.act(gid, {"type": "deal"}), 404, "game_not_found", "not_found")
        _refused(await c.post(f"/api/v1/games/{gid}/seats", {}), 404, "game_not_found", "not_found")
    _refused(await t.anon.http.get(f"/api/v1/games/{uuid.uuid4()}/stream"), 404, "game_not_found")
    # bad options, bad player counts
    for options in (
        {"stop_window_ms": -1},
        {"stop_window_ms": 60_001},
        {"stop_window_ms": "fast"},
        {"stop_window_ms": True},
        {"stop_window_ms": 2**70},
        {"bot_memory": "sometimes"},
        {"bot_memory": 1.5},
        {"colour": "red"},
    ):
        _refused(
            await c.post("/api/v1/games", {"game": "kabuki-masks", "players": 3, "options": options}), 422, "bad_option"
        )
    _refused(
        await c.post("/api/v1/games", {"game": "kabuki-tricks", "players": 4, "options": {"toxic_number": "yes"}}),
        422,
        "bad_option",
    )
    for points in (100, 10**30):  # bounded like every other number (TT-1's cards)
        bids = [{"tricks": [n], "points": points} for n in range(5)]
        _refused(
            await c.post("/api/v1/games", {"game": "tezuma-trick", "players": 3, "options": {"bid_cards": bids}}),
            422,
            "bad_option",
        )
    for game, players in (("kabuki-masks", 1), ("kabuki-masks", 7), ("kabuki-tricks", 6), ("kabuki-tricks", 1)):
        _refused(await c.post("/api/v1/games", {"game": game, "players": players}), 422, "bad_player_count")
    for players in (0, -3, 2**70):  # outside any table's range: the type's bound
        _refused(await c.post("/api/v1/games", {"game": "kabuki-masks", "players": players}), 400, "bad_request")
    # seats: out of range, taken, twice, full table
    for seat in (3, -1, 99, 2**40):  # past the table (bad_seat) or any table (the type's bound)
        _refused(
            await t.seated[0].post(f"/api/v1/games/{t.open_id}/seats", {"seat": seat}), 400, "bad_seat", "bad_request"
        )
    _refused(await t.seated[0].post(f"/api/v1/games/{t.open_id}/seats", {"seat": 1}), 409, "seat_taken")
    _refused(await c.post(f"/api/v1/games/{t.open_id}/seats", {"seat": 0}), 409, "already_seated")
    _refused(await c.post(f"/api/v1/games/{t.open_id}/bots", {"bot": "random", "seat": 1}), 409, "seat_taken")
    _refused(await c.post(f"/api/v1/games/{t.open_id}/bots", {"bot": "random", "seat": 7}), 400, "bad_seat")
    _refused(await c.post(f"/api/v1/games/{t.game_id}/seats", {}), 409, "table_full")
    _refused(await c.post(f"/api/v1/games/{t.game_id}/seats", {"seat": 2}), 409, "table_full", "seat_taken")
    _refused(await t.seated[1].post(f"/api/v1/games/{t.game_id}/seats", {"seat": 1}), 409, "already_seated")
    # acting before the game starts, reading what does not exist yet
    _refused(await c.act(t.open_id, {"type": "place", "pile": 0}), 409, "game_not_started")
    _refused(await t.anon.get(f"/api/v1/games/{t.game_id}/export"), 409, "game_in_progress")
    assert await t.snapshot() == before


async def test_rule_refusals_carry_the_engine_code(tables: Tables):
    t = tables
    game = f"/api/v1/games/{t.game_id}"
    info = await t.seated[0].game(t.game_id)
    seat, mover = t.mover(info)
    before = await t.snapshot()
    # Before the deal: playing a card is the wrong phase.
    _refused(await mover.act(t.game_id, {"type": "play", "card": 0}), 422, "wrong_phase")
    _refused(await mover.act(t.game_id, {"type": "joker", "actor": "blue", "prediction": 2}), 422, "wrong_phase")
    assert await t.snapshot() == before

    # Play legal actions until somebody has to play a card.
    rng = random.Random(7)
    for _ in range(50):
        info = await t.seated[0].game(t.game_id)
        seat, mover = t.mover(info)
        mine = await mover.game(t.game_id)
        if any(a["type"] == "play" for a in mine["legal_actions"]):
            break
        r = await mover.act(t.game_id, rng.choice(mine["legal_actions"]))
        assert r.status_code == 200, r.text
    else:
        pytest.fail("never reached the tricks")
    hands = [(await c.game(t.game_id))["view"]["hand"] for c in t.seated]
    before = await t.snapshot()
    someone_elses = next(card for s, hand in enumerate(hands) if s != seat for card in hand)
    body = _refused(await mover.act(t.game_id, {"type": "play", "card": someone_elses}), 422, "illegal_card")
    # The refusal names the card sent, nothing about who holds it.
    assert "seat" not in body["message"] or str(seat) in body["message"]
    _refused(await mover.act(t.game_id, {"type": "play", "card": 10_000}), 422, "illegal_card")
    _refused(await mover.act(t.game_id, {"type": "play", "card": -1}), 422, "illegal_card")
    _refused(await mover.act(t.game_id, {"type": "deal"}), 422, "wrong_phase")
    _refused(
        await mover.act(t.game_id, {"type": "direct", "high": True, "order": ["green", "purple", "orange", "blue"]}),
        422,
        "wrong_phase",
    )
    # The card a seat holds, played by a seat whose turn it is not.
    waiting = (seat + 1) % 4
    _refused(await t.seated[waiting].act(t.game_id, {"type": "play", "card": hands[waiting][0]}), 409, "not_your_turn")
    r = await t.anon.get(f"{game}/events", after=0)
    assert r.status_code == 200
    assert await t.snapshot() == before


async def test_nothing_is_accepted_on_a_finished_game(server, database_url):
    clients = [await ApiClient.register(server.base_url, f"fin{i}") for i in range(4)]
    outsider = await ApiClient.register(server.base_url, "fin-out")
    try:
        game_id = await clients[0].create_game("kabuki-tricks", 4)
        for seat, c in enumerate(clients):
            await c.sit(game_id, seat)
        await asyncio.gather(*(play_randomly(c, game_id, random.Random(i)) for i, c in enumerate(clients)))
        info = await clients[0].game(game_id)
        assert info["status"] == "finished"
        events = (await clients[0].get(f"/api/v1/games/{game_id}/events", after=0)).json()
        for c in clients:
            for action in ({"type": "deal"}, {"type": "play", "card": 1}):
                _refused(await c.act(game_id, action), 409, "game_finished")
            _refused(await c.act(game_id, {"type": "deal"}, expected_version=info["version"]), 409, "game_finished")
        _refused(await outsider.act(game_id, {"type": "deal"}), 403, "not_seated")
        _refused(await outsider.post(f"/api/v1/games/{game_id}/seats", {}), 409, "table_full")
        assert (await clients[0].game(game_id))["version"] == info["version"]
        assert (await clients[0].get(f"/api/v1/games/{game_id}/events", after=0)).json() == events
    finally:
        for c in (*clients, outsider):
            await c.close()


async def test_a_command_id_the_database_cannot_store_is_refused_alone(tables: Tables):
    """A command id with a NUL character cannot be stored in a PostgreSQL text
    column. It must be refused as bad input (400), and must not fail the other
    games' appends that share its group-commit batch."""
    t = tables
    # Other tables, played while the bad command is sent again and again, so
    # that it shares group-commit batches with their moves.
    others = []
    for i in range(6):
        players = [await ApiClient.register(t.base_url, f"nul{i}-{j}") for j in range(4)]
        gid = await players[0].create_game("kabuki-tricks", 4)
        for seat, c in enumerate(players):
            await c.sit(gid, seat)
        others.append((gid, players))
    before = await t.snapshot()
    _, mover = t.mover(await t.seated[0].game(t.game_id))
    statuses: list[tuple[int, str]] = []

    async def play(gid: str, players: list[ApiClient], rng: random.Random) -> None:
        for _ in range(25):
            info = await players[0].game(gid)
            client = players[info["to_act"][0]]
            legal = (await client.game(gid))["legal_actions"]
            r = await client.act(gid, rng.choice(legal), expected_version=info["version"])
            statuses.append((r.status_code, r.text))

    async def hostile() -> list:
        replies = []
        for i in range(40):
            replies.append(await mover.act(t.game_id, {"type": "deal"}, command_id=f"nul\u0000{i}"))
        return replies

    try:
        *_, replies = await asyncio.gather(
            *(play(gid, players, random.Random(i)) for i, (gid, players) in enumerate(others)), hostile()
        )
        assert replies is not None  # hostile()'s, the last
        failed = [text for status, text in statuses if status not in (200, 409)]
        assert not failed, f"{len(failed)} of {len(statuses)} honest moves at other tables failed: {failed[0]}"
        for r in replies:
            _refused(r, 400, "bad_command_id", "bad_character")
        assert await t.snapshot() == before
    finally:
        for _, players in others:
            for c in players:
                await c.close()


async def test_a_negative_resume_point_on_the_stream_is_refused(tables: Tables):
    """Last-Event-ID / ?after are versions, 0 or more (like GET /events?after).
    A negative one must be a 400, not a stream that counts from the end of
    the log (Python's negative slicing) with made-up versions."""
    t = tables
    before = await t.snapshot()
    path = f"/api/v1/games/{t.game_id}/stream"
    for headers, params in (({"Last-Event-ID": "-2"}, {}), ({}, {"after": "-1"})):
        async with t.anon.http.stream("GET", path, headers=headers, params=params, timeout=5) as r:
            if r.status_code == 200:
                ids = []
                async for line in r.aiter_lines():
                    if line.startswith("id:"):
                        ids.append(int(line[3:]))
                        if len(ids) >= 3:
                            break
                pytest.fail(f"stream resumed from {headers or params} with 200 and event ids {ids}")
            await r.aread()
        _refused(r, 400, "bad_last_event_id", "bad_request")
    assert await t.snapshot() == before


async def _stream_refusal(client: httpx.AsyncClient, path: str, headers: dict, params: dict) -> httpx.Response:
    async with client.stream("GET", path, headers=headers, params=params, timeout=5) as r:
        if r.status_code == 200:
            pytest.fail(f"stream opened with 200 for {headers or params}")
        await r.aread()
    return r


async def test_resume_points_are_ascii_digits_of_bounded_length(tables: Tables):
    """'²' passes str.isdigit but not int(), and int() of
    5,000 digits raises too: both were 500s. One parser (strict ASCII
    digits, at most 18) serves Last-Event-ID and every `after`."""
    t = tables
    before = await t.snapshot()
    game_stream = f"/api/v1/games/{t.game_id}/stream"
    long = "9" * 5000
    for headers, params in (
        ({"Last-Event-ID": "²"}, {}),
        ({"Last-Event-ID": "¹"}, {}),
        ({"Last-Event-ID": "١٢"}, {}),
        ({"Last-Event-ID": long}, {}),
        ({"Last-Event-ID": "1" * 19}, {}),
        ({"Last-Event-ID": "+3"}, {}),
        ({}, {"after": "²"}),
        ({}, {"after": long}),
        ({}, {"after": "0x10"}),
        ({}, {"after": "1e3"}),
    ):
        # httpx sends header values as latin-1 or UTF-8 bytes, like a hostile client would.
        raw = {k: v.encode() for k, v in headers.items()}
        _refused(await _stream_refusal(t.anon.http, game_stream, raw, params), 400, "bad_last_event_id")
    start_ms = int(time.time() * 1000) + 3_600_000
    tournaments = await t.outsider.post(
        "/api/v1/tournaments", {"game": "kabuki-tricks", "start_ms": start_ms, "table_size": 4, "rounds": 1}
    )
    assert tournaments.status_code == 201, tournaments.text
    tid = tournaments.json()["tournament_id"]
    paths = [f"/api/v1/games/{t.game_id}/events", f"/api/v1/tournaments/{tid}/events"]
    for header in ("²", "9" * 5000):
        r = await _stream_refusal(
            t.anon.http, f"/api/v1/tournaments/{tid}/stream", {"Last-Event-ID": header.encode()}, {}
        )
        _refused(r, 400, "bad_last_event_id")
    for path in paths:
        for after in ("²", "%C2%B2", long, "-1", "x", "0x1", " "):
            url = f"{path}?after={after}"
            _refused(await t.anon.http.get(url), 400, "bad_version", "bad_request")
    assert await t.snapshot() == before


async def test_a_nul_in_any_text_parameter_is_400_before_any_query(tables: Tables):
    """PostgreSQL text cannot hold U+0000; a NUL in a path,
    a query parameter or a JSON string reached the driver (500). Each is
    refused with 400 `bad_character`."""
    t = tables
    before = await t.snapshot()
    c = t.outsider
    gets = [
        "/api/v1/tournaments?status=%00",
        "/api/v1/tournaments?status=open%00",
        f"/api/v1/players/{c.player_id}/ratings?game=%00",
        "/api/v1/players/%00x/ratings",
        "/api/v1/games/%00",
        f"/api/v1/games/{t.game_id}/events?after=%00",
        "/api/v1/tournaments/%00",
        "/api/v1/tournaments/%00/standings",
        "/api/v1/leaderboards/%00",
        "/api/v1/agents/%00",
    ]
    for path in gets:
        _refused(await c.http.get(path, headers=c.headers), 400, "bad_character")
    posts = [
        ("/api/v1/players", {"name": "a\u0000b"}),
        ("/api/v1/games", {"game": "kabuki-tricks\u0000", "players": 4}),
        ("/api/v1/games", {"game": "kabuki-masks", "players": 3, "options": {"bot_memory": "\u0000"}}),
        ("/api/v1/games", {"game": "kabuki-masks", "players": 3, "options": {"\u0000": 1}}),
        ("/api/v1/tournaments", {"game": "kabuki-tricks\u0000", "start_ms": 4_102_444_800_000}),
        ("/api/v1/tournaments/%00/registrations", {}),
        (f"/api/v1/games/{t.open_id}/bots", {"bot": "random\u0000", "seat": 0}),
        (f"/api/v1/games/{t.game_id}/actions", {"action": {"type": "deal\u0000"}, "command_id": "nul-a"}),
        (f"/api/v1/games/{t.game_id}/actions", {"action": {"type": "deal", "x": ["\u0000"]}, "command_id": "nul-b"}),
        ("/api/v1/agents", {"name": "ag\u0000", "games": ["kabuki-tricks"], "mode": "pull"}),
    ]
    for path, body in posts:
        _refused(await c.post(path, body), 400, "bad_character")
    # The text `\\u0000` (an escaped backslash) is no NUL: it is judged on its merits.
    _refused(await c.post("/api/v1/games", {"game": "\\u0000", "players": 4}), 422, "unknown_game")
    assert await t.snapshot() == before
