"""Structured logs: one JSON object per line on stderr, with the
request id, game id and seat of the request being served where they apply.

The environment is read by services/config.py (ProcessSettings, Settings):
- HANAMICHI_LOG_LEVEL (default INFO). At INFO an idle server and an idle
  worker write nothing: arq's line per job (the 5 s sweep made two) is DEBUG
  here, and only starts, stops, outages and failures are INFO or above.
- HANAMICHI_LOG_FORMAT=text gives plain lines for a terminal.
- HANAMICHI_ACCESS_LOG=1 adds one `hanamichi.access` line per request
  (services/http/observe.py)."""

from __future__ import annotations

import json
import logging
import sys
import time
from contextvars import ContextVar

# The fields of the request being served: a dict shared by the request's
# code, so a seat learnt deep in a use case reaches the access line too.
_fields: ContextVar[dict | None] = ContextVar("hanamichi_log_fields", default=None)

_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime", "taskName"}

# Loggers that talk at INFO about routine work: quiet unless DEBUG is asked for.
_CHATTY = ("arq", "httpx", "httpcore", "uvicorn.access")


def begin(**fields) -> object:
    """A request starts: its fields hold until `end(token)`."""
    return _fields.set(dict(fields))


def end(token) -> None:
    _fields.reset(token)


def bind(**fields) -> None:
    """Add fields (game_id, seat, ...) to the request being served, if any."""
    current = _fields.get()
    if current is not None:
        current.update({k: v for k, v in fields.items() if v is not None})


def current() -> dict:
    return dict(_fields.get() or {})


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        line.update(_fields.get() or {})
        # `log.info("...", extra={"game_id": ...})` fields, outside a request too.
        line.update({k: v for k, v in vars(record).items() if k not in _STANDARD and not k.startswith("_")})
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str, ensure_ascii=False)


def configure(level: str = "INFO", text: bool = False) -> None:
    """Once per process, before anything logs (cli main, app_from_env), with
    services.config.ProcessSettings' level and format."""
    name = level.upper()
    numeric = logging.getLevelName(name) if isinstance(logging.getLevelName(name), int) else logging.INFO
    handler = logging.StreamHandler(sys.stderr)
    if text:
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    else:
        handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(numeric)
    for chatty in _CHATTY:
        logging.getLogger(chatty).setLevel(numeric if numeric <= logging.DEBUG else logging.WARNING)
    # uvicorn's own loggers go through the root handler (serve passes log_config=None).
    for name in ("uvicorn", "uvicorn.error"):
        logging.getLogger(name).handlers.clear()
        logging.getLogger(name).propagate = True
