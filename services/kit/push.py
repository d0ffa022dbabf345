"""`hanamichi agent run MODULE:FUNCTION --push --port P --secret S`: the push
endpoint (docs/agents.md, "Push: the turn request"), standard library only.

Every request is checked before the function sees it: a bad or missing
signature, or a timestamp more than 5 minutes from our clock, is 401; a
request seen before (same signature) is 409, a replay. The answer is
`{"action": ...}` within the move's time (runner.py)."""

from __future__ import annotations

import json
import socket
import sys
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from services.kit.runner import Runner
from services.kit.signing import ReplayGuard, verify_request

MAX_BODY = 1 << 20


def make_server(
    fn: Callable[[dict], Any], secret: str, port: int, host: str = "127.0.0.1", runner: Runner | None = None
) -> ThreadingHTTPServer:
    serving: Runner = runner or Runner(fn)
    guard = ReplayGuard()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            # Headers and body go out in two writes: without this, Nagle's
            # algorithm and the caller's delayed ACK hold the answer ~40 ms.
            self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def do_POST(self) -> None:
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                length = -1
            if not 0 < length <= MAX_BODY:
                return self._reply(400, {"error": "bad_length"})
            body = self.rfile.read(length)
            timestamp = self.headers.get("X-Hanamichi-Timestamp", "")
            signature = self.headers.get("X-Hanamichi-Signature", "")
            if not verify_request(secret, timestamp, body, self.headers):
                return self._reply(401, {"error": "bad_signature"})
            if not guard.first_time(signature, timestamp):
                return self._reply(409, {"error": "replay"})
            try:
                request = json.loads(body)
                if not isinstance(request, dict):
                    raise ValueError("not an object")
            except ValueError:
                return self._reply(400, {"error": "bad_json"})
            self._reply(200, {"action": serving.decide(request)})

        def _reply(self, status: int, payload: dict) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args) -> None:  # one line per turn is noise; failures are reported
            pass

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    server.runner = serving  # type: ignore[attr-defined]
    return server


def run_push(fn: Callable[[dict], Any], secret: str, port: int, host: str = "127.0.0.1") -> None:
    server = make_server(fn, secret, port, host)
    print(
        f"hanamichi agent: push endpoint on http://{host}:{server.server_address[1]}/ "
        "(register it as the agent's endpoint, behind HTTPS)",
        file=sys.stderr,
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
