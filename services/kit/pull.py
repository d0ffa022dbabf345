"""`hanamichi agent run MODULE:FUNCTION --pull --server URL --token T`: follow
the agent's own stream (docs/agents.md, "Pull: your stream"), standard library only.

- **Turns.** On `your_turn` it reads the game (view and legal_actions), builds
  the same request a push agent gets (with the turn's deadline_ms and
  time_bank_ms), asks the function (runner.py) and posts the move with
  command id `<game_id>:<version>` and the expected version, so a retried move
  is harmless. Each turn runs in a thread of its own: one slow game does not
  hold the stream or the other games up.
- **Keep-alive.** The server sends a comment line every `keepalive_s` (from
  `hello`); a stream silent for three of those is dead and is reopened.
- **Reconnects and resumes.** A dropped stream is reopened after a backoff
  (0.5 s doubling to 10 s while it keeps failing). The stream is
  level-triggered: on reconnection it announces every game in progress and
  the turns awaited, so nothing is lost; a turn being answered is not asked twice.
- **Chances.** On `your_chance` (a Kabuki masks Stop while the table waits
  for someone else, docs/agents.md "Optional calls") the function gets the
  same request with `"optional": true`, `time_bank_ms` 0 and the event's
  legal_actions; None (or any failure) lets the chance pass, an action is
  posted with command id `<game_id>:<version>:chance`.
"""

from __future__ import annotations

import json
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

from services.kit.runner import Runner

BACKOFF_START_S = 0.5
BACKOFF_MAX_S = 10.0
DEAD_AFTER_KEEPALIVES = 3


