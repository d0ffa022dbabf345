"""Tables of house bots made over HTTP, as any client makes them (the
watching, replay and analysis tests): a host player, its table, the bots
seated, and the wait for the end."""

from __future__ import annotations

import time
import uuid

import httpx


def new_player(http: httpx.Client) -> dict:
    return http.post("/api/v1/players", json={"name": f"host-{uuid.uuid4().hex[:6]}"}).json()


def bot_table(
    http: httpx.Client,
    players: int,
    delay_ms: int,
    ranked: bool = False,
    human: dict | None = None,
    game: str = "kabuki-tricks",
    options: dict | None = None,
) -> tuple[str, dict]:
    """A table of house bots (with `human` in seat 0 if given), Kabuki Tricks unless told."""
    host = human or new_player(http)
    auth = {"Authorization": f"Bearer {host['token']}"}
    r = http.post(
        "/api/v1/games",
        json={"game": game, "players": players, "ranked": ranked, "bot_delay_ms": delay_ms, "options": options or {}},
        headers=auth,
    )
    assert r.status_code == 201, r.text
    gid = r.json()["game_id"]
    first = 0
    if human:
        assert http.post(f"/api/v1/games/{gid}/seats", json={"seat": 0}, headers=auth).status_code == 200
        first = 1
    for seat in range(first, players):
        assert (
            http.post(f"/api/v1/games/{gid}/bots", json={"seat": seat, "bot": "random"}, headers=auth).status_code
            == 200
        )
    return gid, host


def wait_finished(http: httpx.Client, gid: str, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        info = http.get(f"/api/v1/games/{gid}").json()
        if info["status"] == "finished":
            return info
        time.sleep(0.1)
    raise AssertionError(f"game {gid} did not finish")
