#!/usr/bin/env python3
"""A Hanamichi agent in one file (standard library only). It plays like the
house `random` bot: a uniformly random choice among the legal actions.

Push (the service calls you; register with an endpoint):
    python examples/agent.py --port 9001 --secret whsec_...

Pull (you read your own event stream; register with mode "pull"):
    python examples/agent.py --pull --server https://hanamichi.example --token hm_...

Protocol: docs/agents.md."""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import random
import sys
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAX_SKEW_S = 300  # refuse requests signed longer ago than this (replays)
MAX_BODY = 1 << 20


def choose(turn: dict, rng: random.Random) -> dict:
    """The house `random` bot's rule: any legal action, uniformly."""
    return rng.choice(turn["legal_actions"])


def verify(secret: str, timestamp: str, body: bytes, signature: str, now: float | None = None) -> bool:
    """X-Hanamichi-Signature is sha256=HMAC-SHA256(secret, timestamp + "." + body)."""
    try:
        age = abs((time.time() if now is None else now) - int(timestamp))
    except (TypeError, ValueError):
        return False
    if age > MAX_SKEW_S:
        return False
    expected = "sha256=" + hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, signature or "")


def make_handler(secret: str, decide=choose, seed: int | None = None):
    rng = random.Random(seed)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if not 0 < length <= MAX_BODY:
                return self._reply(400, {"error": "bad length"})
            body = self.rfile.read(length)
            if not verify(secret, self.headers.get("X-Hanamichi-Timestamp", ""), body,
                          self.headers.get("X-Hanamichi-Signature", "")):
                return self._reply(401, {"error": "bad signature"})
            turn = json.loads(body)
            answer = decide(turn, rng)
            if isinstance(answer, bytes):  # test variants may answer raw bytes
                return self._send(200, answer)
            self._reply(200, {"action": answer})

        def _reply(self, status: int, payload: dict) -> None:
            self._send(status, json.dumps(payload).encode())

        def _send(self, status: int, data: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args) -> None:  # quiet
            pass

    return Handler


def serve(port: int, secret: str, decide=choose, host: str = "127.0.0.1") -> None:
    server = ThreadingHTTPServer((host, port), make_handler(secret, decide))
    server.daemon_threads = True
    print(f"agent listening on http://{host}:{port}", flush=True)
    server.serve_forever()


# --- pull mode ------------------------------------------------------------------

def _call(server: str, token: str, method: str, path: str, body: dict | None = None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(server + path, data=data, method=method, headers={
        "Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")


def play_turn(server: str, token: str, game_id: str, rng: random.Random) -> None:
    status, game = _call(server, token, "GET", f"/api/v1/games/{game_id}")
    if status != 200 or not game["legal_actions"]:
        return
    turn = {"game": game["game"], "game_id": game_id, "seat": game["your_seat"], "version": game["version"],
            "view": game["view"], "legal_actions": game["legal_actions"]}
    _call(server, token, "POST", f"/api/v1/games/{game_id}/actions", {
        "action": choose(turn, rng), "command_id": f"{game_id}:{game['version']}", "expected_version": game["version"]})


def pull(server: str, token: str, seed: int | None = None) -> None:
    """Read the agent's stream for ever (reconnecting); act on `your_turn`."""
    rng = random.Random(seed)
    while True:
        request = urllib.request.Request(server + "/api/v1/agents/me/stream", headers={"Authorization": f"Bearer {token}"})
        try:
            with urllib.request.urlopen(request, timeout=60) as stream:
                event = None
                for raw in stream:
                    line = raw.decode().rstrip("\r\n")
                    if line.startswith("event:"):
                        event = line[6:].strip()
                    elif line.startswith("data:") and event == "your_turn":
                        play_turn(server, token, json.loads(line[5:])["game_id"], rng)
                    elif not line:
                        event = None
        except (urllib.error.URLError, OSError) as exc:
            print(f"stream closed ({exc}); reconnecting", file=sys.stderr, flush=True)
            time.sleep(1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A Hanamichi agent that plays like the house random bot")
    parser.add_argument("--port", type=int, default=9001)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--secret", help="the push agent's signing secret (whsec_...)")
    parser.add_argument("--pull", action="store_true", help="pull mode: read the event stream instead of serving")
    parser.add_argument("--server", default="http://127.0.0.1:8000", help="pull mode: the Hanamichi server")
    parser.add_argument("--token", help="pull mode: the agent's bot token")
    args = parser.parse_args(argv)
    if args.pull:
        if not args.token:
            parser.error("--pull needs --token")
        pull(args.server.rstrip("/"), args.token)
    else:
        if not args.secret:
            parser.error("push mode needs --secret")
        serve(args.port, args.secret, host=args.host)
    return 0


if __name__ == "__main__":
    sys.exit(main())
