"""One signed POST to a push agent (services/app/agents/calls.py decides when and
what): the endpoint checked again at call time (services/app/agents/endpoints.py),
no redirects, an answer size cap, a timeout of the time the seat has left,
and the answer decoded, or why it is not usable."""

from __future__ import annotations

import asyncio
import time

import aiohttp
import msgspec

from services.app.agents.endpoints import EndpointRefused, resolve_endpoint
from services.app.agents.settings import AgentSettings
from services.app.agents.signing import signed_headers

ANSWER_HEAD = 200  # bytes of each answer kept for the owner's turn log (GET /api/v1/agents/{id}/turns)
_REDIRECTS = frozenset((301, 302, 303, 307, 308))  # with a Location: what a client would follow


class Answer(msgspec.Struct):
    action: dict


class OptionalAnswer(msgspec.Struct):
    action: dict | None = None  # null (or no field): the agent lets the chance pass


def agent_client() -> aiohttp.ClientSession:
    """A worker's one connection pool for every agent call (made in the
    worker's event loop). aiohttp, not httpx: httpx's send machinery was
    ~40% of a worker's CPU in `bench agents`, and calls come in bursts, so
    per-call CPU became queueing delay. No timeout of its own
    (post_to_agent's asyncio.timeout is the seat's budget), no env proxies;
    idle connections kept 5 s (httpx's keep-alive expiry)."""
    return aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=2000, keepalive_timeout=5),
        timeout=aiohttp.ClientTimeout(),
        trust_env=False,
        cookie_jar=aiohttp.DummyCookieJar(),
        headers={"User-Agent": "hanamichi-agent-caller/1"},
    )


async def post_to_agent(
    http: aiohttp.ClientSession,
    settings: AgentSettings,
    agent,
    body: bytes,
    budget_ms: int,
    delivery: str,
    answer_type=Answer,
):
    """(reason, detail, action, answered_ms, answer); reason None when the
    answer is usable. `answer` is the first ANSWER_HEAD bytes of the body
    (or of an HTTP error's body), for the owner's turn log."""
    try:
        target = await resolve_endpoint(agent.endpoint, settings.allow_http, settings.allow_private)
    except EndpointRefused as err:  # e.g. the name now resolves to a private address
        return "unreachable", f"{err.code}: {err.message}", None, None, ""
    headers = signed_headers(agent.secret, body, previous=agent.previous_secret)
    headers["Host"] = target.host_header
    headers["X-Hanamichi-Delivery"] = delivery
    # The address is pinned, the name kept: TLS sends it as SNI and checks
    # the certificate against it (aiohttp keys pooled connections on it too).
    sni = target.sni if target.url.startswith("https:") else None
    cap = settings.max_response_bytes
    try:
        async with asyncio.timeout(max(0.001, budget_ms / 1000)):
            try:
                status, location, data, answered_ms = await _exchange(http, target.url, body, headers, sni, cap)
            except aiohttp.ClientConnectorError:
                raise
            except (aiohttp.ServerDisconnectedError, aiohttp.ClientOSError):
                # Most likely a pooled connection the agent closed while idle:
                # aiohttp finds out on writing (httpx looked before reusing).
                # Asked once more on a new connection (a call only asks for a move).
                status, location, data, answered_ms = await _exchange(http, target.url, body, headers, sni, cap)
    except _TooBig as big:
        return "invalid_response", f"answer larger than {cap} bytes", None, time.time() * 1000, big.head
    except TimeoutError:  # the budget, or aiohttp's own (ServerTimeoutError is a TimeoutError)
        return "timeout", f"no answer within {budget_ms} ms", None, None, ""
    except (aiohttp.ClientError, OSError) as exc:
        return "unreachable", f"{type(exc).__name__}: {exc}"[:200], None, None, ""
    head = answer_head(data)
    if status in _REDIRECTS and location:
        return "invalid_response", f"HTTP {status}: redirects are not followed", None, answered_ms, head
    if status != 200:
        return "invalid_response", f"HTTP {status}", None, answered_ms, head
    try:
        answer = msgspec.json.decode(data, type=answer_type)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError) as exc:
        return "invalid_response", f'not {{"action": {{...}}}}: {exc}'[:200], None, answered_ms, head
    return None, "", answer.action, answered_ms, head


class _TooBig(Exception):
    def __init__(self, head: str) -> None:
        self.head = head  # what came before the cap, for the turn log


async def _exchange(http: aiohttp.ClientSession, url: str, body: bytes, headers: dict, sni: str | None, cap: int):
    """(status, has a Location, body, answered_ms) of one POST; _TooBig past `cap` bytes."""
    async with http.post(url, data=body, headers=headers, allow_redirects=False, server_hostname=sni) as resp:
        length = resp.headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > cap:
            raise _TooBig("")
        chunks: list[bytes] = []
        size = 0
        async for chunk in resp.content.iter_any():  # decoded (gzip...), as it arrives
            size += len(chunk)
            if size > cap:
                raise _TooBig(answer_head(b"".join(chunks)))
            chunks.append(chunk)
        return resp.status, "location" in resp.headers, b"".join(chunks), time.time() * 1000


def answer_head(data: bytes) -> str:
    """The first ANSWER_HEAD bytes of an answer as text (invalid UTF-8 shown
    as U+FFFD, NUL dropped: PostgreSQL text cannot hold it)."""
    return data[:ANSWER_HEAD].decode("utf-8", "replace").replace("\x00", "")
