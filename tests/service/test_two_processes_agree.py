"""Two API processes behind one port (`serve --processes 2`, as it runs by
default) agree on every table: each request goes on a fresh connection, so
either process may answer it (tests/service/two_processes.py).

- Seats taken through different processes fill one table, which starts
  before the call taking its last seat returns, and every process then knows
  every seat (`your_seat`, moves accepted).
- A retried move (same command id, same body, sent again after a lost
  answer) gets its stored answer at either process."""

from __future__ import annotations

import httpx

from tests.service.two_processes import PROCESS_HEADER, shared_two_api_processes

two_api_processes = shared_two_api_processes  # one serve for the module


GAME = "kabuki-tricks"


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _people(http: httpx.Client, prefix: str, count: int) -> list[dict[str, str]]:
    out = []
    for n in range(count):
        r = http.post("/api/v1/players", json={"name": f"{prefix}{n}"})
        assert r.status_code == 201, r.text
        out.append(_auth(r.json()["token"]))
    return out


def _seat_everyone(http: httpx.Client, people: list[dict[str, str]]) -> tuple[str, set[str]]:
    """A table of len(people), each taking a seat on a fresh connection;
    returns the game id and the processes that seated them."""
    r = http.post("/api/v1/games", json={"game": GAME, "players": len(people)}, headers=people[0])
    assert r.status_code == 201, r.text
    game_id = r.json()["game_id"]
    seated_by = set()
    for seat, auth in enumerate(people):
        r = http.post(f"/api/v1/games/{game_id}/seats", json={"seat": seat}, headers=auth)
        assert r.status_code == 200, r.text
        assert r.json()["your_seat"] == seat
        seated_by.add(r.headers[PROCESS_HEADER])
    return game_id, seated_by


def test_seats_taken_through_both_processes_start_the_table_and_both_know_every_seat(two_api_processes):  # noqa: F811
    mixed = 0
    with two_api_processes.fresh_client() as http:
        for table in range(6):
            people = _people(http, f"seat{table}-", 3)
            game_id, seated_by = _seat_everyone(http, people)
            mixed += len(seated_by) > 1
            # Started before the last seat's call returned: every read, at
            # either process, says so, and knows each reader's seat.
            answered: dict[int, set[str]] = {seat: set() for seat in range(len(people))}
            for read in range(60):  # until each person has read at both processes
                seat = read % len(people)
                r = http.get(f"/api/v1/games/{game_id}", headers=people[seat])
                assert r.status_code == 200, r.text
                info = r.json()
                answered[seat].add(r.headers[PROCESS_HEADER])
                assert info["status"] == "playing", (table, info["status"], r.headers[PROCESS_HEADER])
                assert info["your_seat"] == seat, (table, seat, r.headers[PROCESS_HEADER])
                assert all(s["taken"] for s in info["seats"])
                if all(len(at) == 2 for at in answered.values()):
                    break
            assert all(len(at) == 2 for at in answered.values()), "reads kept to one process: the test proves little"
            # And the seat to act moves, whichever process takes the move.
            for move in range(4):
                info = http.get(f"/api/v1/games/{game_id}", headers=people[0]).json()
                seat = info["to_act"][0]
                view = http.get(f"/api/v1/games/{game_id}", headers=people[seat]).json()
                r = http.post(
                    f"/api/v1/games/{game_id}/actions",
                    headers=people[seat],
                    json={"action": view["legal_actions"][0], "command_id": f"m{move}"},
                )
                assert r.status_code == 200, (r.status_code, r.text, r.headers[PROCESS_HEADER])
    assert mixed, "no table was seated through both processes: the test proves nothing"


def test_a_retried_move_gets_its_stored_answer_at_either_process(two_api_processes):  # noqa: F811
    with two_api_processes.fresh_client() as http:
        people = _people(http, "retry-", 2)
        game_id, _ = _seat_everyone(http, people)
        retried_elsewhere = 0
        for move in range(12):
            info = http.get(f"/api/v1/games/{game_id}", headers=people[0]).json()
            seat = info["to_act"][0]
            view = http.get(f"/api/v1/games/{game_id}", headers=people[seat]).json()
            with_version = move % 2 == 0
            body = {"action": view["legal_actions"][0], "command_id": f"retry{move}"}
            if with_version:
                body["expected_version"] = view["version"]
            first = http.post(f"/api/v1/games/{game_id}/actions", headers=people[seat], json=body)
            assert first.status_code == 200, first.text
            # The answer was "lost": the same command again, until both
            # processes have answered it, each time the first answer.
            processes = {first.headers[PROCESS_HEADER]}
            for _ in range(8):
                again = http.post(f"/api/v1/games/{game_id}/actions", headers=people[seat], json=body)
                assert again.status_code == 200, (move, with_version, again.status_code, again.text)
                assert again.json() == first.json()
                if again.headers[PROCESS_HEADER] not in processes:
                    retried_elsewhere += 1
                    processes.add(again.headers[PROCESS_HEADER])
                    break
    assert retried_elsewhere >= 6, "retries seldom reached the other process: the test proves little"


def test_the_last_seats_taken_at_once_through_both_processes_start_the_table(two_api_processes):  # noqa: F811
    """Two people take the last two seats at the same moment: whichever
    process's insert commits last reads every seat and deals."""
    from concurrent.futures import ThreadPoolExecutor

    def take(game_id: str, seat: int, auth: dict[str, str]) -> httpx.Response:
        with two_api_processes.fresh_client() as own:
            return own.post(f"/api/v1/games/{game_id}/seats", json={"seat": seat}, headers=auth)

    with two_api_processes.fresh_client() as http, ThreadPoolExecutor(2) as pool:
        for table in range(8):
            people = _people(http, f"race{table}-", 3)
            r = http.post("/api/v1/games", json={"game": GAME, "players": 3}, headers=people[0])
            game_id = r.json()["game_id"]
            assert http.post(f"/api/v1/games/{game_id}/seats", json={"seat": 0}, headers=people[0]).status_code == 200
            last = list(pool.map(take, [game_id] * 2, (1, 2), people[1:]))
            assert [r.status_code for r in last] == [200, 200], [r.text for r in last]
            for _ in range(4):  # either process, right after both calls returned
                info = http.get(f"/api/v1/games/{game_id}", headers=people[1]).json()
                assert info["status"] == "playing" and info["your_seat"] == 1, (table, info["status"])
