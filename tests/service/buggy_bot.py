"""A deliberately buggy bot for the arena tests: by the request's
version it raises, answers an illegal action, or thinks too long (the arena
test sets --deadline-ms 20); otherwise it plays the first legal action."""

from __future__ import annotations

import time


def act(request: dict) -> dict:
    version = request["version"]
    if version % 13 == 5:
        raise ZeroDivisionError("buggy bot: division by zero")
    if version % 13 == 7:
        return {"type": "play", "card": 9999}
    if version % 13 == 9:
        time.sleep(0.06)
    return request["legal_actions"][0]