class PullAgent:
    def __init__(
        self, fn: Callable[[dict], Any], server: str, token: str, runner: Runner | None = None, keepalive_s: float = 5.0
    ) -> None:
        self.server = server.rstrip("/")
        self.token = token
        self.runner = runner or Runner(fn)
        self.keepalive_s = keepalive_s
        self.stop = threading.Event()
        self.connections = 0  # streams opened (tests watch reconnects)
        self.moves = 0
        self.chances_taken = 0  # optional actions the server accepted
        self._busy: set[tuple] = set()
        self._lock = threading.Lock()
        self._last_event_id: str | None = None
        # Set when the server refused the token (401): a revoked or replaced
        # token never works again, so the runner says so once and stops
        # rather than retrying until its seats are handed over.
        self.refused: str | None = None

    # --- HTTP --------------------------------------------------------------------

    def _call(self, method: str, path: str, body: dict | None = None) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            self.server + path,
            data=data,
            method=method,
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as err:
            if err.code == 401:
                self._token_refused(f"{method} {path}")
            try:
                return err.code, json.loads(err.read() or b"null")
            except ValueError:
                return err.code, None

    def _token_refused(self, where: str) -> None:
        with self._lock:
            first = self.refused is None
            self.refused = self.refused or where
        if first:
            print(
                f"hanamichi agent: the server refused the agent's token (HTTP 401 on {where}): it was revoked,"
                " or replaced by a new one (POST /api/v1/agents/{id}/token). Stopping; run again with"
                " --token and the agent's current token.",
                file=sys.stderr,
                flush=True,
            )
        self.stop.set()

    # --- the stream ----------------------------------------------------------------

    def run(self) -> None:
        """Follow the stream until `stop` is set, reconnecting."""
        backoff = BACKOFF_START_S
        while not self.stop.is_set():
            try:
                if self._follow_once():
                    backoff = BACKOFF_START_S  # it was up: the next try comes quickly
                if self.stop.is_set():
                    return
            except (urllib.error.URLError, OSError, ValueError) as exc:
                print(
                    f"hanamichi agent: stream closed ({exc}); reconnecting in {backoff:.1f} s",
                    file=sys.stderr,
                    flush=True,
                )
            else:
                print(f"hanamichi agent: stream ended; reconnecting in {backoff:.1f} s", file=sys.stderr, flush=True)
            if self.stop.wait(backoff):
                return
            backoff = min(BACKOFF_MAX_S, backoff * 2)

    def _follow_once(self) -> bool:
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "text/event-stream"}
        if self._last_event_id is not None:
            headers["Last-Event-ID"] = self._last_event_id
        request = urllib.request.Request(self.server + "/api/v1/agents/me/stream", headers=headers)
        try:
            stream = urllib.request.urlopen(request, timeout=self.keepalive_s * DEAD_AFTER_KEEPALIVES)
        except urllib.error.HTTPError as err:
            if err.code == 401:
                self._token_refused("GET /api/v1/agents/me/stream")
                return False
            if err.code == 403:
                print(f"hanamichi agent: the server refused the token (HTTP {err.code})", file=sys.stderr, flush=True)
            raise
        self.connections += 1
        with stream:
            event: str | None = None
            data: list[str] = []
            for raw in stream:  # a read silent past the timeout raises: the stream is dead
                if self.stop.is_set():
                    return True
                line = raw.decode("utf-8", "replace").rstrip("\r\n")
                if not line:
                    if event is not None or data:
                        self._dispatch(event or "message", "\n".join(data))
                    event, data = None, []
                elif line.startswith(":"):
                    continue  # keep-alive
                elif line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:"):
                    data.append(line[5:].lstrip())
                elif line.startswith("id:"):
                    self._last_event_id = line[3:].strip()
        return True

    def _dispatch(self, event: str, data: str) -> None:
        try:
            payload = json.loads(data) if data else {}
        except ValueError:
            return
        if event == "hello":
            self.keepalive_s = float(payload.get("keepalive_s") or self.keepalive_s)
        elif event == "your_turn":
            key: tuple[Any, ...] = (payload.get("game_id"), payload.get("version"))
            with self._lock:
                if key in self._busy:
                    return  # announced again after a reconnection while we answer it
                self._busy.add(key)
            threading.Thread(target=self._turn, args=(payload, key), daemon=True).start()
        elif event == "your_chance":
            key = (payload.get("game_id"), payload.get("version"), "chance")
            with self._lock:
                if key in self._busy:
                    return
                self._busy.add(key)
            threading.Thread(target=self._chance, args=(payload, key), daemon=True).start()
        elif event == "game_ended":
            print(
                f"hanamichi agent: game {payload.get('game_id')} ended: place {payload.get('place')}, "
                f"score {payload.get('score')}",
                file=sys.stderr,
                flush=True,
            )

    def _turn(self, turn: dict, key) -> None:
        try:
            game_id = turn["game_id"]
            status, game = self._call("GET", f"/api/v1/games/{game_id}")
            if status != 200 or not game.get("legal_actions") or game.get("your_seat") is None:
                return
            request = {
                "game": game["game"],
                "game_id": game_id,
                "seat": game["your_seat"],
                "version": game["version"],
                "view": game["view"],
                "legal_actions": game["legal_actions"],
                "deadline_ms": turn.get("deadline_ms", 5000),
                "time_bank_ms": turn.get("time_bank_ms", 0),
            }
            action = self.runner.decide(request)
            status, answer = self._call(
                "POST",
                f"/api/v1/games/{game_id}/actions",
                {"action": action, "command_id": f"{game_id}:{game['version']}", "expected_version": game["version"]},
            )
            if status in (200, 201):
                self.moves += 1
            elif status == 422:
                self.runner.report("refused", f"the server refused the move: {answer}", request)
            # 409 (the table moved on: a deadline, a timer) needs nothing: the next turn comes.
        except Exception as exc:  # a failed turn must not end the runner
            print(f"hanamichi agent: turn {turn} failed: {exc!r}", file=sys.stderr, flush=True)
        finally:
            with self._lock:
                self._busy.discard(key)

    def _chance(self, chance: dict, key) -> None:
        """An optional call: the view from the game, the actions from the event."""
        try:
            game_id = chance["game_id"]
            status, game = self._call("GET", f"/api/v1/games/{game_id}")
            if status != 200 or game.get("your_seat") is None or not chance.get("legal_actions"):
                return
            request = {
                "game": game["game"],
                "game_id": game_id,
                "seat": game["your_seat"],
                "version": chance["version"],
                "view": game["view"],
                "legal_actions": chance["legal_actions"],
                # No deadline is due; the function gets the usual move time to think.
                "deadline_ms": 5000,
                "time_bank_ms": 0,
                "optional": True,
            }
            action = self.runner.decide(request)
            if action is None:
                return
            status, answer = self._call(
                "POST",
                f"/api/v1/games/{game_id}/actions",
                {
                    "action": action,
                    "command_id": f"{game_id}:{chance['version']}:chance",
                    "expected_version": chance["version"],
                },
            )
            if status in (200, 201):
                self.chances_taken += 1
            # Refusals (already_called, too_late, a version conflict) cost nothing: the chance went by.
        except Exception as exc:
            print(f"hanamichi agent: chance {chance} failed: {exc!r}", file=sys.stderr, flush=True)
        finally:
            with self._lock:
                self._busy.discard(key)


def run_pull(fn: Callable[[dict], Any], server: str, token: str) -> int:
    """Follow the stream until interrupted (0) or the token is refused (3)."""
    agent = PullAgent(fn, server, token)
    print(f"hanamichi agent: following {agent.server}/api/v1/agents/me/stream", file=sys.stderr, flush=True)
    try:
        agent.run()
    except KeyboardInterrupt:
        agent.stop.set()
    return 3 if agent.refused else 0
