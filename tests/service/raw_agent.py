"""A raw push endpoint for the agent tests (standard library only): the
pre-kit example agent's server. The misbehaving variants (agent_variants.py)
need it: unlike the kit's runner (services/kit), it answers late, answers
garbage or crashes when told to. Signatures are checked by the kit's own
`verify` (services/kit/signing.py, standard library only): one rule, one home."""

from __future__ import annotations

import json
import random
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from services.kit.signing import verify

MAX_BODY = 1 << 20


def choose(turn: dict, rng: random.Random) -> dict:
    """The house `random` bot's rule: any legal action, uniformly."""
    return rng.choice(turn["legal_actions"])


def make_handler(secret: str, decide=choose, seed: int | None = None):
    rng = random.Random(seed)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if not 0 < length <= MAX_BODY:
                return self._reply(400, {"error": "bad length"})
            body = self.rfile.read(length)
            if not verify(
                secret,
                self.headers.get("X-Hanamichi-Timestamp", ""),
                body,
                self.headers.get("X-Hanamichi-Signature", ""),
            ):
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
