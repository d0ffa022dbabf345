"""One signed POST to a push agent (workers/agent_calls.py decides when and
what): the endpoint checked again at call time (services/app/agents/endpoints.py),
no redirects, an answer size cap, a timeout of the time the seat has left,
and the answer decoded, or why it is not usable."""

from __future__ import annotations

import asyncio
import logging
import time

import httpx
import msgspec

from services.app.agents.endpoints import EndpointRefused, resolve_endpoint
from services.app.agents.settings import AgentSettings
from services.app.agents.signing import signed_headers

ANSWER_HEAD = 200  # bytes of each answer kept for the owner's turn log (GET /api/v1/agents/{id}/turns)
logging.getLogger("httpx").setLevel(logging.WARNING)  # a line per agent call is too many


class Answer(msgspec.Struct):
    action: dict


class OptionalAnswer(msgspec.Struct):
    action: dict | None = None  # null (or no field): the agent lets the chance pass


def agent_client() -> httpx.AsyncClient:
    """A worker's one connection pool for every agent call."""
    return httpx.AsyncClient(
        follow_redirects=False, trust_env=False,
        limits=httpx.Limits(max_connections=2000, max_keepalive_connections=500),
        headers={"User-Agent": "hanamichi-agent-caller/1"},
    )


async def post_to_agent(http: httpx.AsyncClient, settings: AgentSettings, agent, body: bytes, budget_ms: int,
                        delivery: str, answer_type=Answer):
    """(reason, detail, action, answered_ms, answer); reason None when the
    answer is usable. `answer` is the first ANSWER_HEAD bytes of the body
    (or of an HTTP error's body), for the owner's turn log (issue 12)."""
    try:
        target = await resolve_endpoint(agent.endpoint, settings.allow_http, settings.allow_private)
    except EndpointRefused as err:  # e.g. the name now resolves to a private address
        return "unreachable", f"{err.code}: {err.message}", None, None, ""
    headers = signed_headers(agent.secret, body)
    headers["Host"] = target.host_header
    headers["X-Hanamichi-Delivery"] = delivery
    extensions = {"sni_hostname": target.sni} if target.url.startswith("https:") else {}
    cap = settings.max_response_bytes
    try:
        async with asyncio.timeout(max(0.001, budget_ms / 1000)):
            async with http.stream("POST", target.url, content=body, headers=headers, extensions=extensions) as resp:
                length = resp.headers.get("content-length")
                if length is not None and length.isdigit() and int(length) > cap:
                    return "invalid_response", f"answer larger than {cap} bytes", None, time.time() * 1000, ""
                chunks, size = [], 0
                async for chunk in resp.aiter_bytes():
                    size += len(chunk)
                    if size > cap:
                        return ("invalid_response", f"answer larger than {cap} bytes", None, time.time() * 1000,
                                answer_head(b"".join(chunks)))
                    chunks.append(chunk)
                answered_ms = time.time() * 1000
    except TimeoutError:
        return "timeout", f"no answer within {budget_ms} ms", None, None, ""
    except httpx.TimeoutException:
        return "timeout", f"no answer within {budget_ms} ms", None, None, ""
    except (httpx.TransportError, OSError) as exc:
        return "unreachable", f"{type(exc).__name__}: {exc}"[:200], None, None, ""
    data = b"".join(chunks)
    head = answer_head(data)
    if resp.is_redirect:
        return "invalid_response", f"HTTP {resp.status_code}: redirects are not followed", None, answered_ms, head
    if resp.status_code != 200:
        return "invalid_response", f"HTTP {resp.status_code}", None, answered_ms, head
    try:
        answer = msgspec.json.decode(data, type=answer_type)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError) as exc:
        return "invalid_response", f"not {{\"action\": {{...}}}}: {exc}"[:200], None, answered_ms, head
    return None, "", answer.action, answered_ms, head


def answer_head(data: bytes) -> str:
    """The first ANSWER_HEAD bytes of an answer as text (invalid UTF-8 shown
    as U+FFFD, NUL dropped: PostgreSQL text cannot hold it)."""
    return data[:ANSWER_HEAD].decode("utf-8", "replace").replace("\x00", "")
