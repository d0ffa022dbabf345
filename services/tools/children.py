"""Processes `hanamichi serve` runs beside the API (the arq worker), kept
alive: a child that exits while serve runs is logged and started again,
and every child dies with serve, even a SIGKILLed one."""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import TypeVar

log = logging.getLogger("hanamichi.serve")
_T = TypeVar("_T")

_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int | None = None) -> None:
    """In the child before exec: SIGTERM when the parent dies (Linux), so a
    SIGKILLed serve leaves no worker behind. Best effort elsewhere.

    `parent`: the pid the child was started by. A child that gets here only
    after that parent died (an API process still importing when serve was
    killed) would never get the signal: it ends itself instead."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    if parent is not None and os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGTERM)


def alive(pid: int) -> bool:
    """The process exists and has not exited (a zombie has)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie (exited, not yet reaped by its parent) is not alive
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def _forget_metrics(pid: int) -> None:
    # Its live gauges (open SSE streams...) must stop counting in /metrics.
    from services.infra.metrics import process_dead

    process_dead(pid)


class Supervised:
    """One child command, restarted with a backoff whenever it exits."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], check_s: float = 0.2) -> None:
        self.name, self.argv, self.env, self.check_s = name, argv, env, check_s
        self.proc: subprocess.Popen | None = None
        self.restarts = 0
        self.started_at = 0.0
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._watch, name=f"supervise-{name}", daemon=True)

    def start(self) -> Supervised:
        self.proc = self._spawn()
        self._thread.start()
        return self

    def _spawn(self) -> subprocess.Popen:
        self.started_at = time.monotonic()
        # Its own session: a Ctrl-C in the terminal is serve's to handle (it
        # stops the child itself), not a crash to restart.
        return subprocess.Popen(self.argv, env=self.env, preexec_fn=_die_with_parent, start_new_session=True)

    def _watch(self) -> None:
        backoff_s = 0.5
        while not self._stopping.wait(self.check_s):
            proc = self.proc
            if proc is None or proc.poll() is None:
                continue
            ran_s = time.monotonic() - self.started_at
            _forget_metrics(proc.pid)
            if ran_s > 30:
                backoff_s = 0.5  # it ran for a while: not a crash loop
            print(
                f"hanamichi: {self.name} (pid {proc.pid}) exited with code {proc.returncode}; "
                f"starting it again in {backoff_s:g} s",
                flush=True,
            )
            if self._stopping.wait(backoff_s):
                return
            self.restarts += 1
            self.proc = self._spawn()
            print(f"hanamichi: {self.name} restarted (pid {self.proc.pid}, restart {self.restarts})", flush=True)
            backoff_s = min(10.0, backoff_s * 2)

    def stop(self, timeout_s: float = 5.0) -> None:
        """SIGTERM, then SIGKILL after `timeout_s`; no restart from here on."""
        self._stopping.set()
        if self._thread.is_alive():
            self._thread.join()
        proc = self.proc
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            log.warning("%s did not stop within %s s; killing it", self.name, timeout_s)
            proc.kill()
            proc.wait()


def piped(stream: _T | None) -> _T:
    """A child's stream that was asked for as a pipe (stdin/stdout=PIPE)."""
    if stream is None:
        raise RuntimeError("the child was started without this pipe")
    return stream
